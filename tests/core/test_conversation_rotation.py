"""The rotation plan (LOG-5): thresholds, INV-LS6, pruning, recovery — with properties."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.conversations.rotation import (
    MAX_SEGMENTS,
    ROTATE_AFTER_BYTES,
    ROTATE_AFTER_TURNS,
    Line,
    RotationPlan,
    rotation_plan,
)


def lines(n: int, size: int = 100, start: int = 0) -> list[Line]:
    return [Line(f"t{i}", size) for i in range(start, start + n)]


def test_small_logs_do_not_rotate() -> None:
    active = lines(ROTATE_AFTER_TURNS)
    assert rotation_plan(active, "t499", []).nothing


def test_too_many_turns_moves_everything_before_up_to() -> None:
    active = lines(ROTATE_AFTER_TURNS + 1)
    plan = rotation_plan(active, "t500", [1, 2])
    assert plan == RotationPlan(drop=0, move=500, new_segment=3, prune=())


def test_too_many_bytes_rotates() -> None:
    active = lines(3, size=ROTATE_AFTER_BYTES // 2)
    assert rotation_plan(active, "t2", []).move == 2


def test_up_to_is_never_moved_even_when_it_is_first() -> None:
    active = lines(900)
    assert rotation_plan(active, "t0", []).move == 0
    assert rotation_plan(active, "t450", []).move == 450


def test_no_handoff_or_unknown_up_to_means_no_rotation() -> None:
    active = lines(2000)
    assert rotation_plan(active, None, []).nothing
    assert rotation_plan(active, "elsewhere", []).nothing


def test_segments_beyond_the_maximum_are_pruned_oldest_first() -> None:
    plan = rotation_plan(lines(600), "t599", list(range(1, MAX_SEGMENTS + 1)))
    assert plan.new_segment == MAX_SEGMENTS + 1
    assert plan.prune == (1,)
    assert rotation_plan(lines(3), "t2", list(range(5, 30))).prune == tuple(range(5, 10))


def test_an_interrupted_rotation_drops_the_copies_first() -> None:
    active = lines(1000)
    # the segment got t0..t299, then the daemon died before the active log was rewritten
    plan = rotation_plan(active, "t999", [1], newest_archived="t299")
    assert plan.drop == 300 and plan.move == 699 and plan.new_segment == 2
    # after the copies go, what is left may be under the thresholds: no new segment then
    plan = rotation_plan(lines(520), "t519", [1], newest_archived="t199")
    assert plan.drop == 200 and plan.move == 0 and plan.new_segment is None


log_lines = st.lists(
    st.tuples(st.one_of(st.none(), st.sampled_from([f"t{i}" for i in range(40)])),
              st.integers(min_value=1, max_value=400)),
    max_size=80,
    unique_by=lambda pair: pair[0] if pair[0] is not None else object(),
).map(lambda pairs: [Line(i, s) for i, s in pairs])


@settings(deadline=None, max_examples=400)
@given(
    active=log_lines,
    up_to=st.one_of(st.none(), st.sampled_from([f"t{i}" for i in range(45)])),
    segments=st.lists(st.integers(min_value=1, max_value=60), unique=True, max_size=30),
    newest=st.one_of(st.none(), st.sampled_from([f"t{i}" for i in range(45)])),
    max_turns=st.integers(min_value=0, max_value=50),
    max_bytes=st.integers(min_value=0, max_value=5000),
    max_segments=st.integers(min_value=1, max_value=25),
)
def test_plan_properties(
    active: list[Line],
    up_to: str | None,
    segments: list[int],
    newest: str | None,
    max_turns: int,
    max_bytes: int,
    max_segments: int,
) -> None:
    plan = rotation_plan(active, up_to, segments, newest, max_turns=max_turns,
                         max_bytes=max_bytes, max_segments=max_segments)
    ids = [line.id for line in active]
    removed = plan.drop + plan.move
    # INV-LS6: the upTo turn and everything after it stay in the active log
    if up_to is not None and up_to in ids:
        assert removed <= ids.index(up_to) and up_to in ids[removed:]
        if plan.move:  # a rotation keeps exactly the upTo turn and what follows it
            assert ids[removed] == up_to
    else:
        assert removed == 0  # no handoff that the log knows: nothing moves
    # dropped lines are exactly the copies of what the newest segment already holds
    if plan.drop:
        assert ids[plan.drop - 1] == newest
    # a new segment exactly when something moves, numbered after every existing one
    assert (plan.new_segment is not None) == (plan.move > 0)
    if plan.new_segment is not None:
        assert plan.new_segment > max(segments, default=0)
    # never more than the maximum afterwards, the oldest pruned first, the new one kept
    after = set(segments) | ({plan.new_segment} if plan.new_segment else set())
    assert len(after - set(plan.prune)) <= max_segments
    assert set(plan.prune) <= after and plan.new_segment not in plan.prune
    assert all(p < k for p in plan.prune for k in after - set(plan.prune))
    # applying the plan then planning again moves nothing more (idempotent)
    left = active[removed:]
    kept_segments = sorted(after - set(plan.prune))
    again = rotation_plan(left, up_to, kept_segments, None, max_turns=max_turns,
                          max_bytes=max_bytes, max_segments=max_segments)
    assert again.drop == 0 and again.move == 0 and again.prune == ()
