"""The pure layout operations, one behaviour per test, on small hand-built trees."""

from __future__ import annotations

import pytest

from core.errors import LastCell, NodeNotFound, NotAdjacent, SameCell
from core.layout import ops
from core.layout.model import (
    Direction,
    Grid,
    GridCell,
    Layout,
    LayoutKind,
    LayoutSet,
    LayoutTree,
    Leaf,
    Split,
)
from tests.core.layout_strategies import col, grid, ids, leaf_ids, row

A, B, C, D, E = (Leaf(x, session=f"s-{x}") for x in "abcde")


def weights_of(node: object) -> list[float]:
    assert isinstance(node, Split)
    return [child.weight for child in node.children]


# ─── split ───────────────────────────────────────────────────────────────────────────────


def test_split_a_lone_cell_makes_a_split_with_equal_weights() -> None:
    tree, new = ops.split(LayoutTree(A), "a", Direction.ROW, ids())
    assert new == ["n0"]
    assert tree.root == row("n1", A, Leaf("n0"))


def test_split_before_puts_the_new_cell_first() -> None:
    tree, new = ops.split(LayoutTree(A), "a", Direction.COLUMN, ids(), before=True)
    assert tree.root == col("n1", Leaf("n0"), A)
    assert new == ["n0"]


def test_split_into_n_adds_n_cells() -> None:
    tree, new = ops.split(LayoutTree(A), "a", Direction.ROW, ids(), count=3)
    assert new == ["n0", "n1", "n2"]
    assert leaf_ids(tree) == ["a", "n0", "n1", "n2"]
    assert weights_of(tree.root) == [1.0] * 4


def test_split_in_a_same_direction_parent_inserts_siblings_sharing_the_weight() -> None:
    tree = LayoutTree(row("r", A, B, weights=(3.0, 1.0)))
    tree, new = ops.split(tree, "a", Direction.ROW, ids(), count=2)
    assert new == ["n0", "n1"]
    assert leaf_ids(tree) == ["a", "n0", "n1", "b"]
    assert weights_of(tree.root) == [1.0, 1.0, 1.0, 1.0]
    assert tree.root.id == "r"


def test_split_across_the_parent_direction_nests_a_split_in_the_cell_slot() -> None:
    tree = LayoutTree(row("r", A, B, weights=(2.0, 1.0)))
    tree, _ = ops.split(tree, "a", Direction.COLUMN, ids())
    assert tree.root == row("r", col("n1", A, Leaf("n0")), B, weights=(2.0, 1.0))


def test_split_a_grid_cell_keeps_its_placement() -> None:
    tree = LayoutTree(grid("g", 1, 2, (A, 0, 0, 1, 1), (B, 0, 1, 1, 1)))
    tree, _ = ops.split(tree, "b", Direction.ROW, ids())
    assert isinstance(tree.root, Grid)
    cell = tree.root.cells[1]
    assert (cell.row, cell.col, cell.node) == (0, 1, row("n1", B, Leaf("n0")))


def test_split_does_not_mutate_the_input() -> None:
    original = LayoutTree(row("r", A, B))
    snapshot = LayoutTree(row("r", A, B))
    ops.split(original, "a", Direction.ROW, ids())
    assert original == snapshot


def test_split_rejects_bad_arguments() -> None:
    tree = LayoutTree(row("r", A, B))
    with pytest.raises(ValueError):
        ops.split(tree, "a", Direction.ROW, ids(), count=0)
    with pytest.raises(NodeNotFound):
        ops.split(tree, "zz", Direction.ROW, ids())
    with pytest.raises(NodeNotFound):
        ops.split(tree, "r", Direction.ROW, ids())


# ─── make_grid ───────────────────────────────────────────────────────────────────────────


def test_make_grid_puts_the_old_cell_top_left() -> None:
    tree, new = ops.make_grid(LayoutTree(row("r", A, B)), "b", 2, 3, ids())
    assert new == ["n0", "n1", "n2", "n3", "n4"]
    assert isinstance(tree.root, Split)
    made = tree.root.children[1].node
    assert isinstance(made, Grid)
    assert made.id == "n5"
    assert (made.col_weights, made.row_weights) == ((1.0,) * 3, (1.0,) * 2)
    assert made.cells[0] == GridCell(B, 0, 0)
    assert leaf_ids(tree) == ["a", "b", *new]
    ops.validate(tree)


