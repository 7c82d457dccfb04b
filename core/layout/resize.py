"""Moving borders: keyboard resizes (tmux `resize-pane`) and mouse drags.

Both work in character cells on the rendered geometry, then write weights back such that
`core.layout.geometry.compute` renders the border exactly where it was asked to go. Only
the two tracks on either side of the border change size.
"""

from __future__ import annotations

from dataclasses import replace

from core.errors import CannotResize, NodeNotFound
from core.layout.geometry import Orientation, Side, Tracks, compute
from core.layout.model import Direction, Grid, LayoutTree, Leaf, Split, WeightedChild
from core.layout.sizes import distribute
from core.layout.tree import Container, find_node, locate_leaf, replace_node


def resize(
    tree: LayoutTree, leaf_id: str, side: Side, cells: int, width: int, height: int
) -> LayoutTree:
    """Move the border on `side` of a cell by `cells` character cells.

    The border moved is the one of the nearest container, going up from the cell, that has
    a border on that side of it (tmux behaviour). The result is clamped so that no track
    drops below its minimum size; on a window too small to show every cell, nothing moves.

    Args:
        tree: The layout.
        leaf_id: The cell being resized.
        side: Which of its borders moves.
        cells: How far; positive grows the cell toward `side`, negative shrinks it.
        width: Width of the whole layout area, in cells.
        height: Height of the whole layout area, in cells.

    Returns:
        The new tree (the same tree when nothing can move).

    Raises:
        NodeNotFound: No cell has that id.
        CannotResize: The cell touches the page edge on that side.
    """
    container, orientation, index = border_on_side(tree, leaf_id, side)
    tracks = compute(tree, width, height).tracks[(container.id, orientation)]
    delta = cells if side in (Side.RIGHT, Side.DOWN) else -cells
    return _move_border(tree, container, tracks, index, delta)


def set_border(
    tree: LayoutTree,
    container_id: str,
    border_index: int,
    position: int,
    width: int,
    height: int,
    orientation: Orientation | None = None,
) -> LayoutTree:
    """Put a border at an absolute position (a mouse drag), clamped to the allowed range.

    Args:
        tree: The layout.
        container_id: The split or grid owning the border (`Border.container_id`).
        border_index: Border between track `i` and `i + 1` (`Border.index`).
        position: Target column of a vertical border, or target row of a horizontal one
            (the title row of the track below), as in `Border.x` / `Border.y`.
        width: Width of the whole layout area.
        height: Height of the whole layout area.
        orientation: Which borders of a grid (columns: VERTICAL, rows: HORIZONTAL). Implied
            for a split; required for a grid.

    Returns:
        The new tree (the same tree when nothing can move).

    Raises:
        NodeNotFound: No such container, or no such border in it.
    """
    node = find_node(tree, container_id)
    if isinstance(node, Leaf):
        raise NodeNotFound(f"container {container_id}")
    if isinstance(node, Split):
        implied = (
            Orientation.VERTICAL if node.direction == Direction.ROW else Orientation.HORIZONTAL
        )
        if orientation not in (None, implied):
            raise NodeNotFound(f"{orientation.value} border in container {container_id}")
        orientation = implied
    elif orientation is None:
        raise NodeNotFound(f"border {border_index} of grid {container_id} (orientation?)")
    tracks = compute(tree, width, height).tracks[(container_id, orientation)]
    if not 0 <= border_index < len(tracks.sizes) - 1:
        raise NodeNotFound(f"border {border_index} in container {container_id}")
    delta = position - tracks.border_position(border_index)
    return _move_border(tree, node, tracks, border_index, delta)


def border_on_side(
    tree: LayoutTree, leaf_id: str, side: Side
) -> tuple[Container, Orientation, int]:
    """The container, border orientation and border index on `side` of a cell.

    Raises:
        NodeNotFound: No cell has that id.
        CannotResize: No container has a border on that side of the cell.
    """
    path = locate_leaf(tree.root, leaf_id)[1]
    before = side in (Side.LEFT, Side.UP)
    across_columns = side in (Side.LEFT, Side.RIGHT)
    orientation = Orientation.VERTICAL if across_columns else Orientation.HORIZONTAL
    for step in reversed(path):
        container = step.container
        if isinstance(container, Split):
            if (container.direction == Direction.ROW) != across_columns:
                continue
            first, last, count = step.position, step.position, len(container.children)
        else:
            cell = container.cells[step.position]
            if across_columns:
                first, last, count = (
                    cell.col,
                    cell.col + cell.col_span - 1,
                    len(container.col_weights),
                )
            else:
                first, last, count = (
                    cell.row,
                    cell.row + cell.row_span - 1,
                    len(container.row_weights),
                )
        if before and first > 0:
            return container, orientation, first - 1
        if not before and last < count - 1:
            return container, orientation, last
    raise CannotResize(leaf_id, side.value)


def _move_border(
    tree: LayoutTree, container: Container, tracks: Tracks, index: int, delta: int
) -> LayoutTree:
    sizes, minimums = list(tracks.sizes), tracks.minimums
    if not tracks.roomy:
        return tree
    low = minimums[index] - sizes[index]
    high = sizes[index + 1] - minimums[index + 1]
    delta = max(low, min(high, delta))
    if delta == 0 or low > high:
        return tree
    target = list(sizes)
    target[index] += delta
    target[index + 1] -= delta
    weights = _weights_of(container, tracks.orientation)
    new_weights = _weights_for(weights, sizes, target, index, delta, minimums)
    changed = _with_weights(container, tracks.orientation, new_weights)
    return replace_node(tree, container.id, changed)


def _weights_for(
    weights: list[float],
    sizes: list[int],
    target: list[int],
    index: int,
    delta: int,
    minimums: tuple[int, ...],
) -> list[float]:
    """Weights that render as `target`, changing only the two around the border if possible.

    Shifting weight between the two tracks by exactly `delta` cells' worth keeps the total
    weight, hence every other track's exact share and every fractional part: largest
    remainder then rounds the same way and the border lands exactly. The result is checked
    with `distribute` itself; when a minimum pins a track and the shortcut misses, every
    weight is set to its rendered size, which renders exactly by construction.
    """
    available = sum(sizes)
    shift = delta * sum(weights) / available
    candidate = list(weights)
    candidate[index] += shift
    candidate[index + 1] -= shift
    if (
        candidate[index] > 0
        and candidate[index + 1] > 0
        and distribute(available, candidate, minimums) == target
    ):
        return candidate
    return [float(size) for size in target]


def _weights_of(container: Container, orientation: Orientation) -> list[float]:
    if isinstance(container, Split):
        return [child.weight for child in container.children]
    if orientation == Orientation.VERTICAL:
        return list(container.col_weights)
    return list(container.row_weights)


def _with_weights(
    container: Container, orientation: Orientation, weights: list[float]
) -> Container:
    if isinstance(container, Split):
        children = tuple(
            WeightedChild(child.node, weight)
            for child, weight in zip(container.children, weights, strict=True)
        )
        return replace(container, children=children)
    grid: Grid = container
    if orientation == Orientation.VERTICAL:
        return replace(grid, col_weights=tuple(weights))
    return replace(grid, row_weights=tuple(weights))
