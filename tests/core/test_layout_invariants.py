"""`validate` (LAY-2) and the error hierarchy it raises."""

from __future__ import annotations

import math

import pytest

from core.errors import (
    DuplicateNodeId,
    DuplicateSession,
    EmptyContainer,
    GridNotCovered,
    IdeaError,
    LayoutError,
    NonPositiveWeight,
    OverlappingSpans,
    SpanOutOfGrid,
)
from core.layout.invariants import validate
from core.layout.model import Direction, Grid, GridCell, LayoutTree, Leaf, Split
from tests.core.layout_strategies import grid, row

A, B, C = Leaf("a"), Leaf("b"), Leaf("c")


def test_a_valid_tree_passes() -> None:
    validate(
        LayoutTree(
            row(
                "r",
                Leaf("a", "s1"),
                grid("g", 2, 2, (B, 0, 0, 2, 1), (C, 0, 1, 1, 1), (Leaf("d", "s2"), 1, 1, 1, 1)),
            )
        )
    )


@pytest.mark.parametrize("weight", [0.0, -1.0, math.nan, math.inf])
def test_weights_must_be_positive_and_finite(weight: float) -> None:
    with pytest.raises(NonPositiveWeight) as caught:
        validate(LayoutTree(row("r", A, B, weights=(1.0, weight))))
    assert caught.value.container_id == "r"


def test_grid_track_weights_are_checked_too() -> None:
    bad = Grid("g", (1.0, 0.0), (1.0,), (GridCell(A, 0, 0), GridCell(B, 0, 1)))
    with pytest.raises(NonPositiveWeight):
        validate(LayoutTree(bad))


def test_empty_containers_are_refused() -> None:
    with pytest.raises(EmptyContainer):
        validate(LayoutTree(Split("r", Direction.ROW, ())))
    with pytest.raises(EmptyContainer):
        validate(LayoutTree(Grid("g", (), (1.0,), ())))


def test_overlapping_spans_are_refused() -> None:
    with pytest.raises(OverlappingSpans) as caught:
        validate(LayoutTree(grid("g", 1, 2, (A, 0, 0, 1, 2), (B, 0, 1, 1, 1))))
    assert (caught.value.row, caught.value.col) == (0, 1)


@pytest.mark.parametrize(
    "cell",
    [(B, 0, 1, 1, 2), (B, 1, 1, 1, 1), (B, 0, -1, 1, 1), (B, 0, 1, 0, 1)],
)
def test_spans_must_stay_inside_the_grid(cell: tuple[Leaf, int, int, int, int]) -> None:
    with pytest.raises(SpanOutOfGrid):
        validate(LayoutTree(grid("g", 1, 2, (A, 0, 0, 1, 1), cell)))


def test_the_grid_must_be_covered() -> None:
    with pytest.raises(GridNotCovered) as caught:
        validate(LayoutTree(grid("g", 2, 2, (A, 0, 0, 1, 2), (B, 1, 0, 1, 1))))
    assert (caught.value.row, caught.value.col) == (1, 1)


def test_a_session_lives_in_one_cell() -> None:
    with pytest.raises(DuplicateSession) as caught:
        validate(LayoutTree(row("r", Leaf("a", "s1"), Leaf("b", "s1"))))
    assert caught.value.session == "s1"


def test_node_ids_are_unique() -> None:
    with pytest.raises(DuplicateNodeId):
        validate(LayoutTree(row("r", A, Leaf("a"))))
    with pytest.raises(DuplicateNodeId):
        validate(LayoutTree(row("a", A, B)))


def test_errors_carry_a_user_message_and_share_a_base() -> None:
    error = OverlappingSpans("g", 1, 2)
    assert isinstance(error, LayoutError) and isinstance(error, IdeaError)
    assert str(error) == error.message == "Two cells of grid g overlap at row 1, column 2."
