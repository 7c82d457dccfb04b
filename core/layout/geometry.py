"""Where every cell and border of a layout lies on screen: the ONE place sizes are computed.

The daemon sizes each PTY from `compute` and the client draws from the same result, so they
always agree. Pure, no I/O, and it never raises on a small window: cells shrink to zero
instead (never negative).

Visual convention (tmux with `pane-border-status top`):

- a cell's `Rect` includes a one-row title line at its top; the terminal inside is
  `width x (height - 1)` (see `Rect.content`);
- the children of a ROW split, and the columns of a grid, are separated by a one-column
  vertical border;
- the children of a COLUMN split, and the rows of a grid, are stacked with no extra row: the
  title line of the lower cell is the separator. Dragging it moves that border, so it is
  listed as a horizontal `Border` although it also belongs to the cell below.

So the cells and the vertical borders tile the area exactly; horizontal borders lie on title
rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from core.layout.model import Direction, Grid, LayoutTree, Leaf, Node, Split, iter_leaves
from core.layout.sizes import MinimumSizes, distribute


class Side(StrEnum):
    """A side of a cell, for focus moves and resizes (tmux -L/-R/-U/-D)."""

    LEFT = "left"
    RIGHT = "right"
    UP = "up"
    DOWN = "down"


class Orientation(StrEnum):
    """The way a border line runs."""

    VERTICAL = "vertical"
    """A separator column between side-by-side cells (a ROW split, grid columns)."""
    HORIZONTAL = "horizontal"
    """The title row of a lower cell (a COLUMN split, grid rows)."""


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle of character cells; `x`, `y` are 0-based from the top-left corner."""

    x: int
    y: int
    width: int
    height: int

    @property
    def right(self) -> int:
        """The first column after the rectangle."""
        return self.x + self.width

    @property
    def bottom(self) -> int:
        """The first row after the rectangle."""
        return self.y + self.height

    @property
    def content(self) -> Rect:
        """The terminal area of a cell: the rectangle without its title row."""
        return Rect(self.x, self.y + 1, self.width, max(0, self.height - 1))

    def contains(self, x: int, y: int) -> bool:
        """Whether the character cell at (x, y) lies inside."""
        return self.x <= x < self.right and self.y <= y < self.bottom


@dataclass(frozen=True, slots=True)
class Border:
    """A draggable border segment.

    Attributes:
        orientation: VERTICAL for a separator column, HORIZONTAL for a title row.
        x: Column of its first character.
        y: Row of its first character.
        length: Characters it covers (downwards if vertical, rightwards if horizontal).
        container_id: The split or grid whose weights a drag changes.
        index: The border between track `index` and `index + 1` of that container
            (children of a split, columns or rows of a grid).
    """

    orientation: Orientation
    x: int
    y: int
    length: int
    container_id: str
    index: int

    def contains(self, x: int, y: int) -> bool:
        """Whether the character cell at (x, y) is part of this border."""
        if self.orientation == Orientation.VERTICAL:
            return x == self.x and self.y <= y < self.y + self.length
        return y == self.y and self.x <= x < self.x + self.length


@dataclass(frozen=True, slots=True)
class Tracks:
    """How a container shared its extent along one axis (used to move its borders).

    Attributes:
        container_id: The split or grid.
        orientation: Orientation of the borders between the tracks.
        start: Absolute column (vertical borders) or row (horizontal ones) of track 0.
        sizes: Size of each track, in cells (separators excluded).
        minimums: Size below which a track cannot show all its cells.
        gap: Width of the separator between two tracks (1, or 0 when squeezed).
    """

    container_id: str
    orientation: Orientation
    start: int
    sizes: tuple[int, ...]
    minimums: tuple[int, ...]
    gap: int

    def border_position(self, index: int) -> int:
        """Absolute coordinate of border `index`: its separator column, or the first row of
        track `index + 1` (the title row that serves as a horizontal border)."""
        return self.start + sum(self.sizes[: index + 1]) + self.gap * index

    @property
    def roomy(self) -> bool:
        """Whether every track got at least its minimum (the window is not too small)."""
        return sum(self.sizes) >= sum(self.minimums)


@dataclass(frozen=True)
class Geometry:
    """The result of `compute`.

    Attributes:
        width: Width of the whole area.
        height: Height of the whole area.
        cells: Rectangle of each visible cell, by leaf id (title row included), in reading
            order.
        borders: Every draggable border segment.
        nodes: Rectangle of every node (containers too), by id.
        tracks: How each container shared its space, by (container id, orientation).
        zoomed: The zoomed leaf id, if a zoom applied.
    """

    width: int
    height: int
    cells: dict[str, Rect]
    borders: list[Border]
    nodes: dict[str, Rect] = field(default_factory=dict)
    tracks: dict[tuple[str, Orientation], Tracks] = field(default_factory=dict)
    zoomed: str | None = None