def test_make_grid_one_by_one_changes_nothing() -> None:
    tree = LayoutTree(A)
    assert ops.make_grid(tree, "a", 1, 1, ids()) == (tree, [])
    with pytest.raises(ValueError):
        ops.make_grid(tree, "a", 0, 2, ids())


# ─── merge ───────────────────────────────────────────────────────────────────────────────


def test_merge_in_a_split_gives_the_weight_to_the_kept_cell() -> None:
    tree = LayoutTree(row("r", A, B, C, weights=(1.0, 2.0, 1.0)))
    merged, removed = ops.merge(tree, "b", "a")
    assert removed == [A]
    assert merged.root == row("r", B, C, weights=(3.0, 1.0))


def test_merge_of_the_last_two_cells_collapses_the_split() -> None:
    merged, removed = ops.merge(LayoutTree(row("r", A, B)), "a", "b")
    assert merged.root == A
    assert removed == [B]


def test_merge_collapse_keeps_the_slot_in_the_parent() -> None:
    tree = LayoutTree(row("r", A, col("k", B, C), weights=(1.0, 3.0)))
    merged, _ = ops.merge(tree, "c", "b")
    assert merged.root == row("r", A, C, weights=(1.0, 3.0))


def test_merge_refuses_cells_that_are_not_neighbours() -> None:
    with pytest.raises(NotAdjacent):
        ops.merge(LayoutTree(row("r", A, B, C)), "a", "c")
    with pytest.raises(NotAdjacent):
        ops.merge(LayoutTree(row("r", A, col("k", B, C))), "a", "b")
    with pytest.raises(SameCell):
        ops.merge(LayoutTree(row("r", A, B)), "a", "a")


def quad() -> LayoutTree:
    """A B / C D."""
    return LayoutTree(
        grid("g", 2, 2, (A, 0, 0, 1, 1), (B, 0, 1, 1, 1), (C, 1, 0, 1, 1), (D, 1, 1, 1, 1))
    )


def test_merge_in_a_grid_spans_the_kept_cell_over_the_range() -> None:
    merged, removed = ops.merge(quad(), "a", "b")
    assert removed == [B]
    assert isinstance(merged.root, Grid)
    assert GridCell(A, 0, 0, 1, 2) in merged.root.cells
    ops.validate(merged)


def test_merging_both_rows_horizontally_folds_the_redundant_column() -> None:
    merged, _ = ops.merge(quad(), "a", "b")
    merged, _ = ops.merge(merged, "d", "c")
    assert merged.root == Grid("g", (2.0,), (1.0, 1.0), (GridCell(A, 0, 0), GridCell(D, 1, 0)))


def test_merge_of_a_diagonal_takes_the_whole_range_and_collapses_the_grid() -> None:
    merged, removed = ops.merge(quad(), "d", "a")
    assert merged.root == D
    assert removed == [A, B, C]


def test_merge_refuses_a_range_that_cuts_through_a_cell() -> None:
    tree = LayoutTree(
        grid(
            "g",
            2,
            3,
            (A, 0, 0, 1, 1),
            (B, 0, 1, 1, 2),
            (C, 1, 0, 1, 1),
            (D, 1, 1, 1, 1),
            (E, 1, 2, 1, 1),
        )
    )
    with pytest.raises(NotAdjacent):
        ops.merge(tree, "a", "d")


def test_merge_in_a_grid_reports_nested_cells_removed() -> None:
    tree = LayoutTree(grid("g", 1, 2, (A, 0, 0, 1, 1), (row("r", B, C), 0, 1, 1, 1)))
    with pytest.raises(NotAdjacent):
        ops.merge(tree, "a", "b")  # b is inside a split, not a cell of the grid
    tree = LayoutTree(
        grid("g", 1, 3, (A, 0, 0, 1, 1), (row("r", B, C), 0, 1, 1, 1), (D, 0, 2, 1, 1))
    )
    merged, removed = ops.merge(tree, "a", "d")
    assert merged.root == A
    assert removed == [B, C, D]


# ─── close ───────────────────────────────────────────────────────────────────────────────


