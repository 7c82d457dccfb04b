"""Random sequences of edits keep every invariant, and geometry always tiles the screen."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import CannotResize, DuplicateSession, LastCell, NotAdjacent
from core.layout import ops
from core.layout.geometry import Orientation, Side, compute
from core.layout.model import Direction, Grid, LayoutTree, Leaf, Split, iter_leaves
from core.layout.sizes import MIN_LEAF_HEIGHT, MIN_LEAF_WIDTH, MinimumSizes
from tests.core.layout_strategies import (
    assert_tiles,
    assert_titles_are_borders,
    ids,
    leaf_ids,
    trees,
)

OPERATIONS = [
    "split",
    "make_grid",
    "merge",
    "close",
    "resize",
    "set_border",
    "swap",
    "move",
    "equalize",
]
MAX_LEAVES = 14


def sessions_of(tree: LayoutTree) -> set[str]:
    return {leaf.session for leaf in iter_leaves(tree.root) if leaf.session is not None}


def is_subsequence(short: list[str], long: list[str]) -> bool:
    remaining = iter(long)
    return all(item in remaining for item in short)


def check_geometry(tree: LayoutTree, data: st.DataObject) -> None:
    min_w, min_h = MinimumSizes().of(tree.root)
    width = data.draw(st.integers(min_w, min_w + 50), label="width")
    height = data.draw(st.integers(min_h, min_h + 30), label="height")
    geometry = compute(tree, width, height)
    assert list(geometry.cells) == leaf_ids(tree)
    assert_tiles(geometry, width, height)
    assert_titles_are_borders(geometry)
    for rect in geometry.cells.values():
        assert rect.width >= MIN_LEAF_WIDTH and rect.height >= MIN_LEAF_HEIGHT
    tiny_w = data.draw(st.integers(0, min_w), label="tiny width")
    tiny_h = data.draw(st.integers(0, min_h), label="tiny height")
    assert_tiles(compute(tree, tiny_w, tiny_h), tiny_w, tiny_h)


class Session:
    """Mutable test harness around an immutable tree: applies one random edit at a time and
    checks what each edit must preserve."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data
        self.new_id = ids()
        self.sessions = itertools.count()
        self.tree = LayoutTree(Leaf(self.new_id(), session=self.next_session()))

    def next_session(self) -> str:
        return f"s{next(self.sessions)}"

    def draw_leaf(self, label: str) -> str:
        return self.data.draw(st.sampled_from(leaf_ids(self.tree)), label=label)

    def give_sessions(self, tree: LayoutTree, new: list[str]) -> LayoutTree:
        for leaf_id in new:
            tree = ops.replace_leaf(tree, leaf_id, Leaf(leaf_id, session=self.next_session()))
        return tree

    def step(self) -> None:
        operation = self.data.draw(st.sampled_from(OPERATIONS), label="operation")
        if operation in ("split", "make_grid") and len(leaf_ids(self.tree)) > MAX_LEAVES:
            operation = "close"
        before_ids, before_sessions = leaf_ids(self.tree), sessions_of(self.tree)
        order_kept = True
        expected_sessions = set(before_sessions)
        if operation == "split":
            target = self.draw_leaf("target")
            direction = self.data.draw(st.sampled_from(list(Direction)))
            count = self.data.draw(st.integers(1, 3))
            before = self.data.draw(st.booleans())
            tree, new = ops.split(self.tree, target, direction, self.new_id, count, before)
            assert len(new) == count
            tree = self.give_sessions(tree, new)
            expected_sessions = sessions_of(tree)
            assert expected_sessions >= before_sessions
        elif operation == "make_grid":
            target = self.draw_leaf("target")
            rows, cols = self.data.draw(st.integers(1, 3)), self.data.draw(st.integers(1, 3))
            tree, new = ops.make_grid(self.tree, target, rows, cols, self.new_id)
            assert len(new) == rows * cols - 1
            tree = self.give_sessions(tree, new)
            expected_sessions = sessions_of(tree)
        elif operation == "merge":
            tree, order_kept, expected_sessions = self.merge()
        elif operation == "close":
            target = self.draw_leaf("target")
            if len(before_ids) == 1:
                with pytest.raises(LastCell):
                    ops.close(self.tree, target, self.new_id)
                return
            order_kept = isinstance(ops.parent_of(self.tree, target), Split)
            tree = ops.close(self.tree, target, self.new_id)
            expected_sessions.discard(ops.find_leaf(self.tree, target).session or "")
        elif operation == "resize":
            tree = self.resize()
        elif operation == "set_border":
            tree = self.set_border()
        elif operation == "swap":
            a, b = self.draw_leaf("a"), self.draw_leaf("b")
            tree = ops.swap(self.tree, a, b)
            assert ops.find_leaf(tree, a).session == ops.find_leaf(self.tree, b).session
        elif operation == "move":
            if len(before_ids) == 1:
                return
            src = self.draw_leaf("src")
            dst = self.data.draw(st.sampled_from([x for x in before_ids if x != src]))
            direction = self.data.draw(st.sampled_from(list(Direction)))
            tree = ops.move(
                self.tree, src, dst, direction, self.new_id, self.data.draw(st.booleans())
            )
            assert ops.find_leaf(tree, src) == ops.find_leaf(self.tree, src)
            order_kept = False
        else:
            tree = ops.equalize(self.tree)
        ops.validate(tree)
        assert sessions_of(tree) == expected_sessions
        if order_kept:
            survivors = [x for x in before_ids if x in set(leaf_ids(tree))]
            assert is_subsequence(survivors, leaf_ids(tree))
        if operation in ("resize", "set_border", "swap", "equalize"):
            assert leaf_ids(tree) == before_ids
        self.tree = tree
        check_geometry(self.tree, self.data)

    def merge(self) -> tuple[LayoutTree, bool, set[str]]:
        target = self.draw_leaf("merge target")
        parent = ops.parent_of(self.tree, target)
        if parent is None:
            return self.tree, True, sessions_of(self.tree)
        if isinstance(parent, Split):
            position = [c.node.id for c in parent.children].index(target)
            candidates = [
                parent.children[i].node.id
                for i in (position - 1, position + 1)
                if 0 <= i < len(parent.children) and isinstance(parent.children[i].node, Leaf)
            ]
        else:
            candidates = [
                c.node.id for c in parent.cells if isinstance(c.node, Leaf) and c.node.id != target
            ]
        if not candidates:
            return self.tree, True, sessions_of(self.tree)
        other = self.data.draw(st.sampled_from(candidates), label="merge with")
        try:
            tree, removed = ops.merge(self.tree, target, other)
        except NotAdjacent:
            assert isinstance(parent, Grid)
            return self.tree, True, sessions_of(self.tree)
        assert target in leaf_ids(tree)
        lost = {leaf.session for leaf in removed if leaf.session is not None}
        kept_order = isinstance(parent, Split)
        return tree, kept_order, sessions_of(self.tree) - lost

    def resize(self) -> LayoutTree:
        target = self.draw_leaf("resize target")
        side = self.data.draw(st.sampled_from(list(Side)))
        cells = self.data.draw(st.integers(-20, 20))
        min_w, min_h = MinimumSizes().of(self.tree.root)
        width = self.data.draw(st.integers(min_w, min_w + 60))
        height = self.data.draw(st.integers(min_h, min_h + 30))
        try:
            return ops.resize(self.tree, target, side, cells, width, height)
        except CannotResize:
            return self.tree

    def set_border(self) -> LayoutTree:
        min_w, min_h = MinimumSizes().of(self.tree.root)
        width = self.data.draw(st.integers(min_w, min_w + 60))
        height = self.data.draw(st.integers(min_h, min_h + 30))
        borders = compute(self.tree, width, height).borders
        if not borders:
            return self.tree
        border = self.data.draw(st.sampled_from(borders))
        limit = width if border.orientation == Orientation.VERTICAL else height
        position = self.data.draw(st.integers(-2, limit + 2))
        return ops.set_border(
            self.tree,
            border.container_id,
            border.index,
            position,
            width,
            height,
            border.orientation,
        )


