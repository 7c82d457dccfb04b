"""The reset-time parser (SLM-3): every form the CLIs print, rollover, zones, DST, garbage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from core.session_limits import (
    ROLLOVER_GRACE,
    LimitLevel,
    LimitQuery,
    LimitReader,
    LimitSignal,
    bounded_text,
    parse_epoch,
    parse_reset,
)

PARIS = ZoneInfo("Europe/Paris")
NOW = datetime(2026, 12, 1, 16, 20, tzinfo=UTC)  # 17:20 in Paris


def utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, us: int = 0
) -> datetime:
    return datetime(year, month, day, hour, minute, second, us, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1764606000", utc(2025, 12, 1, 16, 20)),
        ("1764606000000", utc(2025, 12, 1, 16, 20)),
        ("1796142000", datetime.fromtimestamp(1796142000, UTC)),
        ("2026-12-01T17:00:00Z", utc(2026, 12, 1, 17)),
        ("2026-12-01T18:00:00.250+01:00", utc(2026, 12, 1, 17, 0, 0, 250000)),
        ("2026-12-01 17:00:00+0000", utc(2026, 12, 1, 17)),
    ],
)
def test_machine_forms(text: str, expected: datetime) -> None:
    assert parse_reset(text, NOW) == expected


def test_iso_without_offset_is_local() -> None:
    assert parse_reset("2026-12-01T18:30:00", NOW, PARIS) == utc(2026, 12, 1, 17, 30)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4:38pm (UTC)", utc(2026, 12, 1, 16, 38)),
        ("resets 4:38pm (UTC)", utc(2026, 12, 1, 16, 38)),
        ("try again at 4:38 PM.", utc(2026, 12, 1, 16, 38)),
        ("5pm", utc(2026, 12, 1, 17)),
        ("17:05", utc(2026, 12, 1, 17, 5)),
        ("11:59 p.m.", utc(2026, 12, 1, 23, 59)),
        # Earlier today: the next occurrence is tomorrow (midnight rollover).
        ("3:40am", utc(2026, 12, 2, 3, 40)),
        ("12am", utc(2026, 12, 2, 0, 0)),
        ("12:30pm", utc(2026, 12, 2, 12, 30)),
        ("3:40 PM PST", utc(2026, 12, 1, 23, 40)),
        ("4pm UTC+2", utc(2026, 12, 2, 14)),
        ("16:30 +05:30", utc(2026, 12, 2, 11)),
    ],
)
def test_wall_clock_in_utc(text: str, expected: datetime) -> None:
    assert parse_reset(text, NOW) == expected


def test_named_zone_and_rollover() -> None:
    # 17:20 in Paris: 3:40am Paris is tomorrow 02:40 UTC; 6pm Paris is today 17:00 UTC.
    assert parse_reset("resets 3:40am (Europe/Paris)", NOW) == utc(2026, 12, 2, 2, 40)
    assert parse_reset("6pm (Europe/Paris)", NOW) == utc(2026, 12, 1, 17)
    # No zone: the local one (the CLI runs on this machine).
    assert parse_reset("6pm", NOW, PARIS) == utc(2026, 12, 1, 17)


def test_zone_decides_the_day() -> None:
    # 23:50 UTC on Dec 1 is already Dec 2 in Tokyo: "9am (Asia/Tokyo)" is Dec 3 00:00 UTC? No:
    # Tokyo is 08:50 on Dec 2, so 9am Tokyo is ten minutes away.
    now = utc(2026, 12, 1, 23, 50)
    assert parse_reset("9am (Asia/Tokyo)", now) == utc(2026, 12, 2, 0, 0)


def test_just_passed_is_not_tomorrow() -> None:
    now = utc(2026, 12, 1, 16, 40, 30)
    assert parse_reset("4:38pm (UTC)", now) == utc(2026, 12, 1, 16, 38)
    past_grace = now + ROLLOVER_GRACE
    assert parse_reset("4:38pm (UTC)", past_grace) == utc(2026, 12, 2, 16, 38)


def test_just_before_midnight_within_grace() -> None:
    now = utc(2026, 12, 2, 0, 1)
    assert parse_reset("11:59pm (UTC)", now) == utc(2026, 12, 1, 23, 59)


def test_dates() -> None:
    assert parse_reset("Dec 3, 3:40am (UTC)", NOW) == utc(2026, 12, 3, 3, 40)
    assert parse_reset("Dec 3rd, 2026 3:40 PM", NOW, UTC) == utc(2026, 12, 3, 15, 40)
    assert parse_reset("Thu, Dec 3 at 3:40am", NOW, UTC) == utc(2026, 12, 3, 3, 40)
    # A date without a year that already passed is next year's.
    assert parse_reset("Jan 2, 9am", utc(2026, 12, 31, 10), UTC) == utc(2027, 1, 2, 9)
    assert parse_reset("Feb 30, 9am", NOW, UTC) is None


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("in 2 hours 5 minutes", timedelta(hours=2, minutes=5)),
        ("in 1h30m", timedelta(hours=1, minutes=30)),
        ("try again in 45s", timedelta(seconds=45)),
        ("in 3 days, 2 hours and 1 minute", timedelta(days=3, hours=2, minutes=1)),
    ],
)
def test_relative(text: str, delta: timedelta) -> None:
    assert parse_reset(text, NOW) == NOW + delta


def test_dst_spring_forward_gap_lands_after_the_gap() -> None:
    # Paris, 29 March 2026: 02:00 CET jumps to 03:00 CEST. "2:30am" does not exist that
    # night; the reset is read as 3:30 CEST (01:30 UTC), after the gap.
    now = datetime(2026, 3, 29, 0, 30, tzinfo=UTC)  # 01:30 CET
    assert parse_reset("2:30am (Europe/Paris)", now) == utc(2026, 3, 29, 1, 30)


def test_dst_fall_back_takes_the_next_real_instant() -> None:
    # Paris, 25 October 2026: 03:00 CEST goes back to 02:00 CET, so 2:30 happens twice.
    before = utc(2026, 10, 25, 0, 0)  # 02:00 CEST, first pass
    assert parse_reset("2:30am (Europe/Paris)", before) == utc(2026, 10, 25, 0, 30)
    between = utc(2026, 10, 25, 0, 45)  # 02:45 CEST: the first 2:30 has passed
    assert parse_reset("2:30am (Europe/Paris)", between) == utc(2026, 10, 25, 1, 30)
    after = utc(2026, 10, 25, 1, 45)  # 02:45 CET: both passed, so tomorrow's
    assert parse_reset("2:30am (Europe/Paris)", after) == utc(2026, 10, 26, 1, 30)


def test_dst_rollover_day_length() -> None:
    # The day after the US spring-forward has 23 hours: "9am" tomorrow is 23 h away in
    # New York time but lands on the wall clock, not 24 h later.
    ny = ZoneInfo("America/New_York")
    now = datetime(2026, 3, 7, 10, 0, tzinfo=ny)
    assert parse_reset("9am", now) == datetime(2026, 3, 8, 9, 0, tzinfo=ny).astimezone(UTC)
    assert parse_reset("9am", now) - now == timedelta(hours=22)  # type: ignore[operator]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "later",
        "soon",
        "resets",
        "3",
        "25:00",
        "13pm",
        "0am",
        "12:60",
        "9:5",
        "3:40am (Mars/Olympus)",
        "3:40am (../../etc/passwd)",
        "3:40am (/etc/localtime)",
        "3:40am XYZ",
        "4pm UTC+15",
        "12345",
        "99999999999999",
        "1e10",
        "in 2 fortnights",
        "in 9999 days",
        "2026-13-01T00:00:00Z",
        "2026-12-01",
        "x" * 500,
        "3:40am; rm -rf /",
        "9999-12-31T23:59:59Z",
        "1900-01-01T00:00:00Z",
    ],
)
def test_garbage_is_none(text: str) -> None:
    assert parse_reset(text, NOW) is None


def test_naive_now_is_refused() -> None:
    with pytest.raises(ValueError):
        parse_reset("3pm", datetime(2026, 12, 1, 12, 0))


def test_parse_epoch_fields() -> None:
    assert parse_epoch(1764606000) == utc(2025, 12, 1, 16, 20)
    assert parse_epoch("1764606000000") == utc(2025, 12, 1, 16, 20)
    assert parse_epoch(1764606000.5) == utc(2025, 12, 1, 16, 20, 0, 500000)
    for bad in (0, -5, "x", float("nan"), 1e30, "", 12):
        assert parse_epoch(bad) is None


def test_signal_is_aware_and_text_bounded() -> None:
    with pytest.raises(ValueError):
        LimitSignal(LimitLevel.PATTERN, datetime(2026, 1, 1), "screen", "x")
    signal = LimitSignal(LimitLevel.STRUCTURED, NOW, "/tmp/t.jsonl", "limit")
    assert signal.level == 1 and signal.level < LimitLevel.HUMAN
    assert bounded_text("You've hit\n   your   limit") == "You've hit your limit"
    assert len(bounded_text("y" * 10_000)) == 500


def test_fake_reader_meets_the_port(tmp_path: Path) -> None:
    from core.agents.profile import AgentProfile, Stdin
    from tests.fakes import FakeLimitReader

    seen = LimitSignal(LimitLevel.STRUCTURED, NOW + timedelta(hours=1), "t", "x", observed_at=NOW)
    reader: LimitReader = FakeLimitReader(seen, profile_ids=("claude",))
    profile = AgentProfile("claude", "Claude", "claude", Stdin())
    query = LimitQuery("a1", profile, tmp_path, tmp_path / "run", None, since=NOW, now=NOW)
    assert reader.applies(profile)
    assert reader.read(query) == seen
    later = LimitQuery(
        "a1", profile, tmp_path, tmp_path / "run", None, since=NOW + ROLLOVER_GRACE, now=NOW
    )
    assert reader.read(later) is None
