"""Undo and redo of layout edits."""

from __future__ import annotations

from core.layout.history import LayoutHistory
from core.layout.model import Direction, LayoutTree, Leaf
from core.layout.ops import split
from tests.core.layout_strategies import ids

T0 = LayoutTree(Leaf("a"))


def edited(count: int) -> list[LayoutTree]:
    """T0 and `count` successive splits of it."""
    new_id = ids()
    trees = [T0]
    for _ in range(count):
        trees.append(split(trees[-1], "a", Direction.ROW, new_id)[0])
    return trees


def test_undo_then_redo_walks_back_and_forth() -> None:
    t0, t1, t2 = edited(2)
    history = LayoutHistory().push(t0).push(t1)
    undone = history.undo(t2)
    assert undone is not None
    history, current = undone
    assert current == t1 and history.can_redo
    undone = history.undo(current)
    assert undone is not None
    history, current = undone
    assert current == t0 and not history.can_undo
    assert history.undo(current) is None
    redone = history.redo(current)
    assert redone is not None
    history, current = redone
    assert current == t1
    redone = history.redo(current)
    assert redone is not None
    assert redone[1] == t2 and not redone[0].can_redo


def test_a_new_edit_forgets_the_redo_branch() -> None:
    t0, t1, t2 = edited(2)
    undone = LayoutHistory().push(t0).push(t1).undo(t2)
    assert undone is not None
    history = undone[0].push(undone[1])
    assert not history.can_redo
    assert history.redo(t0) is None


def test_the_stack_is_bounded() -> None:
    trees = edited(8)
    history = LayoutHistory(limit=3)
    for tree in trees[:-1]:
        history = history.push(tree)
    assert history.past == tuple(trees[5:8])
    current = trees[-1]
    steps = 0
    while (undone := history.undo(current)) is not None:
        history, current = undone
        steps += 1
    assert steps == 3 and current == trees[5]


def test_pushing_the_same_tree_twice_costs_one_step() -> None:
    history = LayoutHistory().push(T0).push(LayoutTree(Leaf("a")))
    assert len(history.past) == 1


def test_histories_are_immutable() -> None:
    empty = LayoutHistory()
    empty.push(T0)
    assert not empty.can_undo