@settings(deadline=None, max_examples=150)
@given(st.data())
def test_random_edits_keep_the_tree_valid_and_the_screen_tiled(data: st.DataObject) -> None:
    session = Session(data)
    for _ in range(data.draw(st.integers(1, 30), label="steps")):
        session.step()


@settings(deadline=None, max_examples=200)
@given(trees, st.data())
def test_random_trees_tile_at_any_size(tree: LayoutTree, data: st.DataObject) -> None:
    ops.validate(tree)
    check_geometry(tree, data)


@settings(deadline=None)
@given(trees)
def test_reconcile_is_idempotent_and_keeps_one_running_host_per_agent(tree: LayoutTree) -> None:
    fixed = ops.reconcile_duplicate_agents(tree)
    assert ops.reconcile_duplicate_agents(fixed) == fixed
    assert leaf_ids(fixed) == leaf_ids(tree)
    seen: set[str] = set()
    for before, after in zip(iter_leaves(tree.root), iter_leaves(fixed.root), strict=True):
        assert after.agent == before.agent and after.session == before.session
        if before.agent is None:
            assert after == before
        elif before.agent in seen:
            assert not after.agent_was_running and after.conversation_id is None
        else:
            assert after == before
            seen.add(before.agent)


def test_harness_detects_a_broken_tree() -> None:
    """The checks above can fail: a tree with a duplicate session is rejected."""
    tree = LayoutTree(Leaf("a", session="s"))
    tree, new = ops.split(tree, "a", Direction.ROW, ids())
    broken = ops.replace_leaf(tree, new[0], replace(Leaf(new[0]), session="s"))
    with pytest.raises(DuplicateSession):
        ops.validate(broken)
