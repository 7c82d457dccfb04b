"""What the level-1 readers share: one tailed file per agent conversation, the newest limit
seen in it, and the checks on everything that becomes a path.

A reader (`claude.py`, `codex.py`) says where its CLI writes for a query (`locate`) and what
one record means (`consider`): a limit (set the signal) or a normal answer after it (clear
it: the CLI got past the limit by itself, e.g. Claude Code's own continue-at-reset). Each
`read` feeds only the lines added since the previous one (`JsonlTail`), so a check costs the
new bytes, not the file.
"""

from __future__ import annotations

import logging
import os
import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from adapters.limits.tail import JsonlTail, json_object
from core.agents.profile import AgentProfile
from core.ids import is_safe_id
from core.session_limits import LimitQuery, LimitSignal

log = logging.getLogger(__name__)

MAX_TRACKED = 256
"""Conversations whose position is remembered (the oldest is forgotten first)."""


@dataclass
class Tracked:
    """One conversation file being followed."""

    tail: JsonlTail
    signal: LimitSignal | None = None
    went_on_at: datetime | None = None
    """When the model answered normally after the newest limit record (the CLI got past
    the limit by itself); None while that limit stands or when there was none."""
    answered_at: datetime | None = None
    """The newest normal answer's time, limit or not (a limit idea saw only on the screen
    has no record here: an answer after idea saw it is the CLI going on)."""
    notes: dict[str, Any] = field(default_factory=dict)
    """Reader-specific memory between records (Codex: the newest rate-limit windows)."""

    def limited(self, signal: LimitSignal) -> None:
        """A limit record: the newest signal, and nothing went on after it yet."""
        self.signal = signal
        self.went_on_at = None

    def answered(self, record: Mapping[str, Any]) -> None:
        """A normal answer: whatever limit there was is over; if there was one, it went on
        at this record's time."""
        at = timestamp(record) or datetime.now(UTC)
        if self.signal is not None:
            self.went_on_at = at
        self.answered_at = at
        self.signal = None


class TailedReader(ABC):
    """Base of a level-1 reader; subclasses set `name`, `commands`, `needles` and implement
    `locate` and `consider`. Thread-safe: the daemon may read for two agents at once."""

    name = "tailed"
    commands: tuple[str, ...] = ()
    """Program names (the profile's `command`, any folder) of the CLI this reader knows."""
    needles: tuple[bytes, ...] = ()
    """A line holding none of these is not parsed at all."""

    def __init__(self) -> None:
        self._tracked: OrderedDict[tuple[str, str], Tracked] = OrderedDict()
        self._lock = threading.Lock()

    def applies(self, profile: AgentProfile) -> bool:
        return Path(profile.command).name in self.commands

    def read(self, query: LimitQuery) -> LimitSignal | None:
        tracked = self._follow(query)
        signal = tracked.signal if tracked is not None else None
        if signal is None or (signal.observed_at is not None and signal.observed_at < query.since):
            return None
        return signal

    def went_on(self, query: LimitQuery) -> datetime | None:
        tracked = self._follow(query)
        if tracked is None or tracked.signal is not None:
            return None  # no file yet, or its newest limit record stands
        for at in (tracked.went_on_at, tracked.answered_at):
            if at is not None and at >= query.since:
                return at
        return None

    def _follow(self, query: LimitQuery) -> Tracked | None:
        """The conversation's tracked state after feeding it the lines added since the last
        call, or None when the reader does not apply or the file does not exist yet."""
        if not self.applies(query.profile) or not is_safe_id(query.conversation_id):
            return None
        assert query.conversation_id is not None
        key = (query.agent_id, query.conversation_id)
        with self._lock:
            tracked = self._tracked.get(key)
            if tracked is None:
                path = self.locate(query)
                if path is None:
                    return None  # not written yet (Codex: before the first message)
                tracked = self._tracked[key] = Tracked(JsonlTail(path))
                while len(self._tracked) > MAX_TRACKED:
                    self._tracked.popitem(last=False)
            self._tracked.move_to_end(key)
            for line in tracked.tail.new_lines():
                if any(needle in line for needle in self.needles):
                    record = json_object(line)
                    if record is not None:
                        self.consider(record, tracked, query)
            return tracked

    @abstractmethod
    def locate(self, query: LimitQuery) -> Path | None:
        """The file the CLI writes this conversation to, once it exists."""

    @abstractmethod
    def consider(self, record: dict[str, Any], tracked: Tracked, query: LimitQuery) -> None:
        """Update `tracked.signal` (and notes) from one record."""


def home_of(env: Mapping[str, str]) -> Path | None:
    """The CLI's home folder: the HOME it was launched with, else the daemon's."""
    home = env.get("HOME") or os.path.expanduser("~")
    path = Path(home)
    return path if path.is_absolute() else None


def folder_from_env(env: Mapping[str, str], variable: str, default: str) -> Path | None:
    """`$variable` when set to an absolute path, else `default` under the home; None when
    the value is relative (a CLI would read it against its cwd: not guessed)."""
    value = env.get(variable)
    if value:
        path = Path(os.path.expanduser(value))
        return path if path.is_absolute() else None
    home = home_of(env)
    return home / default if home is not None else None


def timestamp(record: Mapping[str, Any]) -> datetime | None:
    """A record's ISO 8601 `timestamp` (both CLIs write `2026-12-01T16:20:54.370Z`)."""
    value = record.get("timestamp")
    if not isinstance(value, str) or len(value) > 40:
        return None
    try:
        found = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return found if found.tzinfo is not None else found.replace(tzinfo=UTC)


def local_zone(env: Mapping[str, str]) -> tzinfo:
    """The zone a CLI prints wall-clock times in: its `TZ` when that names a zone, else the
    machine's (the daemon runs where the CLI runs)."""
    name = (env.get("TZ") or "").lstrip(":")
    if name and ".." not in name and not name.startswith("/"):
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            log.debug("TZ %r is not a zone name; using the machine's", name)
    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    return zone
