"""Finding and replacing nodes in a layout tree, without mutating it.

The public queries (`find_leaf`, `leaf_index`, `parent_of`...) serve the UI and the daemon.
The path helpers (`Step`, `locate`, `rebuild`, `settle`) are the building blocks of the
operations in `core.layout.ops` and `core.layout.sizing`: an operation locates a node, builds
a new version of its container and rebuilds the spine above it; everything else is shared
with the previous tree, which keeps undo cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from core.errors import NodeNotFound
from core.layout.model import (
    Grid,
    GridCell,
    LayoutTree,
    Leaf,
    Node,
    Split,
    WeightedChild,
    iter_leaves,
)

Container = Split | Grid


@dataclass(frozen=True, slots=True)
class Step:
    """One level of the way from the root down to a node.

    Attributes:
        container: The split or grid holding the next node on the way.
        position: Index of that node in `container.children` (split) or `container.cells`
            (grid; the tuple order, not the reading order).
    """

    container: Container
    position: int


def locate(root: Node, node_id: str) -> tuple[Node, list[Step]]:
    """Find a node and the steps leading to it from `root`.

    Returns:
        The node, and the containers above it, outermost first (empty for the root).

    Raises:
        NodeNotFound: No node has that id.
    """
    found = _search(root, node_id, [])
    if found is None:
        raise NodeNotFound(f"cell or container {node_id}")
    return found


def _search(node: Node, node_id: str, path: list[Step]) -> tuple[Node, list[Step]] | None:
    if node.id == node_id:
        return node, path
    if isinstance(node, Split):
        for position, child in enumerate(node.children):
            found = _search(child.node, node_id, [*path, Step(node, position)])
            if found is not None:
                return found
    elif isinstance(node, Grid):
        for position, cell in enumerate(node.cells):
            found = _search(cell.node, node_id, [*path, Step(node, position)])
            if found is not None:
                return found
    return None


def locate_leaf(root: Node, leaf_id: str) -> tuple[Leaf, list[Step]]:
    """Like `locate`, but the node must be a leaf (a cell).

    Raises:
        NodeNotFound: No leaf has that id.
    """
    node, path = locate(root, leaf_id)
    if not isinstance(node, Leaf):
        raise NodeNotFound(f"cell {leaf_id}")
    return node, path


def with_child(container: Container, position: int, node: Node) -> Container:
    """A copy of `container` whose child at `position` is `node` (weight or span kept)."""
    if isinstance(container, Split):
        children = list(container.children)
        children[position] = WeightedChild(node, children[position].weight)
        return replace(container, children=tuple(children))
    cells = list(container.cells)
    cells[position] = replace(cells[position], node=node)
    return replace(container, cells=tuple(cells))


def rebuild(path: list[Step], node: Node) -> Node:
    """Put `node` where the last step of `path` points, and return the new root."""
    for step in reversed(path):
        node = with_child(step.container, step.position, node)
    return node


def settle(path: list[Step], container: Container) -> Node:
    """Put an edited container back in its place, collapsing it when it became trivial.

    A split left with one child, or a grid left with one cell, is replaced by that child,
    which takes the container's slot (its weight in a parent split, its span in a parent
    grid). When that child is a split of the same direction as the parent split, its children
    are spliced into the parent (weights scaled to the slot) so that the tree stays flat and
    a later split behaves as tmux does.

    Returns:
        The new root.
    """
    node: Node = container
    if isinstance(container, Split) and len(container.children) == 1:
        node = container.children[0].node
    elif isinstance(container, Grid):
        container = normalize_grid(container)
        node = container
        if len(container.cells) == 1:
            node = container.cells[0].node
    if node is container or not path:
        return rebuild(path, node)
    parent = path[-1].container
    if isinstance(node, Split) and isinstance(parent, Split) and node.direction == parent.direction:
        position = path[-1].position
        slot = parent.children[position].weight
        total = sum(child.weight for child in node.children)
        spliced = tuple(
            WeightedChild(child.node, slot * child.weight / total) for child in node.children
        )
        children = parent.children[:position] + spliced + parent.children[position + 1 :]
        return rebuild(path[:-1], replace(parent, children=children))
    return rebuild(path, node)


def normalize_grid(grid: Grid) -> Grid:
    """Drop the column and row boundaries that no cell starts at.

    After merges, a boundary may be crossed by every cell (e.g. both rows of a 2x2 grid
    merged horizontally): it no longer separates anything, so its two tracks become one
    whose weight is their sum. The rendering is unchanged up to rounding.
    """
    changed = True
    while changed:
        changed = False
        for k in range(len(grid.col_weights) - 1, 0, -1):
            if all(cell.col != k for cell in grid.cells):
                grid = _merge_columns(grid, k)
                changed = True
                break
        for k in range(len(grid.row_weights) - 1, 0, -1):
            if all(cell.row != k for cell in grid.cells):
                grid = _merge_rows(grid, k)
                changed = True
                break
    return grid


def _merge_columns(grid: Grid, k: int) -> Grid:
    """Fold column `k` into column `k - 1`."""
    weights = list(grid.col_weights)
    weights[k - 1] += weights.pop(k)
    cells = []
    for cell in grid.cells:
        if cell.col >= k:
            cell = replace(cell, col=cell.col - 1)
        elif cell.col + cell.col_span > k:
            cell = replace(cell, col_span=cell.col_span - 1)
        cells.append(cell)
    return replace(grid, col_weights=tuple(weights), cells=tuple(cells))


def _merge_rows(grid: Grid, k: int) -> Grid:
    """Fold row `k` into row `k - 1`."""
    weights = list(grid.row_weights)
    weights[k - 1] += weights.pop(k)
    cells = []
    for cell in grid.cells:
        if cell.row >= k:
            cell = replace(cell, row=cell.row - 1)
        elif cell.row + cell.row_span > k:
            cell = replace(cell, row_span=cell.row_span - 1)
        cells.append(cell)
    return replace(grid, row_weights=tuple(weights), cells=tuple(cells))


def reading_order(grid: Grid) -> list[int]:
    """Indices into `grid.cells`, in reading order (top to bottom, left to right)."""
    return sorted(range(len(grid.cells)), key=lambda i: (grid.cells[i].row, grid.cells[i].col))


# ─── Public queries ──────────────────────────────────────────────────────────────────────


def find_node(tree: LayoutTree, node_id: str) -> Node:
    """The node (cell or container) with that id.

    Raises:
        NodeNotFound: No node has that id.
    """
    return locate(tree.root, node_id)[0]


def find_leaf(tree: LayoutTree, leaf_id: str) -> Leaf:
    """The cell with that id.

    Raises:
        NodeNotFound: No cell has that id.
    """
    return locate_leaf(tree.root, leaf_id)[0]


def leaf_at_index(tree: LayoutTree, index: int) -> Leaf:
    """The cell at a 0-based index in reading order (the number users see, minus one).

    Raises:
        NodeNotFound: The layout has fewer cells.
    """
    if index >= 0:
        for position, leaf in enumerate(iter_leaves(tree.root)):
            if position == index:
                return leaf
    raise NodeNotFound(f"cell number {index + 1}")


def leaf_index(tree: LayoutTree, leaf_id: str) -> int:
    """The 0-based reading-order index of a cell.

    Raises:
        NodeNotFound: No cell has that id.
    """
    for position, leaf in enumerate(iter_leaves(tree.root)):
        if leaf.id == leaf_id:
            return position
    raise NodeNotFound(f"cell {leaf_id}")


def parent_of(tree: LayoutTree, node_id: str) -> Container | None:
    """The split or grid directly holding a node, or None for the root.

    Raises:
        NodeNotFound: No node has that id.
    """
    path = locate(tree.root, node_id)[1]
    return path[-1].container if path else None


def replace_node(tree: LayoutTree, node_id: str, new_node: Node) -> LayoutTree:
    """A tree where the node `node_id` is replaced by `new_node`, which takes its slot.

    Raises:
        NodeNotFound: No node has that id.
    """
    path = locate(tree.root, node_id)[1]
    return replace(tree, root=rebuild(path, new_node))


def replace_leaf(tree: LayoutTree, leaf_id: str, new_leaf: Leaf) -> LayoutTree:
    """A tree where the cell `leaf_id` is replaced by `new_leaf` (whose id may differ).

    Raises:
        NodeNotFound: No cell has that id.
    """
    path = locate_leaf(tree.root, leaf_id)[1]
    return replace(tree, root=rebuild(path, new_leaf))


def map_leaves(tree: LayoutTree, change: Callable[[Leaf], Leaf]) -> LayoutTree:
    """Apply `change` to every cell, called in reading order, and return the new tree."""
    return replace(tree, root=_map_leaves(tree.root, change))


def _map_leaves(node: Node, change: Callable[[Leaf], Leaf]) -> Node:
    if isinstance(node, Leaf):
        return change(node)
    if isinstance(node, Split):
        children = tuple(
            WeightedChild(_map_leaves(child.node, change), child.weight) for child in node.children
        )
        return replace(node, children=children)
    # Cells are visited in reading order (callers rely on it, e.g. "first host wins"), but
    # stored back in their original tuple order so that an unchanged tree stays equal.
    mapped: dict[int, GridCell] = {}
    for position in reading_order(node):
        cell = node.cells[position]
        mapped[position] = replace(cell, node=_map_leaves(cell.node, change))
    return replace(node, cells=tuple(mapped[i] for i in range(len(node.cells))))


def map_containers(tree: LayoutTree, change: Callable[[Container], Container]) -> LayoutTree:
    """Apply `change` to every split and grid, innermost first, and return the new tree."""
    return replace(tree, root=_map_containers(tree.root, change))


def _map_containers(node: Node, change: Callable[[Container], Container]) -> Node:
    if isinstance(node, Leaf):
        return node
    if isinstance(node, Split):
        children = tuple(
            WeightedChild(_map_containers(child.node, change), child.weight)
            for child in node.children
        )
        return change(replace(node, children=children))
    cells = tuple(replace(cell, node=_map_containers(cell.node, change)) for cell in node.cells)
    return change(replace(node, cells=cells))
