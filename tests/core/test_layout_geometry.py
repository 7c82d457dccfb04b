"""Screen geometry: sizes from weights, borders, zoom, focus moves and mouse hit tests."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.layout.geometry import (
    Border,
    Orientation,
    Rect,
    Side,
    border_at,
    compute,
    leaf_at,
    neighbour,
)
from core.layout.model import LayoutTree, Leaf
from core.layout.sizes import MinimumSizes, distribute
from tests.core.layout_strategies import assert_tiles, col, grid, row

A, B, C, D = (Leaf(x) for x in "abcd")
V, H = Orientation.VERTICAL, Orientation.HORIZONTAL


# ─── distribute ──────────────────────────────────────────────────────────────────────────


def test_distribute_uses_largest_remainders() -> None:
    assert distribute(10, [1, 1, 1]) == [4, 3, 3]
    assert distribute(7, [1, 1]) == [4, 3]
    assert distribute(10, [1, 2, 2]) == [2, 4, 4]
    assert distribute(11, [1.25, 1, 1]) == [4, 4, 3]


def test_distribute_pins_pieces_at_their_minimum() -> None:
    assert distribute(10, [8, 1, 1], [1, 3, 3]) == [4, 3, 3]
    assert distribute(20, [100, 0.01], [1, 5]) == [15, 5]


def test_distribute_degrades_on_too_little_room() -> None:
    assert distribute(3, [1, 1, 1], [3, 3, 3]) == [1, 1, 1]
    assert distribute(2, [1, 1, 1], [3, 3, 3]) == [1, 1, 0]
    assert distribute(0, [1, 1]) == [0, 0]
    assert distribute(-5, [1, 1]) == [0, 0]
    assert distribute(4, []) == []


def test_distribute_ignores_unusable_weights() -> None:
    assert distribute(6, [0.0, -1.0, float("nan")]) == [2, 2, 2]
    assert distribute(6, [0.0, 1.0]) == [0, 6]


@settings(deadline=None)
@given(
    st.integers(-3, 400),
    st.lists(
        st.tuples(st.floats(0.01, 100, allow_nan=False), st.integers(0, 6)), min_size=1, max_size=8
    ),
)
def test_distribute_always_sums_to_the_total(total: int, pieces: list[tuple[float, int]]) -> None:
    weights = [w for w, _ in pieces]
    minimums = [m for _, m in pieces]
    sizes = distribute(total, weights, minimums)
    assert sum(sizes) == max(0, total)
    assert all(size >= 0 for size in sizes)
    if total >= sum(minimums):
        assert all(size >= m for size, m in zip(sizes, minimums, strict=True))
        exact = [total * w / sum(weights) for w in weights]
        unpinned = [i for i, size in enumerate(sizes) if size > minimums[i]]
        for i in unpinned:
            # A piece above its minimum is within one cell of its share of what the
            # pinned pieces left, which is at most its plain share.
            assert sizes[i] <= exact[i] + 1


# ─── compute ─────────────────────────────────────────────────────────────────────────────


def test_a_single_cell_takes_the_whole_area() -> None:
    geometry = compute(LayoutTree(A), 80, 24)
    assert geometry.cells == {"a": Rect(0, 0, 80, 24)}
    assert geometry.borders == []
    assert geometry.cells["a"].content == Rect(0, 1, 80, 23)


def test_a_row_split_puts_a_separator_column_between_cells() -> None:
    geometry = compute(LayoutTree(row("r", A, B)), 81, 24)
    assert geometry.cells == {"a": Rect(0, 0, 40, 24), "b": Rect(41, 0, 40, 24)}
    assert geometry.borders == [Border(V, 40, 0, 24, "r", 0)]


def test_a_column_split_stacks_cells_and_the_title_row_is_the_border() -> None:
    geometry = compute(LayoutTree(col("k", A, B)), 80, 24)
    assert geometry.cells == {"a": Rect(0, 0, 80, 12), "b": Rect(0, 12, 80, 12)}
    assert geometry.borders == [Border(H, 0, 12, 80, "k", 0)]


def test_weights_share_the_room_left_by_separators() -> None:
    geometry = compute(LayoutTree(row("r", A, B, weights=(1.0, 2.0))), 31, 5)
    assert (geometry.cells["a"].width, geometry.cells["b"].width) == (10, 20)


def test_a_subtree_is_never_squeezed_below_its_minimum() -> None:
    tree = LayoutTree(
        row(
            "r",
            A,
            grid("g", 1, 3, (B, 0, 0, 1, 1), (C, 0, 1, 1, 1), (D, 0, 2, 1, 1)),
            weights=(100.0, 0.01),
        )
    )
    geometry = compute(tree, 20, 10)
    assert geometry.cells["a"].width == 14
    assert [geometry.cells[x].width for x in "bcd"] == [1, 1, 1]
    assert MinimumSizes().of(tree.root) == (7, 2)
    stacked = LayoutTree(col("k", A, row("q", B, C), weights=(100.0, 0.01)))
    assert compute(stacked, 20, 10).cells["b"].height == 2


def test_grid_spans_and_partial_borders() -> None:
    tree = LayoutTree(grid("g", 2, 2, (A, 0, 0, 2, 1), (B, 0, 1, 1, 1), (C, 1, 1, 1, 1)))
    geometry = compute(tree, 21, 10)
    assert geometry.cells == {
        "a": Rect(0, 0, 10, 10),
        "b": Rect(11, 0, 10, 5),
        "c": Rect(11, 5, 10, 5),
    }
    assert sorted(geometry.borders, key=lambda b: b.orientation) == [
        Border(H, 11, 5, 10, "g", 0),
        Border(V, 10, 0, 10, "g", 0),
    ]


def test_a_cell_spanning_columns_covers_the_separator() -> None:
    tree = LayoutTree(grid("g", 2, 2, (A, 0, 0, 1, 2), (B, 1, 0, 1, 1), (C, 1, 1, 1, 1)))
    geometry = compute(tree, 21, 10)
    assert geometry.cells["a"] == Rect(0, 0, 21, 5)
    assert Border(V, 10, 5, 5, "g", 0) in geometry.borders
    assert Border(H, 0, 5, 21, "g", 0) in geometry.borders
    assert_tiles(geometry, 21, 10)


def test_cells_come_in_reading_order() -> None:
    tree = LayoutTree(grid("g", 1, 3, (C, 0, 2, 1, 1), (A, 0, 0, 1, 1), (B, 0, 1, 1, 1)))
    assert list(compute(tree, 30, 5).cells) == ["a", "b", "c"]


def test_zoom_shows_one_cell_over_everything() -> None:
    tree = LayoutTree(row("r", A, col("k", B, C)))
    zoomed = compute(tree, 80, 24, zoom="b")
    assert zoomed.cells == {"b": Rect(0, 0, 80, 24)}
    assert zoomed.borders == [] and zoomed.zoomed == "b"
    assert compute(tree, 80, 24, zoom="gone").cells.keys() == {"a", "b", "c"}


def test_tiny_windows_degrade_without_errors() -> None:
    tree = LayoutTree(row("r", A, B, C))
    squeezed = compute(tree, 4, 1)
    assert [squeezed.cells[x].width for x in "abc"] == [2, 1, 1]
    assert squeezed.borders == []
    assert_tiles(squeezed, 4, 1)
    for width, height in [(0, 0), (-3, -3), (1, 0), (5, 1)]:
        geometry = compute(tree, width, height)
        assert all(r.width >= 0 and r.height >= 0 for r in geometry.cells.values())
        assert_tiles(geometry, max(0, width), max(0, height))


# ─── focus moves and hit tests ───────────────────────────────────────────────────────────

THREE = LayoutTree(row("r", A, col("k", B, C)))  # a | b / c


def test_neighbour_follows_the_hint_along_the_edge() -> None:
    geometry = compute(THREE, 81, 24)
    assert neighbour(geometry, "a", Side.RIGHT) == "c"  # a's centre row 12 faces c
    assert neighbour(geometry, "a", Side.RIGHT, cursor_hint=(5, 3)) == "b"
    assert neighbour(geometry, "b", Side.LEFT) == "a"
    assert neighbour(geometry, "b", Side.DOWN) == "c"
    assert neighbour(geometry, "c", Side.UP) == "b"


def test_neighbour_stops_at_the_edge() -> None:
    geometry = compute(THREE, 81, 24)
    assert neighbour(geometry, "a", Side.LEFT) is None
    assert neighbour(geometry, "b", Side.UP) is None
    assert neighbour(geometry, "zz", Side.UP) is None


def test_neighbour_prefers_the_nearest_cell() -> None:
    geometry = compute(LayoutTree(row("r", A, B, C)), 32, 5)
    assert neighbour(geometry, "a", Side.RIGHT) == "b"
    assert neighbour(geometry, "c", Side.LEFT) == "b"


def test_leaf_at_and_border_at() -> None:
    geometry = compute(THREE, 81, 24)
    assert leaf_at(geometry, 0, 0) == "a"
    assert leaf_at(geometry, 41, 12) == "c"
    assert leaf_at(geometry, 40, 5) is None
    assert leaf_at(geometry, 200, 5) is None
    assert border_at(geometry, 40, 5) == Border(V, 40, 0, 24, "r", 0)
    assert border_at(geometry, 50, 12) == Border(H, 41, 12, 40, "k", 0)
    assert border_at(geometry, 10, 10) is None
