"""Detector levels 2 and 3 and the limit book's de-duplication (fake clock: plain datetimes)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from core.session_limits import LimitLevel, LimitSignal
from core.session_limits.book import (
    ArmedBy,
    BookFile,
    LimitBook,
    LimitState,
    countdown,
    state_text,
)
from core.session_limits.detector import (
    ScreenWatch,
    compile_pattern,
    match_screen,
    stalled,
    suspected_signal,
)

NOW = datetime(2026, 12, 1, 16, 0, tzinfo=UTC)
_COMPILED = compile_pattern(
    "You['’]ve hit your (?:[\\w'’-]+ )*limit(?: · resets (?P<reset>[^·\\n]*[^·\\s]))?"
)
assert _COMPILED is not None
CLAUDE: re.Pattern[str] = _COMPILED
MARGIN = timedelta(seconds=60)


def signal(level: int, at: datetime | None, source: str = "screen") -> LimitSignal:
    return LimitSignal(LimitLevel(level), at, source, "limit", observed_at=NOW)


def test_screen_match_reads_the_time() -> None:
    lines = ["● Working…", "  ⎿  You've hit your limit · resets 4:38pm (UTC)", "❯ "]
    found = match_screen(CLAUDE, lines, NOW)
    assert [s.resets_at for s in found] == [datetime(2026, 12, 1, 16, 38, tzinfo=UTC)]
    assert found[0].level == LimitLevel.PATTERN and found[0].source == "screen"
    assert found[0].text == "You've hit your limit · resets 4:38pm (UTC)"


def test_screen_match_without_time_and_without_match() -> None:
    assert match_screen(CLAUDE, ["You've hit your weekly limit"], NOW)[0].resets_at is None
    assert match_screen(CLAUDE, ["all good", "❯ "], NOW) == []
    unnamed = re.compile(r"limit until (\S+)")
    assert match_screen(unnamed, ["limit until 17:00"], NOW)[0].resets_at == NOW + timedelta(
        hours=1
    )


def test_wrapped_message_is_joined_at_full_rows() -> None:
    codex = re.compile(r"try again at (?P<reset>\d{1,2}:\d{2} ?[AP]M)")
    lines = ["You've hit your usage limit. try again at 4:3", "8 PM.", ""]
    width = len(lines[0])
    found = match_screen(codex, lines, NOW, cols=width)
    assert found[0].resets_at == datetime(2026, 12, 1, 16, 38, tzinfo=UTC)
    assert match_screen(codex, lines, NOW) == []  # without the width the time is cut


def test_screen_watch_reports_a_message_once() -> None:
    watch = ScreenWatch(CLAUDE)
    screen = ["You've hit your limit · resets 5pm (UTC)", "❯ "]
    first = watch.check(screen, NOW)
    assert first is not None and first.resets_at == NOW + timedelta(hours=1)
    assert watch.check(screen, NOW) is None  # still on screen: the same message
    twice = [*screen, "You've hit your limit · resets 5pm (UTC)"]
    assert watch.check(twice, NOW) is not None  # printed again: a new limit
    assert watch.check(["❯ "], NOW) is None
    assert watch.check(screen, NOW) is not None  # gone, then back


def test_acknowledge_keeps_an_old_message_quiet() -> None:
    watch = ScreenWatch(CLAUDE)
    screen = ["You've hit your limit · resets 5pm (UTC)", "❯ continue"]
    watch.acknowledge(screen, NOW)
    assert watch.check(screen, NOW) is None


def test_stall_rule() -> None:
    assert stalled(turn_running=True, quiet_for=120, stall_after=120)
    assert not stalled(turn_running=True, quiet_for=119.9, stall_after=120)
    assert not stalled(turn_running=False, quiet_for=1e6, stall_after=120)
    assert not stalled(turn_running=True, quiet_for=1e6, stall_after=0)
    suspicion = suspected_signal(NOW, 120)
    assert suspicion.level == LimitLevel.HUMAN and suspicion.resets_at is None


def test_first_signal_limits_and_arms_with_the_margin() -> None:
    book = LimitBook(MARGIN)
    change = book.on_signal("a", "alice", signal(2, NOW + timedelta(hours=1)), NOW)
    assert change.new and change.armed and change.limit is not None
    assert change.limit.fire_at == NOW + timedelta(hours=1) + MARGIN
    assert change.limit.armed_by is ArmedBy.AUTO
    assert state_text(change.limit, UTC) == "rate_limited (until 17:00)"


def test_same_limit_seen_again_is_one_resume() -> None:
    book = LimitBook(MARGIN)
    book.on_signal("a", "alice", signal(2, NOW + timedelta(hours=1)), NOW)
    again = book.on_signal("a", "alice", signal(2, NOW + timedelta(hours=1, seconds=30)), NOW)
    assert not again.new and not again.armed
    # Level 1 refines the time of the same limit; level 2 then never moves it back.
    exact = NOW + timedelta(minutes=59, seconds=10)
    refined = book.on_signal("a", "alice", signal(1, exact, "transcript"), NOW)
    assert refined.armed and refined.limit is not None and refined.limit.fire_at == exact + MARGIN
    assert refined.limit.level == 1 and refined.limit.source == "transcript"
    assert not book.on_signal("a", "alice", signal(2, NOW + timedelta(hours=1)), NOW).armed
    assert [limit.agent_id for limit in book.due(exact + MARGIN)] == ["a"]
    assert book.due(exact + MARGIN) == []  # fired once


def test_a_new_reset_time_moves_the_resume() -> None:
    book = LimitBook(MARGIN)
    book.on_signal("a", "alice", signal(2, NOW + timedelta(hours=1)), NOW)
    later = book.on_signal("a", "alice", signal(2, NOW + timedelta(hours=5)), NOW)
    assert later.armed and later.limit is not None
    assert later.limit.fire_at == NOW + timedelta(hours=5) + MARGIN


def test_human_and_automatic_paths_share_one_resume() -> None:
    book = LimitBook(MARGIN)
    suspicion = book.on_signal("a", "alice", suspected_signal(NOW, 120), NOW)
    assert suspicion.new and not suspicion.armed and suspicion.limit is not None
    assert suspicion.limit.state is LimitState.SUSPECTED
    assert state_text(suspicion.limit, UTC) == "limit suspected"
    # A second stall is not a second notification.
    assert not book.on_signal("a", "alice", suspected_signal(NOW, 240), NOW).new
    # The user answers: asking = arming.
    armed = book.set_resume_at("a", "alice", NOW + timedelta(hours=2), NOW)
    assert armed.state is LimitState.LIMITED and armed.armed_by is ArmedBy.USER
    assert armed.fire_at == NOW + timedelta(hours=2)
    # Then the screen shows a time: the user's time stays armed, once.
    late = book.on_signal("a", "alice", signal(2, NOW + timedelta(hours=1)), NOW)
    assert not late.armed and book.get("a") is armed and armed.fire_at == NOW + timedelta(hours=2)
    assert len(book.due(NOW + timedelta(hours=3))) == 1


def test_automatic_then_human_is_still_one_resume() -> None:
    book = LimitBook(MARGIN)
    book.on_signal("a", "alice", signal(2, NOW + timedelta(hours=1)), NOW)
    book.set_resume_at("a", "alice", NOW + timedelta(minutes=10), NOW)
    assert [limit.agent_id for limit in book.due(NOW + timedelta(hours=2))] == ["a"]


def test_a_past_time_means_now() -> None:
    book = LimitBook(MARGIN)
    limit = book.set_resume_at("a", "alice", NOW - timedelta(hours=3), NOW)
    assert limit.fire_at == NOW
    assert book.due(NOW) == [limit]


def test_suspicion_never_downgrades_a_limit() -> None:
    book = LimitBook(MARGIN)
    book.on_signal("a", "alice", signal(2, None), NOW)
    limit = book.get("a")
    assert limit is not None and state_text(limit, UTC) == "rate_limited (unknown)"
    assert not book.on_signal("a", "alice", suspected_signal(NOW, 300), NOW).new
    assert limit.state is LimitState.LIMITED


def test_cancel_disarms_and_stays_limited() -> None:
    book = LimitBook(MARGIN)
    book.on_signal("a", "alice", signal(2, NOW + timedelta(hours=1)), NOW)
    assert book.cancel("a") is True
    assert book.cancel("a") is False
    assert book.cancel("nobody") is False
    assert book.due(NOW + timedelta(days=1)) == []
    assert book.get("a") is not None
    assert book.clear("a") is not None and book.get("a") is None


def test_overdue_after_a_restart_is_asked_not_fired() -> None:
    book = LimitBook(MARGIN)
    book.on_signal("a", "alice", signal(2, NOW + timedelta(hours=1)), NOW)
    book.on_signal("b", "bob", signal(2, NOW + timedelta(hours=5)), NOW)
    later = NOW + timedelta(hours=8)
    asked = book.overdue(later, timedelta(hours=6))
    assert [limit.agent_id for limit in asked] == ["a"]
    assert [limit.agent_id for limit in book.due(later)] == ["b"]


def test_an_overdue_resume_is_a_question_answered_by_a_time_or_a_cancel() -> None:
    book = LimitBook(MARGIN)
    for agent in ("a", "b", "c"):
        book.on_signal(agent, agent, signal(2, NOW + timedelta(hours=1)), NOW)
    later = NOW + timedelta(hours=8)
    assert len(book.overdue(later, timedelta(hours=6))) == 3
    a = book.get("a")
    assert a is not None and a.asked and not a.armed
    assert a.overdue_at == NOW + timedelta(hours=1) + MARGIN  # when it should have fired
    assert book.due(later + timedelta(days=1)) == [] and book.next_fire() is None
    # Answered "now" (a past time means now): armed at once, no question left.
    book.set_resume_at("a", "a", later - timedelta(minutes=5), later)
    assert not a.asked and a.fire_at == later
    assert [limit.agent_id for limit in book.due(later)] == ["a"]
    # Answered "keep it stopped": the cancel says it answered something.
    assert book.cancel("b") is True
    b = book.get("b")
    assert b is not None and not b.asked and not b.armed and book.cancel("b") is False
    # A new automatic time (the agent hit its limit again) answers it too.
    book.on_signal("c", "c", signal(1, later + timedelta(hours=2)), later)
    c = book.get("c")
    assert c is not None and not c.asked and c.fire_at == later + timedelta(hours=2) + MARGIN
    # The question survives the book's file (a second restart asks again).
    import msgspec

    book.overdue(later + timedelta(days=1), timedelta(hours=6))
    again = LimitBook(MARGIN)
    again.load(msgspec.json.decode(msgspec.json.encode(book.to_file()), type=BookFile))
    assert {k for k, limit in again.limits.items() if limit.asked} == {"c"}


def test_book_round_trips_through_msgspec() -> None:
    import msgspec

    book = LimitBook(MARGIN)
    book.on_signal("a", "alice", signal(2, NOW + timedelta(hours=1)), NOW)
    data = msgspec.json.encode(book.to_file())
    again = LimitBook(MARGIN)
    again.load(msgspec.json.decode(data, type=BookFile))
    assert again.get("a") == book.get("a")
    assert b'"fireAt"' in data


def test_countdown_format() -> None:
    assert countdown(NOW + timedelta(minutes=4, seconds=9), NOW) == "4m 09s"
    assert countdown(NOW + timedelta(seconds=9), NOW) == "9s"
    assert countdown(NOW + timedelta(hours=1, minutes=5), NOW) == "1h 05m"
    assert countdown(NOW - timedelta(seconds=5), NOW) == "0s"


def test_a_zone_cut_at_the_edge_is_read_whole() -> None:
    lines = ["You've hit your limit · resets 4pm (UTC", ")", "fake-agent> "]
    [found] = match_screen(CLAUDE, lines, NOW, cols=len(lines[0]))
    assert found.resets_at == datetime(2026, 12, 1, 16, 0, tzinfo=UTC)
