"""Integer sizes from weights, and the smallest size a subtree can be drawn at.

`distribute` is the one rounding rule of the layout: the daemon sizes PTYs and the client
draws cells from the same numbers (through `core.layout.geometry`), so a cell is never one
column off between the two.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from core.layout.model import Direction, Grid, GridCell, Leaf, Node, Split

MIN_LEAF_WIDTH = 1
"""A cell needs one column to exist on screen."""

MIN_LEAF_HEIGHT = 2
"""A cell's title row plus one terminal row: a PTY must have at least one row."""


def distribute(total: int, weights: Sequence[float], minimums: Sequence[int] = ()) -> list[int]:
    """Split `total` character cells between pieces in proportion to `weights`.

    Largest-remainder rounding: each piece gets the floor of its exact share, and the cells
    left over go to the pieces with the largest fractional parts (the earlier piece on a
    tie). The result always sums to `total` (0 when `total` ≤ 0).

    When `total` covers the `minimums`, no piece gets less than its minimum: a piece whose
    share falls short is pinned at its minimum and the others share the rest. When it does
    not, minimums give way to "one cell each if possible, else zero allowed": a degraded,
    never negative result.

    Weights that are not positive finite numbers count as 0; if none is usable, the pieces
    share equally.

    Args:
        total: The number of cells to share.
        weights: One weight per piece.
        minimums: One minimum per piece (missing ones count as 0).

    Returns:
        One size per piece.

    >>> distribute(10, [1, 1, 1])
    [4, 3, 3]
    >>> distribute(10, [8, 1, 1], [1, 3, 3])
    [4, 3, 3]
    """
    count = len(weights)
    if count == 0:
        return []
    if total <= 0:
        return [0] * count
    usable = [w if w > 0 and math.isfinite(w) else 0.0 for w in weights]
    if sum(usable) <= 0:
        usable = [1.0] * count
    floors = [minimums[i] if i < len(minimums) else 0 for i in range(count)]
    if total < sum(floors):
        floors = [1 if total >= count else 0] * count
    sizes = [0] * count
    free = list(range(count))
    rest = total
    # Water-filling: pin every piece whose share is below its minimum, then recompute the
    # shares of the others; at most `count` rounds since each round pins at least one piece.
    while True:
        weight_sum = sum(usable[i] for i in free)
        shares = {
            i: (rest * usable[i] / weight_sum if weight_sum > 0 else rest / len(free)) for i in free
        }
        short = [i for i in free if shares[i] < floors[i]]
        if not short:
            break
        for i in short:
            sizes[i] = floors[i]
            rest -= floors[i]
        free = [i for i in free if i not in short]
        if not free:
            return _spill(sizes, rest)
    for i in free:
        sizes[i] = math.floor(shares[i])
    left = rest - sum(sizes[i] for i in free)
    by_remainder = sorted(free, key=lambda i: (-(shares[i] - sizes[i]), i))
    for i in by_remainder[: max(0, left)]:
        sizes[i] += 1
    return sizes


def _spill(sizes: list[int], rest: int) -> list[int]:
    """Give cells left over once every piece is pinned (only when floors < shares overall)."""
    if rest > 0 and sizes:
        sizes[-1] += rest
    return sizes


class MinimumSizes:
    """Smallest (width, height) at which each subtree can show every cell, memoised.

    A split of three cells side by side needs five columns (three cells, two separators), so
    a weight alone must not starve it. Nodes are keyed by identity: the cache lives for one
    geometry computation over one immutable tree.
    """

    def __init__(self) -> None:
        self._cache: dict[int, tuple[int, int]] = {}
        self._tracks: dict[tuple[int, bool], list[int]] = {}

    def of(self, node: Node) -> tuple[int, int]:
        """The minimum (width, height) of `node`."""
        key = id(node)
        cached = self._cache.get(key)
        if cached is None:
            cached = self._compute(node)
            self._cache[key] = cached
        return cached

    def _compute(self, node: Node) -> tuple[int, int]:
        if isinstance(node, Leaf):
            return MIN_LEAF_WIDTH, MIN_LEAF_HEIGHT
        if isinstance(node, Split):
            sizes = [self.of(child.node) for child in node.children]
            if not sizes:
                return 0, 0
            if node.direction == Direction.ROW:
                return sum(w for w, _ in sizes) + len(sizes) - 1, max(h for _, h in sizes)
            return max(w for w, _ in sizes), sum(h for _, h in sizes)
        columns = self.grid_tracks(node, columns=True)
        rows = self.grid_tracks(node, columns=False)
        return sum(columns) + max(0, len(columns) - 1), sum(rows)

    def grid_tracks(self, grid: Grid, *, columns: bool) -> list[int]:
        """Minimum size of each column (or row) of a grid.

        Every track starts at 1; then, narrowest spans first, a cell that does not fit in
        the tracks it spans (plus the separators between them, for columns) enlarges the
        last of them. Not the smallest possible total, but it always fits every cell.
        """
        key = (id(grid), columns)
        cached = self._tracks.get(key)
        if cached is not None:
            return cached
        count = len(grid.col_weights if columns else grid.row_weights)
        gap = 1 if columns else 0
        tracks = [1] * count

        def span_of(cell: GridCell) -> tuple[int, int]:
            return (cell.col, cell.col_span) if columns else (cell.row, cell.row_span)

        for cell in sorted(grid.cells, key=lambda c: span_of(c)[1]):
            start, span = span_of(cell)
            start = max(0, start)
            end = min(count, start + span)
            if end <= start:
                continue
            need = self.of(cell.node)[0 if columns else 1]
            have = sum(tracks[start:end]) + gap * (end - start - 1)
            if have < need:
                tracks[end - 1] += need - have
        self._tracks[key] = tracks
        return tracks