def compute(tree: LayoutTree, width: int, height: int, zoom: str | None = None) -> Geometry:
    """Place every cell and border of `tree` in a `width x height` area.

    Args:
        tree: The layout.
        width: Columns available (negative counts as 0).
        height: Rows available (negative counts as 0).
        zoom: A leaf id to show alone over the whole area (tmux zoom). Ignored when the tree
            has no such leaf, e.g. after the zoomed cell was closed.

    Returns:
        The geometry; never raises for any size.
    """
    width, height = max(0, width), max(0, height)
    whole = Rect(0, 0, width, height)
    if zoom is not None and any(leaf.id == zoom for leaf in iter_leaves(tree.root)):
        return Geometry(width, height, {zoom: whole}, [], {zoom: whole}, {}, zoom)
    builder = _Builder()
    builder.place(tree.root, whole)
    return Geometry(width, height, builder.cells, builder.borders, builder.nodes, builder.tracks)


class _Builder:
    """Accumulates the geometry during one recursive walk of the tree."""

    def __init__(self) -> None:
        self.minimums = MinimumSizes()
        self.cells: dict[str, Rect] = {}
        self.nodes: dict[str, Rect] = {}
        self.borders: list[Border] = []
        self.tracks: dict[tuple[str, Orientation], Tracks] = {}

    def place(self, node: Node, rect: Rect) -> None:
        self.nodes[node.id] = rect
        if isinstance(node, Leaf):
            self.cells[node.id] = rect
        elif isinstance(node, Split):
            self._place_split(node, rect)
        else:
            self._place_grid(node, rect)

    def _place_split(self, split: Split, rect: Rect) -> None:
        count = len(split.children)
        if count == 0:
            return
        row = split.direction == Direction.ROW
        total = rect.width if row else rect.height
        minimums = [self.minimums.of(child.node)[0 if row else 1] for child in split.children]
        # Separators only when every child can also keep a column; on a squeezed window
        # the cells matter more than the lines between them.
        gap = 1 if row and total >= 2 * count - 1 else 0
        sizes = distribute(
            max(0, total - gap * (count - 1)),
            [child.weight for child in split.children],
            minimums,
        )
        orientation = Orientation.VERTICAL if row else Orientation.HORIZONTAL
        start = rect.x if row else rect.y
        self.tracks[(split.id, orientation)] = Tracks(
            split.id, orientation, start, tuple(sizes), tuple(minimums), gap
        )
        position = start
        for index, (child, size) in enumerate(zip(split.children, sizes, strict=True)):
            if row:
                self.place(child.node, Rect(position, rect.y, size, rect.height))
            else:
                self.place(child.node, Rect(rect.x, position, rect.width, size))
            position += size
            if index == count - 1:
                break
            if row:
                if gap and rect.height > 0:
                    self.borders.append(
                        Border(orientation, position, rect.y, rect.height, split.id, index)
                    )
                position += gap
            elif sizes[index + 1] > 0 and rect.width > 0:
                self.borders.append(
                    Border(orientation, rect.x, position, rect.width, split.id, index)
                )

    def _place_grid(self, grid: Grid, rect: Rect) -> None:
        cols, rows = len(grid.col_weights), len(grid.row_weights)
        if cols == 0 or rows == 0:
            return
        col_min = self.minimums.grid_tracks(grid, columns=True)
        row_min = self.minimums.grid_tracks(grid, columns=False)
        gap = 1 if rect.width >= 2 * cols - 1 else 0
        col_sizes = distribute(max(0, rect.width - gap * (cols - 1)), grid.col_weights, col_min)
        row_sizes = distribute(rect.height, grid.row_weights, row_min)
        self.tracks[(grid.id, Orientation.VERTICAL)] = Tracks(
            grid.id, Orientation.VERTICAL, rect.x, tuple(col_sizes), tuple(col_min), gap
        )
        self.tracks[(grid.id, Orientation.HORIZONTAL)] = Tracks(
            grid.id, Orientation.HORIZONTAL, rect.y, tuple(row_sizes), tuple(row_min), 0
        )
        col_x = _starts(rect.x, col_sizes, gap)
        row_y = _starts(rect.y, row_sizes, 0)
        owner: list[list[int | None]] = [[None] * cols for _ in range(rows)]
        # Placed in reading order so that `Geometry.cells` iterates in reading order.
        for position in sorted(
            range(len(grid.cells)), key=lambda i: (grid.cells[i].row, grid.cells[i].col)
        ):
            cell = grid.cells[position]
            c0, c1 = _clamp_span(cell.col, cell.col_span, cols)
            r0, r1 = _clamp_span(cell.row, cell.row_span, rows)
            if c1 <= c0 or r1 <= r0:
                self.place(cell.node, Rect(rect.x, rect.y, 0, 0))
                continue
            x, y = col_x[c0], row_y[r0]
            cell_rect = Rect(
                x, y, col_x[c1 - 1] + col_sizes[c1 - 1] - x, row_y[r1 - 1] + row_sizes[r1 - 1] - y
            )
            self.place(cell.node, cell_rect)
            for r in range(r0, r1):
                for c in range(c0, c1):
                    owner[r][c] = position
        if gap:
            for index in range(cols - 1):
                x = col_x[index] + col_sizes[index]
                for first, last in _runs(
                    r for r in range(rows) if not _crossed(owner[r][index], owner[r][index + 1])
                ):
                    length = row_y[last] + row_sizes[last] - row_y[first]
                    if length > 0:
                        self.borders.append(
                            Border(Orientation.VERTICAL, x, row_y[first], length, grid.id, index)
                        )
        for index in range(rows - 1):
            if row_sizes[index + 1] == 0:
                continue
            y = row_y[index + 1]
            for first, last in _runs(
                c for c in range(cols) if not _crossed(owner[index][c], owner[index + 1][c])
            ):
                length = col_x[last] + col_sizes[last] - col_x[first]
                if length > 0:
                    self.borders.append(
                        Border(Orientation.HORIZONTAL, col_x[first], y, length, grid.id, index)
                    )


