"""Builders and hypothesis strategies for layout trees, shared by the layout and store tests."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from core.layout.geometry import Geometry, Orientation
from core.layout.model import (
    Direction,
    Grid,
    GridCell,
    LayoutTree,
    Leaf,
    Node,
    Split,
    WeightedChild,
)


def ids(prefix: str = "n") -> Callable[[], str]:
    """A deterministic `new_id`: n0, n1, n2..."""
    counter = itertools.count()
    return lambda: f"{prefix}{next(counter)}"


def row(node_id: str, *children: Node, weights: tuple[float, ...] | None = None) -> Split:
    """A ROW split (children side by side)."""
    return _split(node_id, Direction.ROW, children, weights)


def col(node_id: str, *children: Node, weights: tuple[float, ...] | None = None) -> Split:
    """A COLUMN split (children stacked)."""
    return _split(node_id, Direction.COLUMN, children, weights)


def _split(
    node_id: str,
    direction: Direction,
    children: tuple[Node, ...],
    weights: tuple[float, ...] | None,
) -> Split:
    weights = weights or (1.0,) * len(children)
    return Split(
        node_id,
        direction,
        tuple(WeightedChild(c, w) for c, w in zip(children, weights, strict=True)),
    )


def grid(
    node_id: str,
    rows: int,
    cols: int,
    *cells: tuple[Node, int, int, int, int],
) -> Grid:
    """A grid with equal weights; each cell is (node, row, col, row_span, col_span)."""
    return Grid(
        node_id,
        (1.0,) * cols,
        (1.0,) * rows,
        tuple(GridCell(n, r, c, rs, cs) for n, r, c, rs, cs in cells),
    )


def leaf_ids(tree: LayoutTree) -> list[str]:
    """Leaf ids in reading order."""
    from core.layout.model import iter_leaves

    return [leaf.id for leaf in iter_leaves(tree.root)]


def assert_tiles(geometry: Geometry, width: int, height: int) -> None:
    """Cells and vertical borders cover every character exactly once, nothing negative."""
    cover = [[0] * width for _ in range(height)]
    for rect in geometry.cells.values():
        assert rect.width >= 0 and rect.height >= 0, rect
        for y in range(rect.y, rect.bottom):
            for x in range(rect.x, rect.right):
                cover[y][x] += 1
    for border in geometry.borders:
        assert border.length > 0, border
        if border.orientation == Orientation.VERTICAL:
            for y in range(border.y, border.y + border.length):
                cover[y][border.x] += 1
    for y, line in enumerate(cover):
        for x, count in enumerate(line):
            assert count == 1, f"({x}, {y}) covered {count} times"


def assert_titles_are_borders(geometry: Geometry) -> None:
    """Every character of a horizontal border is a title row of a cell, or a separator."""
    for border in geometry.borders:
        if border.orientation != Orientation.HORIZONTAL:
            continue
        for x in range(border.x, border.x + border.length):
            on_title = any(r.y == border.y and r.x <= x < r.right for r in geometry.cells.values())
            on_separator = any(
                b.orientation == Orientation.VERTICAL and b.contains(x, border.y)
                for b in geometry.borders
            )
            assert on_title or on_separator, (border, x)


# ─── Random trees ────────────────────────────────────────────────────────────────────────

weights = st.floats(min_value=0.05, max_value=20.0, allow_nan=False, allow_infinity=False)

_leaf_shape = st.tuples(
    st.just("leaf"),
    st.booleans(),  # has a session
    st.none() | st.integers(0, 3),  # agent number
    st.booleans(),  # agent was running
    st.none() | st.sampled_from(["c1", "c2"]),  # conversation id
)


def _split_shape(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.tuples(
        st.just("split"),
        st.sampled_from(list(Direction)),
        st.lists(st.tuples(children, weights), min_size=1, max_size=4),
    )


def _grid_shape(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    merge = st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2), st.integers(0, 2))
    return st.tuples(
        st.just("grid"),
        st.integers(1, 3),
        st.integers(1, 3),
        st.lists(merge, max_size=3),
        st.lists(children, min_size=9, max_size=9),
        st.lists(weights, min_size=3, max_size=3),
        st.lists(weights, min_size=3, max_size=3),
    )


shapes = st.recursive(
    _leaf_shape,
    lambda children: st.one_of(_split_shape(children), _grid_shape(children)),
    max_leaves=10,
)


def partition(rows: int, cols: int, merges: list[tuple[int, int, int, int]]) -> list[list[int]]:
    """Rectangles [row, col, row_span, col_span] covering a grid, after spreadsheet merges."""
    rects = [[r, c, 1, 1] for r in range(rows) for c in range(cols)]
    for r0, c0, r1, c1 in merges:
        top, bottom = min(r0, r1), min(max(r0, r1), rows - 1) + 1
        left, right = min(c0, c1), min(max(c0, c1), cols - 1) + 1
        if top >= rows or left >= cols:
            continue
        inside, outside = [], []
        for rect in rects:
            r, c, rs, cs = rect
            if r + rs <= top or r >= bottom or c + cs <= left or c >= right:
                outside.append(rect)
            elif top <= r and r + rs <= bottom and left <= c and c + cs <= right:
                inside.append(rect)
            else:
                break
        else:
            rects = [*outside, [top, left, bottom - top, right - left]]
    return rects


def build(shape: Any, new_id: Callable[[], str] | None = None) -> Node:
    """Turn a drawn shape into a valid tree with unique ids and sessions."""
    new_id = new_id or ids()
    sessions = itertools.count()
    return _build(shape, new_id, sessions)


def _build(shape: Any, new_id: Callable[[], str], sessions: itertools.count[int]) -> Node:
    kind = shape[0]
    if kind == "leaf":
        _, has_session, agent, running, conversation = shape
        return Leaf(
            new_id(),
            session=f"s{next(sessions)}" if has_session else None,
            agent=None if agent is None else f"agent{agent}",
            agent_was_running=running and agent is not None,
            conversation_id=conversation if agent is not None else None,
        )
    if kind == "split":
        _, direction, children = shape
        node_id = new_id()
        return Split(
            node_id,
            direction,
            tuple(WeightedChild(_build(c, new_id, sessions), w) for c, w in children),
        )
    _, rows, cols, merges, children, col_w, row_w = shape
    node_id = new_id()
    rects = sorted(partition(rows, cols, merges))
    cells = tuple(
        GridCell(_build(children[i], new_id, sessions), r, c, rs, cs)
        for i, (r, c, rs, cs) in enumerate(rects)
    )
    return Grid(node_id, tuple(col_w[:cols]), tuple(row_w[:rows]), cells)


trees = shapes.map(lambda shape: LayoutTree(build(shape)))
