"""The invariants of a layout tree (FEATURES.md LAY-2), checked in one pass.

Operations in `core.layout.ops` keep these invariants by construction; `validate` is for
trees that come from outside (a file, a client) and for tests.
"""

from __future__ import annotations

import math

from core.errors import (
    DuplicateNodeId,
    DuplicateSession,
    EmptyContainer,
    GridNotCovered,
    NonPositiveWeight,
    OverlappingSpans,
    SpanOutOfGrid,
)
from core.layout.model import Grid, LayoutTree, Leaf, Split, iter_nodes


def validate(tree: LayoutTree) -> None:
    """Check every invariant of a layout tree.

    - every weight (split child, grid column, grid row) is a positive finite number;
    - a split has at least one child; a grid has at least one row and one column;
    - grid cells have spans ≥ 1, lie inside the grid, do not overlap and cover it entirely;
    - node ids are unique, and a session id appears in at most one cell.

    Raises:
        LayoutError: The first broken invariant found (a subclass names which one).
    """
    node_ids: set[str] = set()
    sessions: set[str] = set()
    for node in iter_nodes(tree.root):
        if node.id in node_ids:
            raise DuplicateNodeId(node.id)
        node_ids.add(node.id)
        if isinstance(node, Leaf):
            if node.session is not None:
                if node.session in sessions:
                    raise DuplicateSession(node.session)
                sessions.add(node.session)
        elif isinstance(node, Split):
            if not node.children:
                raise EmptyContainer(node.id)
            _check_weights(node.id, [child.weight for child in node.children])
        else:
            _check_grid(node)


def _check_weights(container_id: str, weights: list[float]) -> None:
    for weight in weights:
        # `not weight > 0` also catches NaN, which compares false with everything.
        if not weight > 0 or math.isinf(weight):
            raise NonPositiveWeight(container_id, weight)


def _check_grid(grid: Grid) -> None:
    rows, cols = len(grid.row_weights), len(grid.col_weights)
    if rows == 0 or cols == 0:
        raise EmptyContainer(grid.id)
    _check_weights(grid.id, [*grid.col_weights, *grid.row_weights])
    covered = [[False] * cols for _ in range(rows)]
    for cell in grid.cells:
        if cell.row_span < 1 or cell.col_span < 1:
            raise SpanOutOfGrid(
                grid.id, f"spans must be at least 1 (got {cell.row_span}x{cell.col_span})"
            )
        if cell.row < 0 or cell.col < 0:
            raise SpanOutOfGrid(grid.id, f"negative position ({cell.row}, {cell.col})")
        if cell.row + cell.row_span > rows or cell.col + cell.col_span > cols:
            raise SpanOutOfGrid(
                grid.id,
                f"the cell at ({cell.row}, {cell.col}) spanning {cell.row_span}x"
                f"{cell.col_span} exceeds {rows}x{cols}",
            )
        for row in range(cell.row, cell.row + cell.row_span):
            for col in range(cell.col, cell.col + cell.col_span):
                if covered[row][col]:
                    raise OverlappingSpans(grid.id, row, col)
                covered[row][col] = True
    for row in range(rows):
        for col in range(cols):
            if not covered[row][col]:
                raise GridNotCovered(grid.id, row, col)
