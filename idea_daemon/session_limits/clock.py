"""The wall clock of session limits: reset times are instants of the user's world, not of
the loop's monotonic clock (a machine that sleeps past a reset must still resume).

Tests start the daemon with `IDEA_TEST_CLOCK=<RFC 3339>`: the clock is then frozen at that
instant and moves only by the `test_clock` command (refused in any other mode), so a test
reaches a reset time without sleeping.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

TEST_CLOCK_VAR = "IDEA_TEST_CLOCK"


class WallClock(Protocol):
    @property
    def zone(self) -> tzinfo:
        """The user's time zone (reset times without a zone, HH:MM shown)."""
        ...

    def now(self) -> datetime:
        """The current instant, timezone-aware."""
        ...


def local_zone(env: Mapping[str, str]) -> tzinfo:
    """The machine's zone: `TZ`, else /etc/localtime's name, else the current offset."""
    for name in (env.get("TZ", "").lstrip(":"), _localtime_name()):
        if name and "/" in name and ".." not in name and not name.startswith("/"):
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError, OSError):
                pass
        if name == "UTC":
            return UTC
    offset = datetime.now().astimezone().tzinfo
    return offset if offset is not None else UTC


def _localtime_name() -> str:
    try:
        target = os.readlink("/etc/localtime")
    except OSError:
        return ""
    marker = "zoneinfo/"
    return target.split(marker, 1)[1] if marker in target else Path(target).name


class SystemWallClock:
    def __init__(self, zone: tzinfo) -> None:
        self._zone = zone

    @property
    def zone(self) -> tzinfo:
        return self._zone

    def now(self) -> datetime:
        return datetime.now(UTC)


class FrozenWallClock:
    """A clock that moves only when told (tests)."""

    def __init__(self, at: datetime, zone: tzinfo = UTC) -> None:
        self.at = at
        self._zone = zone

    @property
    def zone(self) -> tzinfo:
        return self._zone

    def now(self) -> datetime:
        return self.at

    def set(self, at: datetime) -> None:
        self.at = at

    def advance(self, delta: timedelta) -> None:
        self.at += delta


def clock_from_env(env: Mapping[str, str]) -> WallClock:
    zone = local_zone(env)
    frozen = env.get(TEST_CLOCK_VAR, "")
    if frozen:
        at = datetime.fromisoformat(frozen.replace("Z", "+00:00"))
        if at.tzinfo is None:
            at = at.replace(tzinfo=UTC)
        return FrozenWallClock(at, zone)
    return SystemWallClock(zone)
