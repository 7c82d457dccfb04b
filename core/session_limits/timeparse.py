"""The one parser for the reset times CLIs print or record (SLM-3).

Accepted, after optional leading words (`resets`, `try again at`, `at`, `on`) and trailing
punctuation:

- epoch seconds or milliseconds (`1764606000`, `1764606000000`);
- RFC 3339 / ISO 8601 date-times (`2026-12-01T17:00:00Z`, with an offset or fraction; a
  time without an offset is read in the local zone);
- relative durations (`in 2 hours 5 minutes`, `in 1h30m`, `in 45s`, `in 3 days`);
- wall-clock times, 12- or 24-hour (`3am`, `3:40am`, `4:38 PM`, `15:40`), optionally after
  a date (`Dec 3, 3:40am`, `Dec 3rd, 2026 3:40 PM`) and followed by a zone: an IANA name in
  parentheses (`(Europe/Paris)`), `UTC`/`GMT`, a fixed offset (`UTC+2`, `+02:00`) or a common
  abbreviation (`PST`, `CET`…). No zone means the local one.

A wall-clock time without a date is its next occurrence ("resets 3:40am" printed at 11pm is
tomorrow), except that one up to `ROLLOVER_GRACE` in the past is taken as just passed: CLIs
print the reset minute truncated, and a reset due a minute ago is not tomorrow's. Around DST
changes the instant is the real next one: a time in the spring-forward gap lands after the
gap, and during fall-back the later of two repeated times is chosen when the earlier one has
passed. Anything else is None: garbage never becomes a time.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

ROLLOVER_GRACE = timedelta(minutes=5)
"""How far in the past a date-less wall-clock time may be and still mean today."""

_EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
_LATEST = datetime(2100, 1, 1, tzinfo=UTC)
_MAX_TEXT = 200

_LEAD = re.compile(r"^(?:(?:access|resets?|resetting|try|again|at|on|until)\b[\s:]*)+", re.I)
_TRAIL = re.compile(r"[\s.,;:!]*$")

_EPOCH = re.compile(r"\d{9,13}(?:\.\d+)?")
_ISO = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:?\d{2})?"
)

_UNITS = {
    "d": 86400,
    "day": 86400,
    "days": 86400,
    "h": 3600,
    "hr": 3600,
    "hrs": 3600,
    "hour": 3600,
    "hours": 3600,
    "m": 60,
    "min": 60,
    "mins": 60,
    "minute": 60,
    "minutes": 60,
    "s": 1,
    "sec": 1,
    "secs": 1,
    "second": 1,
    "seconds": 1,
}
_RELATIVE = re.compile(r"in\s+((?:\d+\s*[a-z]+[\s,]*(?:and\s+)?)+)", re.I)
_RELATIVE_PART = re.compile(r"(\d+)\s*([a-z]+)", re.I)

_MONTHS = {
    m: i
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1
    )
}
_WALL = re.compile(
    r"(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+)?"
    r"(?:(?P<month>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+"
    r"(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?:(?P<year>\d{4}),?\s+)?(?:at\s+)?)?"
    r"(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?(?::(?P<second>\d{2}))?"
    r"\s*(?P<ampm>[ap]\.?\s?m\.?)?"
    r"(?:\s*\(\s*(?P<paren>[^()]{1,64})\s*\)|\s+(?P<zone>[A-Za-z]{2,5}(?:[+-]\d{1,2}(?::?\d{2})?)?"
    r"|[+-]\d{2}:?\d{2}))?",
    re.I,
)

# Abbreviations are not unique worldwide; these are the ones CLIs print in practice
# (Gemini: "3:40 PM PST"). Anything else must be an IANA name or an offset.
_ABBREVIATIONS = {
    "UTC": 0,
    "GMT": 0,
    "Z": 0,
    "PST": -8,
    "PDT": -7,
    "MST": -7,
    "MDT": -6,
    "CST": -6,
    "CDT": -5,
    "EST": -5,
    "EDT": -4,
    "WET": 0,
    "WEST": 1,
    "CET": 1,
    "CEST": 2,
    "EET": 2,
    "EEST": 3,
    "BST": 1,
    "JST": 9,
}
_OFFSET = re.compile(r"(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?", re.I)


def parse_reset(text: str, now: datetime, local_tz: tzinfo | None = None) -> datetime | None:
    """When a limit resets, from `text` as a CLI printed or recorded it, or None.

    Args:
        text: The reset time (a pattern's capture, a transcript field rendered as text).
        now: The current instant, timezone-aware: relative and date-less times count from it.
        local_tz: The zone of a time that names none (the CLI's, i.e. the machine's);
            defaults to `now`'s zone.

    Returns:
        A timezone-aware instant in UTC, or None when `text` is not a time.
    """
    if now.tzinfo is None:
        raise ValueError("parse_reset needs a timezone-aware now")
    zone = local_tz if local_tz is not None else now.tzinfo
    assert zone is not None
    if len(text) > _MAX_TEXT:
        return None
    cleaned = _TRAIL.sub("", _LEAD.sub("", text.strip()))
    if not cleaned:
        return None
    for parse in (_epoch, _iso, _relative):
        found = parse(cleaned, now, zone)
        if found is not None:
            return _sane(found)
    return _sane(_wall_clock(cleaned, now, zone))


def parse_epoch(value: float | int | str) -> datetime | None:
    """An epoch in seconds or milliseconds (a JSON field) as a UTC instant, or None."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if number != number or number <= 0:  # NaN or not positive
        return None
    if number >= 1e11:  # milliseconds: 1e11 s is the year 5138
        number /= 1000.0
    try:
        found = datetime.fromtimestamp(number, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return _sane(found)


def _sane(found: datetime | None) -> datetime | None:
    if found is None or not _EARLIEST <= found < _LATEST:
        return None
    return found.astimezone(UTC)


def _epoch(text: str, now: datetime, zone: tzinfo) -> datetime | None:
    return parse_epoch(text) if _EPOCH.fullmatch(text) else None


def _iso(text: str, now: datetime, zone: tzinfo) -> datetime | None:
    if not _ISO.fullmatch(text):
        return None
    normalized = text[:-1] + "+00:00" if text[-1] in "Zz" else text
    try:
        found = datetime.fromisoformat(normalized)
    except ValueError:
        return None
    return found if found.tzinfo is not None else _localize(found, zone)


def _relative(text: str, now: datetime, zone: tzinfo) -> datetime | None:
    match = _RELATIVE.fullmatch(text)
    if match is None:
        return None
    seconds = 0
    for amount, unit in _RELATIVE_PART.findall(match.group(1)):
        factor = _UNITS.get(unit.lower())
        if factor is None:
            return None
        seconds += int(amount) * factor
    if seconds > 400 * 86400:
        return None
    return now + timedelta(seconds=seconds)


def _wall_clock(text: str, now: datetime, local: tzinfo) -> datetime | None:
    match = _WALL.fullmatch(text)
    if match is None:
        return None
    wall = _time_of_day(match)
    if wall is None:
        return None
    zone = _zone(match.group("paren") or match.group("zone"), local)
    if zone is None:
        return None
    if match.group("month"):
        return _dated(match, wall, now, zone)
    today = now.astimezone(zone).date()
    candidates = [
        found
        for offset in (-1, 0, 1, 2)
        for found in _instants(today + timedelta(days=offset), wall, zone)
    ]
    upcoming = [c for c in candidates if c >= now - ROLLOVER_GRACE]
    return min(upcoming) if upcoming else None


def _time_of_day(match: re.Match[str]) -> time | None:
    hour = int(match.group("hour"))
    minute = int(match.group("minute") or 0)
    second = int(match.group("second") or 0)
    ampm = match.group("ampm")
    if ampm is None and match.group("minute") is None:
        return None  # a bare number is not a time
    if ampm is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm.lower().startswith("p") else 0)
    if hour > 23 or minute > 59 or second > 59:
        return None
    return time(hour, minute, second)


def _zone(name: str | None, local: tzinfo) -> tzinfo | None:
    if name is None:
        return local
    name = name.strip()
    if name.upper() in _ABBREVIATIONS:
        return timezone(timedelta(hours=_ABBREVIATIONS[name.upper()]))
    offset = _OFFSET.fullmatch(name)
    if offset is not None:
        sign = -1 if offset.group(1) == "-" else 1
        hours, minutes = int(offset.group(2)), int(offset.group(3) or 0)
        if hours > 14 or minutes > 59:
            return None
        return timezone(sign * timedelta(hours=hours, minutes=minutes))
    if "/" not in name or ".." in name or name.startswith("/"):
        return None  # only Area/City names: never a path the zone database would open
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def _dated(match: re.Match[str], wall: time, now: datetime, zone: tzinfo) -> datetime | None:
    month = _MONTHS[match.group("month")[:3].lower()]
    day = int(match.group("day"))
    year_text = match.group("year")
    year = int(year_text) if year_text else now.astimezone(zone).year
    try:
        day_date = date(year, month, day)
    except ValueError:
        return None
    found = min(_instants(day_date, wall, zone))
    if year_text is None and found < now - timedelta(days=1):
        try:  # "Jan 2" printed on Dec 31 is next year's
            found = min(_instants(date(year + 1, month, day), wall, zone))
        except ValueError:
            return None
    return found


def _instants(day: date, wall: time, zone: tzinfo) -> list[datetime]:
    """The real instants a wall time names on `day`: two during a fall-back repeat, one
    after the gap when it falls in a spring-forward gap, else one."""
    instants = []
    for fold in (0, 1):
        local = datetime.combine(day, wall, tzinfo=zone).replace(fold=fold)
        utc = local.astimezone(UTC)
        if utc.astimezone(zone).replace(tzinfo=None) != local.replace(tzinfo=None):
            # In a gap: fold 0 reads it with the offset before the change, i.e. after the gap.
            if fold == 0:
                instants.append(utc)
            continue
        instants.append(utc)
    return sorted(set(instants))


def _localize(naive: datetime, zone: tzinfo) -> datetime:
    return min(_instants(naive.date(), naive.time(), zone))