def _starts(origin: int, sizes: list[int], gap: int) -> list[int]:
    starts = []
    position = origin
    for size in sizes:
        starts.append(position)
        position += size + gap
    return starts


def _clamp_span(start: int, span: int, count: int) -> tuple[int, int]:
    """The track range [first, end) of a placement, clipped to the grid (for bad input)."""
    first = min(max(0, start), count)
    return first, min(max(first, start + span), count)


def _crossed(before: int | None, after: int | None) -> bool:
    """Whether one cell spans across a boundary (then no border is drawn there)."""
    return before is not None and before == after


def _runs(indices: Iterator[int]) -> Iterator[tuple[int, int]]:
    """Group increasing indices into (first, last) runs of consecutive values."""
    first = last = None
    for index in indices:
        if last is not None and index == last + 1:
            last = index
            continue
        if first is not None and last is not None:
            yield first, last
        first = last = index
    if first is not None and last is not None:
        yield first, last


# ─── Queries for focus moves and the mouse ───────────────────────────────────────────────


def leaf_at(geometry: Geometry, x: int, y: int) -> str | None:
    """The cell under the character cell (x, y), title row included, or None."""
    for leaf_id, rect in geometry.cells.items():
        if rect.contains(x, y):
            return leaf_id
    return None


def border_at(geometry: Geometry, x: int, y: int) -> Border | None:
    """The border under (x, y), or None. Separator columns win over title rows where a
    separator meets the title row of the cell below."""
    for orientation in (Orientation.VERTICAL, Orientation.HORIZONTAL):
        for border in geometry.borders:
            if border.orientation == orientation and border.contains(x, y):
                return border
    return None


def neighbour(
    geometry: Geometry,
    leaf_id: str,
    side: Side,
    cursor_hint: tuple[int, int] | None = None,
) -> str | None:
    """The cell next to `leaf_id` across `side` (tmux `select-pane -L/-R/-U/-D`).

    Among the cells on that side that share a stretch of the edge, the nearest ones win;
    among those, the one that contains the hint coordinate (the cursor, or by default the
    centre of the current cell) along the edge, else the one sharing the longest stretch,
    else the first in reading order.

    Args:
        geometry: From `compute`.
        leaf_id: The current cell.
        side: Which way to go.
        cursor_hint: An absolute (x, y) to aim at, e.g. the cursor position.

    Returns:
        The neighbouring cell's id, or None at the edge of the page (or when unknown).
    """
    current = geometry.cells.get(leaf_id)
    if current is None:
        return None
    horizontal = side in (Side.LEFT, Side.RIGHT)
    if cursor_hint is None:
        cursor_hint = (current.x + current.width // 2, current.y + current.height // 2)
    aim = cursor_hint[1] if horizontal else cursor_hint[0]
    best: tuple[int, int, int] | None = None
    chosen: str | None = None
    for other_id, rect in geometry.cells.items():
        if other_id == leaf_id or rect.width <= 0 or rect.height <= 0:
            continue
        distance = _distance(current, rect, side)
        if distance is None:
            continue
        if horizontal:
            lo, hi = max(current.y, rect.y), min(current.bottom, rect.bottom)
            hit = rect.y <= aim < rect.bottom
        else:
            lo, hi = max(current.x, rect.x), min(current.right, rect.right)
            hit = rect.x <= aim < rect.right
        if hi <= lo:
            continue
        key = (distance, 0 if hit else 1, -(hi - lo))
        if best is None or key < best:
            best, chosen = key, other_id
    return chosen


def _distance(current: Rect, other: Rect, side: Side) -> int | None:
    """How far `other` lies beyond `side` of `current`, or None if it is not on that side."""
    if side == Side.LEFT and other.right <= current.x:
        return current.x - other.right
    if side == Side.RIGHT and other.x >= current.right:
        return other.x - current.right
    if side == Side.UP and other.bottom <= current.y:
        return current.y - other.bottom
    if side == Side.DOWN and other.y >= current.bottom:
        return other.y - current.bottom
    return None