def test_close_gives_the_space_to_the_previous_sibling() -> None:
    closed = ops.close(LayoutTree(row("r", A, B, C, weights=(1.0, 2.0, 4.0))), "b")
    assert closed.root == row("r", A, C, weights=(3.0, 4.0))


def test_close_of_a_first_child_gives_the_space_to_the_next() -> None:
    closed = ops.close(LayoutTree(row("r", A, B, C, weights=(1.0, 2.0, 4.0))), "a")
    assert closed.root == row("r", B, C, weights=(3.0, 4.0))


def test_close_the_last_cell_is_refused() -> None:
    with pytest.raises(LastCell):
        ops.close(LayoutTree(A), "a")


def test_close_splices_a_same_direction_child_into_the_parent() -> None:
    tree = LayoutTree(
        row("r", A, col("k", B, row("q", C, D, weights=(1.0, 3.0))), weights=(1.0, 2.0))
    )
    closed = ops.close(tree, "b")
    assert closed.root == row("r", A, C, D, weights=(1.0, 0.5, 1.5))


def test_close_in_a_grid_grows_the_left_neighbour() -> None:
    closed = ops.close(quad(), "b")
    assert isinstance(closed.root, Grid)
    assert set(closed.root.cells) == {GridCell(A, 0, 0, 1, 2), GridCell(C, 1, 0), GridCell(D, 1, 1)}


def test_close_in_a_grid_grows_the_cell_above_when_left_does_not_fit() -> None:
    tree = LayoutTree(grid("g", 2, 2, (A, 0, 0, 2, 1), (B, 0, 1, 1, 1), (C, 1, 1, 1, 1)))
    closed = ops.close(tree, "c")
    # B now spans both rows; the row boundary separates nothing and is folded away.
    assert closed.root == Grid("g", (1.0, 1.0), (2.0,), (GridCell(A, 0, 0), GridCell(B, 0, 1)))


def pinwheel() -> LayoutTree:
    """Four cells turning around a centre cell e: no neighbour of e matches a full edge."""
    return LayoutTree(
        grid(
            "g",
            3,
            3,
            (A, 0, 0, 1, 2),
            (B, 0, 2, 2, 1),
            (E, 1, 1, 1, 1),
            (D, 1, 0, 2, 1),
            (C, 2, 1, 1, 2),
        )
    )


def test_close_in_a_grid_without_a_matching_neighbour_refills_the_slot() -> None:
    closed = ops.close(pinwheel(), "e", ids("new"))
    assert "e" not in leaf_ids(closed)
    assert ops.find_leaf(closed, "new0") == Leaf("new0")
    ops.validate(closed)
    with pytest.raises(ValueError):
        ops.close(pinwheel(), "e")


# ─── swap and move ───────────────────────────────────────────────────────────────────────


def test_swap_exchanges_contents_and_keeps_ids_in_place() -> None:
    a = Leaf("a", "s1", "agent1", True, "conv", {"x": 1})
    b = Leaf("b", "s2")
    swapped = ops.swap(LayoutTree(row("r", a, b)), "a", "b")
    left, right = ops.leaf_at_index(swapped, 0), ops.leaf_at_index(swapped, 1)
    assert left == Leaf("a", "s2")
    assert right == Leaf("b", "s1", "agent1", True, "conv")
    assert right.extra == {"x": 1} and left.extra == {}


def test_swap_with_itself_changes_nothing_and_unknown_ids_fail() -> None:
    tree = LayoutTree(row("r", A, B))
    assert ops.swap(tree, "a", "a") == tree
    with pytest.raises(NodeNotFound):
        ops.swap(tree, "a", "zz")


def test_move_lands_the_cell_beside_the_target_and_keeps_its_id() -> None:
    moved = ops.move(LayoutTree(row("r", A, B, C)), "a", "c", Direction.ROW, ids())
    assert moved.root == row("r", B, C, A, weights=(2.0, 0.5, 0.5))


def test_move_across_directions_nests_a_split() -> None:
    moved = ops.move(LayoutTree(row("r", A, B)), "a", "b", Direction.COLUMN, ids(), before=True)
    assert moved.root == col("n1", A, B)


def test_move_onto_itself_is_refused() -> None:
    with pytest.raises(SameCell):
        ops.move(LayoutTree(row("r", A, B)), "a", "a", Direction.ROW, ids())


