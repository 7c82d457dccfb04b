"""Keyboard resizes and mouse drags move a border by exactly the cells asked, clamped."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import CannotResize, NodeNotFound
from core.layout.geometry import Orientation, Side, compute
from core.layout.invariants import validate
from core.layout.model import LayoutTree, Leaf, Split
from core.layout.resize import border_on_side, resize, set_border
from core.layout.sizes import MinimumSizes
from tests.core.layout_strategies import col, grid, leaf_ids, row, trees

A, B, C, D = (Leaf(x) for x in "abcd")


def widths(tree: LayoutTree, width: int = 81, height: int = 24) -> list[int]:
    cells = compute(tree, width, height).cells
    return [cells[x].width for x in leaf_ids(tree)]


def heights(tree: LayoutTree, width: int = 81, height: int = 24) -> list[int]:
    cells = compute(tree, width, height).cells
    return [cells[x].height for x in leaf_ids(tree)]


def test_growing_right_moves_the_border_right() -> None:
    tree = LayoutTree(row("r", A, B))
    assert widths(resize(tree, "a", Side.RIGHT, 5, 81, 24)) == [45, 35]
    assert widths(resize(tree, "b", Side.LEFT, 5, 81, 24)) == [35, 45]
    assert widths(resize(tree, "a", Side.RIGHT, -5, 81, 24)) == [35, 45]


def test_resize_is_clamped_to_the_minimum_size() -> None:
    tree = LayoutTree(row("r", A, B))
    assert widths(resize(tree, "a", Side.RIGHT, 1000, 81, 24)) == [79, 1]
    assert widths(resize(tree, "a", Side.RIGHT, -1000, 81, 24)) == [1, 79]
    stacked = LayoutTree(col("k", A, B))
    assert heights(resize(stacked, "a", Side.DOWN, 1000, 81, 24)) == [22, 2]


def test_the_nearest_container_with_a_border_on_that_side_moves() -> None:
    tree = LayoutTree(row("r", A, col("k", B, C)))
    assert widths(resize(tree, "b", Side.LEFT, 3, 81, 24)) == [37, 43, 43]
    assert heights(resize(tree, "b", Side.DOWN, 2, 81, 24)) == [24, 14, 10]
    assert heights(resize(tree, "c", Side.UP, 2, 81, 24)) == [24, 10, 14]


def test_a_cell_at_the_page_edge_cannot_resize_there() -> None:
    tree = LayoutTree(row("r", A, col("k", B, C)))
    for leaf_id, side in [("a", Side.LEFT), ("a", Side.UP), ("b", Side.UP), ("c", Side.RIGHT)]:
        with pytest.raises(CannotResize):
            resize(tree, leaf_id, side, 1, 81, 24)
    with pytest.raises(CannotResize):
        resize(LayoutTree(A), "a", Side.RIGHT, 1, 81, 24)
    with pytest.raises(NodeNotFound):
        resize(tree, "zz", Side.RIGHT, 1, 81, 24)


def test_only_the_two_weights_around_the_border_change() -> None:
    tree = LayoutTree(row("r", A, B, C, D, weights=(1.0, 2.0, 3.0, 1.5)))
    before = widths(tree)
    resized = resize(tree, "b", Side.RIGHT, 2, 81, 24)
    assert isinstance(resized.root, Split)
    new_weights = [child.weight for child in resized.root.children]
    assert new_weights[0] == 1.0 and new_weights[3] == 1.5
    assert sum(new_weights) == pytest.approx(7.5)
    assert widths(resized) == [before[0], before[1] + 2, before[2] - 2, before[3]]


def test_grid_columns_resize_for_every_cell_in_them() -> None:
    tree = LayoutTree(
        grid("g", 2, 2, (A, 0, 0, 1, 1), (B, 0, 1, 1, 1), (C, 1, 0, 1, 1), (D, 1, 1, 1, 1))
    )
    assert widths(resize(tree, "a", Side.RIGHT, 3, 81, 24)) == [43, 37, 43, 37]
    assert heights(resize(tree, "d", Side.UP, 4, 81, 24)) == [8, 8, 16, 16]


def test_set_border_puts_a_border_at_an_absolute_position() -> None:
    tree = LayoutTree(row("r", A, B))
    assert widths(set_border(tree, "r", 0, 10, 81, 24)) == [10, 70]
    assert widths(set_border(tree, "r", 0, 0, 81, 24)) == [1, 79]
    stacked = LayoutTree(col("k", A, B))
    assert heights(set_border(stacked, "k", 0, 20, 81, 24)) == [20, 4]


def test_set_border_in_a_grid_needs_the_orientation() -> None:
    tree = LayoutTree(
        grid("g", 2, 2, (A, 0, 0, 1, 1), (B, 0, 1, 1, 1), (C, 1, 0, 1, 1), (D, 1, 1, 1, 1))
    )
    moved = set_border(tree, "g", 0, 6, 81, 24, Orientation.HORIZONTAL)
    assert heights(moved) == [6, 6, 18, 18]
    with pytest.raises(NodeNotFound):
        set_border(tree, "g", 0, 6, 81, 24)
    with pytest.raises(NodeNotFound):
        set_border(tree, "g", 1, 6, 81, 24, Orientation.VERTICAL)
    with pytest.raises(NodeNotFound):
        set_border(tree, "a", 0, 6, 81, 24)
    with pytest.raises(NodeNotFound):
        set_border(LayoutTree(row("r", A, B)), "r", 0, 6, 81, 24, Orientation.HORIZONTAL)


def test_nothing_moves_on_a_window_too_small_for_every_cell() -> None:
    tree = LayoutTree(row("r", A, B, C))
    assert resize(tree, "a", Side.RIGHT, 1, 4, 24) == tree


@settings(deadline=None, max_examples=300)
@given(trees, st.data())
def test_resize_moves_the_border_exactly_and_nothing_else(
    tree: LayoutTree, data: st.DataObject
) -> None:
    min_w, min_h = MinimumSizes().of(tree.root)
    width = data.draw(st.integers(min_w, min_w + 80))
    height = data.draw(st.integers(min_h, min_h + 40))
    leaf_id = data.draw(st.sampled_from(leaf_ids(tree)))
    side = data.draw(st.sampled_from(list(Side)))
    cells = data.draw(st.integers(-30, 30))
    try:
        container, orientation, index = border_on_side(tree, leaf_id, side)
    except CannotResize:
        with pytest.raises(CannotResize):
            resize(tree, leaf_id, side, cells, width, height)
        return
    before = compute(tree, width, height)
    tracks = before.tracks[(container.id, orientation)]
    delta = cells if side in (Side.RIGHT, Side.DOWN) else -cells
    low = tracks.minimums[index] - tracks.sizes[index]
    high = tracks.sizes[index + 1] - tracks.minimums[index + 1]
    expected = tracks.border_position(index) + max(low, min(high, delta))
    resized = resize(tree, leaf_id, side, cells, width, height)
    validate(resized)
    after = compute(resized, width, height)
    moved = after.tracks[(container.id, orientation)]
    assert moved.border_position(index) == expected
    unchanged = [i for i in range(len(tracks.sizes)) if i not in (index, index + 1)]
    assert [moved.sizes[i] for i in unchanged] == [tracks.sizes[i] for i in unchanged]
    for key, other in before.tracks.items():
        if key[0] != container.id and not _inside(resized, container.id, key[0]):
            assert after.tracks[key] == other
    assert leaf_ids(resized) == leaf_ids(tree)


def _inside(tree: LayoutTree, outer: str, inner: str) -> bool:
    from core.layout.model import iter_nodes
    from core.layout.tree import find_node

    return any(node.id == inner for node in iter_nodes(find_node(tree, outer)))
