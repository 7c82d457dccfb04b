"""Pure operations on a layout tree (FEATURES.md LAY-3): each returns a new tree.

Nothing is mutated, so undo is a matter of keeping the previous tree (`history.py`). New
node ids come from an injected `new_id` callable, never from `uuid` here, so that tests are
deterministic; ids are drawn for the new cells first (in reading order), then for a new
container.

This module is the entry point for callers: it also re-exports the queries of
`core.layout.tree`, `validate` and the border moves of `core.layout.resize`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import overload

from core.errors import LastCell, NodeNotFound, NotAdjacent, SameCell
from core.layout.geometry import Orientation, Side
from core.layout.invariants import validate
from core.layout.model import (
    Direction,
    Grid,
    GridCell,
    LayoutSet,
    LayoutTree,
    Leaf,
    Node,
    Split,
    WeightedChild,
    iter_leaves,
)
from core.layout.resize import resize, set_border
from core.layout.tree import (
    Container,
    Step,
    find_leaf,
    find_node,
    leaf_at_index,
    leaf_index,
    locate_leaf,
    map_containers,
    map_leaves,
    parent_of,
    rebuild,
    replace_leaf,
    settle,
)

__all__ = [
    "Orientation",
    "Side",
    "close",
    "equalize",
    "find_leaf",
    "find_node",
    "leaf_at_index",
    "leaf_index",
    "make_grid",
    "merge",
    "move",
    "parent_of",
    "reconcile_duplicate_agents",
    "replace_leaf",
    "resize",
    "set_border",
    "split",
    "swap",
    "validate",
]

NewId = Callable[[], str]


def split(
    tree: LayoutTree,
    leaf_id: str,
    direction: Direction,
    new_id: NewId,
    count: int = 1,
    before: bool = False,
) -> tuple[LayoutTree, list[str]]:
    """Add `count` empty cells beside a cell (tmux `split-window`, or "split into N").

    If the cell's parent is a split of the same direction, the new cells are inserted next
    to it and share its weight equally with it; otherwise the cell is replaced by a new
    split holding it and the new cells with equal weights, which takes the cell's slot.

    Args:
        tree: The layout.
        leaf_id: The cell to split.
        direction: ROW puts the new cells to the right, COLUMN below.
        new_id: Source of ids for the new nodes.
        count: How many new cells (≥ 1).
        before: Put the new cells to the left (or above) instead.

    Returns:
        The new tree and the ids of the new cells, in reading order.

    Raises:
        NodeNotFound: No cell has that id.
        ValueError: `count` is below 1.
    """
    if count < 1:
        raise ValueError(f"split count must be at least 1, got {count}")
    leaf, path = locate_leaf(tree.root, leaf_id)
    new_leaves = [Leaf(new_id()) for _ in range(count)]
    parent = path[-1].container if path else None
    if isinstance(parent, Split) and parent.direction == direction:
        position = path[-1].position
        share = parent.children[position].weight / (count + 1)
        group = [WeightedChild(node, share) for node in new_leaves]
        own = WeightedChild(leaf, share)
        group = [*group, own] if before else [own, *group]
        children = parent.children[:position] + tuple(group) + parent.children[position + 1 :]
        root = rebuild(path[:-1], replace(parent, children=children))
    else:
        nodes: list[Node] = [*new_leaves, leaf] if before else [leaf, *new_leaves]
        container = Split(new_id(), direction, tuple(WeightedChild(n, 1.0) for n in nodes))
        root = rebuild(path, container)
    return replace(tree, root=root), [node.id for node in new_leaves]


def make_grid(
    tree: LayoutTree, leaf_id: str, rows: int, cols: int, new_id: NewId
) -> tuple[LayoutTree, list[str]]:
    """Replace a cell by a `rows x cols` grid whose top-left cell is the old cell.

    Returns:
        The new tree and the ids of the new cells, in reading order (none for 1 x 1, which
        leaves the tree as is).

    Raises:
        NodeNotFound: No cell has that id.
        ValueError: `rows` or `cols` is below 1.
    """
    if rows < 1 or cols < 1:
        raise ValueError(f"a grid needs at least one row and one column, got {rows}x{cols}")
    leaf, path = locate_leaf(tree.root, leaf_id)
    if rows == 1 and cols == 1:
        return tree, []
    cells = [GridCell(leaf, 0, 0)]
    new_ids = []
    for row in range(rows):
        for col in range(cols):
            if (row, col) != (0, 0):
                new_ids.append(new_id())
                cells.append(GridCell(Leaf(new_ids[-1]), row, col))
    grid = Grid(new_id(), (1.0,) * cols, (1.0,) * rows, tuple(cells))
    return replace(tree, root=rebuild(path, grid)), new_ids


def merge(tree: LayoutTree, a: str, b: str) -> tuple[LayoutTree, list[Leaf]]:
    """Merge two neighbouring cells of one container into a bigger cell `a`.

    In a split, `a` and `b` must be siblings with nothing between them: `b` disappears and
    `a` gets both weights. In a grid, the rectangle bounding `a` and `b` must be covered by
    cells lying entirely inside it (a spreadsheet range): all of them except `a` disappear
    and `a` spans the rectangle. A container left with one cell is replaced by that cell.

    Returns:
        The new tree, and the cells removed (reading order) so their sessions can be closed.

    Raises:
        NodeNotFound: `a` or `b` is not a cell of the tree.
        SameCell: `a` and `b` are the same cell.
        NotAdjacent: They are in different containers, or not neighbours.
    """
    if a == b:
        raise SameCell("merge")
    leaf_a, path_a = locate_leaf(tree.root, a)
    _, path_b = locate_leaf(tree.root, b)
    if not path_a or not path_b or path_a[-1].container.id != path_b[-1].container.id:
        raise NotAdjacent("they are not in the same split or grid")
    parent = path_a[-1].container
    pos_a, pos_b = path_a[-1].position, path_b[-1].position
    if isinstance(parent, Split):
        if abs(pos_a - pos_b) != 1:
            raise NotAdjacent("other cells lie between them")
        children = list(parent.children)
        children[pos_a] = WeightedChild(leaf_a, children[pos_a].weight + children[pos_b].weight)
        removed = children.pop(pos_b).node
        root = settle(path_a[:-1], replace(parent, children=tuple(children)))
        return replace(tree, root=root), list(iter_leaves(removed))
    return _merge_in_grid(tree, path_a[:-1], parent, pos_a, pos_b)


def _merge_in_grid(
    tree: LayoutTree, above: list[Step], grid: Grid, pos_a: int, pos_b: int
) -> tuple[LayoutTree, list[Leaf]]:
    cell_a, cell_b = grid.cells[pos_a], grid.cells[pos_b]
    top, left = min(cell_a.row, cell_b.row), min(cell_a.col, cell_b.col)
    bottom = max(cell_a.row + cell_a.row_span, cell_b.row + cell_b.row_span)
    right = max(cell_a.col + cell_a.col_span, cell_b.col + cell_b.col_span)
    kept: list[GridCell] = []
    removed: list[GridCell] = []
    for position, cell in enumerate(grid.cells):
        if position == pos_a:
            kept.append(
                replace(cell, row=top, col=left, row_span=bottom - top, col_span=right - left)
            )
            continue
        cell_bottom, cell_right = cell.row + cell.row_span, cell.col + cell.col_span
        if cell_bottom <= top or cell.row >= bottom or cell_right <= left or cell.col >= right:
            kept.append(cell)
        elif top <= cell.row and cell_bottom <= bottom and left <= cell.col and cell_right <= right:
            removed.append(cell)
        else:
            raise NotAdjacent("the rectangle they span cuts through another cell")
    removed.sort(key=lambda cell: (cell.row, cell.col))
    lost = [leaf for cell in removed for leaf in iter_leaves(cell.node)]
    root = settle(above, replace(grid, cells=tuple(kept)))
    return replace(tree, root=root), lost


def close(tree: LayoutTree, leaf_id: str, new_id: NewId | None = None) -> LayoutTree:
    """Remove a cell and give its space to a neighbour (tmux `kill-pane`).

    In a split, the previous sibling takes the weight (the next one for a first child). In
    a grid, a neighbouring cell whose edge matches the closed cell's full edge grows over it
    (left, then up, right, down); when none does, the slot gets a new empty cell, which
    needs `new_id`. A container left with one cell is replaced by that cell.

    Raises:
        NodeNotFound: No cell has that id.
        LastCell: It is the only cell of the layout.
        ValueError: The slot must be refilled and `new_id` was not given.
    """
    _, path = locate_leaf(tree.root, leaf_id)
    if not path or sum(1 for _ in iter_leaves(tree.root)) == 1:
        raise LastCell()
    parent, position = path[-1].container, path[-1].position
    if isinstance(parent, Split):
        children = list(parent.children)
        gone = children.pop(position)
        heir = position - 1 if position > 0 else 0
        children[heir] = WeightedChild(children[heir].node, children[heir].weight + gone.weight)
        return replace(tree, root=settle(path[:-1], replace(parent, children=tuple(children))))
    grown = _grow_over(parent, position)
    if grown is not None:
        return replace(tree, root=settle(path[:-1], grown))
    if new_id is None:
        raise ValueError("closing this grid cell leaves a hole: pass new_id to refill it")
    return replace(tree, root=rebuild(path, Leaf(new_id())))


def _grow_over(grid: Grid, position: int) -> Grid | None:
    """The grid without cell `position`, a neighbour grown over its area; None if none fits."""
    gone = grid.cells[position]
    end_row, end_col = gone.row + gone.row_span, gone.col + gone.col_span
    for side in (Side.LEFT, Side.UP, Side.RIGHT, Side.DOWN):
        for index, cell in enumerate(grid.cells):
            same_rows = cell.row == gone.row and cell.row_span == gone.row_span
            same_cols = cell.col == gone.col and cell.col_span == gone.col_span
            grown: GridCell | None = None
            if side == Side.LEFT and same_rows and cell.col + cell.col_span == gone.col:
                grown = replace(cell, col_span=cell.col_span + gone.col_span)
            elif side == Side.UP and same_cols and cell.row + cell.row_span == gone.row:
                grown = replace(cell, row_span=cell.row_span + gone.row_span)
            elif side == Side.RIGHT and same_rows and cell.col == end_col:
                grown = replace(cell, col=gone.col, col_span=cell.col_span + gone.col_span)
            elif side == Side.DOWN and same_cols and cell.row == end_row:
                grown = replace(cell, row=gone.row, row_span=cell.row_span + gone.row_span)
            if grown is not None:
                cells = [grown if i == index else c for i, c in enumerate(grid.cells)]
                del cells[position]
                return replace(grid, cells=tuple(cells))
    return None


def _with_payload(target: Leaf, source: Leaf) -> Leaf:
    """`target`'s id with `source`'s content (session, agent, resume data, unknown keys)."""
    return replace(source, id=target.id)


def swap(tree: LayoutTree, a: str, b: str) -> LayoutTree:
    """Exchange the contents of two cells; the cells (ids, places, sizes) stay put.

    Raises:
        NodeNotFound: `a` or `b` is not a cell of the tree.
    """
    leaf_a, leaf_b = find_leaf(tree, a), find_leaf(tree, b)
    if a == b:
        return tree
    tree = replace_leaf(tree, a, _with_payload(leaf_a, leaf_b))
    return replace_leaf(tree, b, _with_payload(leaf_b, leaf_a))


def move(
    tree: LayoutTree,
    src: str,
    dst: str,
    direction: Direction,
    new_id: NewId,
    before: bool = False,
) -> LayoutTree:
    """Move a cell beside another one (tmux `join-pane`).

    `src` is closed where it is (as `close` does) and reappears in a new cell made by
    splitting `dst` in `direction` (before it when `before`). The moved cell keeps its id,
    like a tmux pane keeps its `%N`, so focus and references follow it.

    Raises:
        NodeNotFound: `src` or `dst` is not a cell of the tree.
        SameCell: `src` and `dst` are the same cell.
    """
    if src == dst:
        raise SameCell("move")
    moving = find_leaf(tree, src)
    find_leaf(tree, dst)
    tree = close(tree, src, new_id)
    tree, (landing,) = split(tree, dst, direction, new_id, 1, before)
    return replace_leaf(tree, landing, moving)


def equalize(tree: LayoutTree, container_id: str | None = None) -> LayoutTree:
    """Reset weights to 1.0: of every container, or of one container only (not nested ones).

    Raises:
        NodeNotFound: `container_id` names no split or grid.
    """
    if container_id is None:
        return map_containers(tree, _equal)
    node = find_node(tree, container_id)
    if isinstance(node, Leaf):
        raise NodeNotFound(f"container {container_id}")
    return map_containers(tree, lambda c: _equal(c) if c.id == container_id else c)


def _equal(container: Container) -> Container:
    if isinstance(container, Split):
        return replace(
            container, children=tuple(WeightedChild(c.node, 1.0) for c in container.children)
        )
    return replace(
        container,
        col_weights=(1.0,) * len(container.col_weights),
        row_weights=(1.0,) * len(container.row_weights),
    )


@overload
def reconcile_duplicate_agents(target: LayoutTree) -> LayoutTree: ...
@overload
def reconcile_duplicate_agents(target: LayoutSet) -> LayoutSet: ...
def reconcile_duplicate_agents(target: LayoutTree | LayoutSet) -> LayoutTree | LayoutSet:
    """Keep one host per agent (LAY-7): only that cell resumes the agent at open.

    When an agent is placed on several cells, the first in reading order (for a layout set:
    layouts in order, then reading order) is its host; on the others `agent_was_running`
    and `conversation_id` are cleared, the agent binding itself stays. Idempotent, and a
    layout without duplicates comes back unchanged.
    """
    hosts: set[str] = set()

    def demote(leaf: Leaf) -> Leaf:
        if leaf.agent is None:
            return leaf
        if leaf.agent not in hosts:
            hosts.add(leaf.agent)
            return leaf
        if leaf.agent_was_running or leaf.conversation_id is not None:
            return replace(leaf, agent_was_running=False, conversation_id=None)
        return leaf

    if isinstance(target, LayoutTree):
        return map_leaves(target, demote)
    layouts = tuple(
        replace(layout, tree=map_leaves(layout.tree, demote)) for layout in target.layouts
    )
    return replace(target, layouts=layouts)