# ─── equalize and queries ────────────────────────────────────────────────────────────────


def test_equalize_resets_every_weight_or_one_container() -> None:
    inner = Grid("g", (2.0, 3.0), (5.0,), (GridCell(B, 0, 0), GridCell(C, 0, 1)))
    tree = LayoutTree(row("r", A, inner, weights=(4.0, 1.0)))
    everything = ops.equalize(tree)
    assert everything.root == row(
        "r", A, Grid("g", (1.0, 1.0), (1.0,), inner.cells), weights=(1.0, 1.0)
    )
    only_grid = ops.equalize(tree, "g")
    assert only_grid.root == row(
        "r", A, Grid("g", (1.0, 1.0), (1.0,), inner.cells), weights=(4.0, 1.0)
    )
    with pytest.raises(NodeNotFound):
        ops.equalize(tree, "a")


def test_queries_find_cells_by_id_and_index() -> None:
    inner = grid("g", 1, 2, (C, 0, 1, 1, 1), (B, 0, 0, 1, 1))
    tree = LayoutTree(row("r", A, inner))
    assert leaf_ids(tree) == ["a", "b", "c"]
    assert ops.leaf_at_index(tree, 2) == C
    assert ops.leaf_index(tree, "b") == 1
    assert ops.find_leaf(tree, "c") == C
    assert ops.find_node(tree, "g") == inner
    assert ops.parent_of(tree, "b") == inner
    assert ops.parent_of(tree, "r") is None
    for bad in (3, -1):
        with pytest.raises(NodeNotFound):
            ops.leaf_at_index(tree, bad)
    with pytest.raises(NodeNotFound):
        ops.leaf_index(tree, "zz")
    with pytest.raises(NodeNotFound):
        ops.find_leaf(tree, "g")


def test_replace_leaf_puts_a_new_cell_in_the_slot() -> None:
    tree = LayoutTree(row("r", A, B, weights=(1.0, 2.0)))
    replaced = ops.replace_leaf(tree, "b", Leaf("z", "s9"))
    assert replaced.root == row("r", A, Leaf("z", "s9"), weights=(1.0, 2.0))


# ─── reconcile duplicate agents (LAY-7) ──────────────────────────────────────────────────


def agent_leaf(leaf_id: str, agent: str, running: bool = True) -> Leaf:
    return Leaf(leaf_id, f"s-{leaf_id}", agent, running, f"conv-{leaf_id}" if running else None)


def test_reconcile_keeps_the_first_cell_in_reading_order_as_host() -> None:
    tree = LayoutTree(
        row(
            "r",
            agent_leaf("a", "x"),
            grid("g", 1, 2, (agent_leaf("c", "x"), 0, 1, 1, 1), (agent_leaf("b", "y"), 0, 0, 1, 1)),
            agent_leaf("d", "x"),
        )
    )
    fixed = ops.reconcile_duplicate_agents(tree)
    assert ops.find_leaf(fixed, "a") == agent_leaf("a", "x")
    assert ops.find_leaf(fixed, "b") == agent_leaf("b", "y")
    for demoted in ("c", "d"):
        leaf = ops.find_leaf(fixed, demoted)
        assert (leaf.agent, leaf.agent_was_running, leaf.conversation_id) == ("x", False, None)
    assert ops.reconcile_duplicate_agents(fixed) == fixed


def test_reconcile_leaves_a_clean_layout_unchanged() -> None:
    tree = LayoutTree(row("r", agent_leaf("a", "x"), agent_leaf("b", "y"), C))
    assert ops.reconcile_duplicate_agents(tree) == tree


def test_reconcile_a_layout_set_looks_across_layouts() -> None:
    first = Layout("l1", "One", LayoutKind.TERMINAL, LayoutTree(agent_leaf("a", "x")))
    second = Layout("l2", "Two", LayoutKind.TERMINAL, LayoutTree(agent_leaf("b", "x")))
    fixed = ops.reconcile_duplicate_agents(LayoutSet("l2", (first, second)))
    assert fixed.layouts[0] == first
    assert fixed.layouts[1].tree.root == Leaf("b", "s-b", "x", False, None)
    assert fixed.active_id == "l2"
