"""Which agents are limited and when each resumes: one book per project (SLM-4, SLM-5, D15).

The automatic path (a level-1 or level-2 signal) and the human path (the user gives a time,
"asking = arming") arm the same single resume per agent, so a limit seen on screen, then in
the transcript, then confirmed by the user resumes the agent once. Rules:

- A signal for an agent not limited makes it limited (or suspected, for a stall); this is
  the transition that is notified, once.
- A known reset time arms the resume at `resets_at + margin` (never in the past).
- A time the user gave wins over any automatic one until the limit ends; a later signal
  only updates what is shown.
- An automatic time within `SAME_RESET` of the armed one is the same limit seen again; a
  lower (more exact) level refines the time, a higher one never moves it.
- A suspicion never downgrades a known limit.

Everything here is plain data with timezone-aware times, encoded by msgspec for the store.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from enum import Enum

import msgspec

from core.session_limits.signal import LimitLevel, LimitSignal

SAME_RESET = timedelta(minutes=2)
"""Two automatic reset times closer than this are one limit (a screen shows minutes only)."""

BOOK_VERSION = 1

SHOWN_PER_AGENT = 16
"""Limit messages remembered per agent (the newest; a replayed history shows a few)."""
SHOWN_AGENTS = 64
"""Agents whose shown messages are remembered (those that showed one most recently)."""


class LimitState(str, Enum):  # noqa: UP042 (str values on the wire)
    LIMITED = "limited"
    """A limit was seen (its reset time may be unknown)."""
    SUSPECTED = "suspected"
    """The agent stalled in a task with no limit message: the user is asked."""
    SWAPPED = "swapped"
    """It continues on its fallback profile; at the reset it goes back to its own."""


class ArmedBy(str, Enum):  # noqa: UP042
    AUTO = "auto"
    USER = "user"


class Limit(msgspec.Struct, kw_only=True, rename="camel"):
    """One agent's limit. Mutable: the book updates it."""

    agent_id: str
    agent_name: str
    state: LimitState
    level: int
    source: str
    text: str
    since: datetime
    resets_at: datetime | None = None
    fire_at: datetime | None = None
    """When the resume fires; None: not armed (unknown time, or cancelled)."""
    armed_by: ArmedBy | None = None
    swapped_from: str | None = None
    """The profile the agent ran before a fallback swap (swapped back at the reset)."""
    swapped_to: str | None = None
    overdue_at: datetime | None = None
    """An armed resume that was due at this instant and found more than `ask_after` late
    (the daemon was down, the machine slept): not fired; the user is asked whether to
    resume now, at a time, or keep the agent stopped. None: no question pending."""

    @property
    def armed(self) -> bool:
        return self.fire_at is not None

    @property
    def asked(self) -> bool:
        return self.overdue_at is not None


class BookFile(msgspec.Struct, kw_only=True):
    version: int = BOOK_VERSION
    limits: list[Limit] = msgspec.field(default_factory=list)
    shown: dict[str, list[str]] = msgspec.field(default_factory=dict)
    """Per agent id, the limit messages its sessions already showed (`LimitBook.shown`)."""


@dataclass(frozen=True, slots=True)
class Change:
    """What a book operation did, for the daemon to act on."""

    limit: Limit | None
    new: bool = False
    """The agent just became limited or suspected: notify (once)."""
    armed: bool = False
    """The resume was armed or moved: tell the UI (`fire_at`)."""


class LimitBook:
    def __init__(self, margin: timedelta = timedelta(seconds=60)) -> None:
        self.margin = margin
        self.limits: dict[str, Limit] = {}
        self.shown: dict[str, list[str]] = {}
        """Per agent, the limit messages already acted on, oldest first: a CLI resumed on
        its conversation replays its history, old limit message included, on the screen and
        in its transcript, and that is not a new limit. Kept across daemon restarts (the
        book's file), bounded by `SHOWN_PER_AGENT` and `SHOWN_AGENTS`."""

    def get(self, agent_id: str) -> Limit | None:
        return self.limits.get(agent_id)

    # ─── the automatic path ──────────────────────────────────────────────────────────

    def on_signal(
        self, agent_id: str, agent_name: str, signal: LimitSignal, now: datetime
    ) -> Change:
        limit = self.limits.get(agent_id)
        suspected = signal.level == LimitLevel.HUMAN and signal.resets_at is None
        if limit is None:
            limit = Limit(
                agent_id=agent_id,
                agent_name=agent_name,
                state=LimitState.SUSPECTED if suspected else LimitState.LIMITED,
                level=int(signal.level),
                source=signal.source,
                text=signal.text,
                since=now,
                resets_at=signal.resets_at,
            )
            self.limits[agent_id] = limit
            armed = False
            if signal.resets_at is not None:
                self._arm(limit, signal.resets_at + self.margin, ArmedBy.AUTO, now)
                armed = True
            return Change(limit, new=True, armed=armed)
        if suspected:
            return Change(limit)  # never a downgrade of what is known
        if limit.state is LimitState.SWAPPED:
            # The fallback profile hit its own limit: limited again; the swap back to the
            # agent's own profile stays armed when it was.
            limit.state = LimitState.LIMITED
            self._describe(limit, signal)
            limit.since = now
            if limit.fire_at is None and signal.resets_at is not None:
                limit.resets_at = signal.resets_at
                self._arm(limit, signal.resets_at + self.margin, ArmedBy.AUTO, now)
                return Change(limit, new=True, armed=True)
            return Change(limit, new=True)
        upgraded = limit.state is LimitState.SUSPECTED
        if upgraded:
            limit.state = LimitState.LIMITED
        if signal.resets_at is None:
            if upgraded:
                self._describe(limit, signal)
            return Change(limit, new=upgraded)
        if limit.armed_by is ArmedBy.USER:
            if limit.resets_at is None:
                limit.resets_at = signal.resets_at
            return Change(limit, new=upgraded)
        known = limit.resets_at
        if known is not None and abs(known - signal.resets_at) < SAME_RESET:
            if signal.level < limit.level:  # the same limit, a more exact time
                self._describe(limit, signal)
                limit.resets_at = signal.resets_at
                if limit.fire_at is not None:
                    self._arm(limit, signal.resets_at + self.margin, ArmedBy.AUTO, now)
                return Change(limit, new=upgraded, armed=limit.fire_at is not None)
            return Change(limit, new=upgraded)
        if known is not None and signal.level > limit.level and signal.resets_at < known:
            return Change(limit, new=upgraded)  # a screen capture never undercuts level 1
        self._describe(limit, signal)
        limit.resets_at = signal.resets_at
        self._arm(limit, signal.resets_at + self.margin, ArmedBy.AUTO, now)
        return Change(limit, new=upgraded, armed=True)

    @staticmethod
    def _describe(limit: Limit, signal: LimitSignal) -> None:
        limit.level = int(signal.level)
        limit.source = signal.source
        limit.text = signal.text

    @staticmethod
    def _arm(limit: Limit, at: datetime, by: ArmedBy, now: datetime) -> None:
        limit.fire_at = max(at, now)
        limit.armed_by = by
        limit.overdue_at = None  # a new time answers the question about the missed one

    # ─── the human path and the user's controls ──────────────────────────────────────

    def set_resume_at(self, agent_id: str, agent_name: str, at: datetime, now: datetime) -> Limit:
        """The user's time ("asking = arming"): a past time means now."""
        limit = self.limits.get(agent_id)
        if limit is None:
            limit = self.limits[agent_id] = Limit(
                agent_id=agent_id,
                agent_name=agent_name,
                state=LimitState.LIMITED,
                level=int(LimitLevel.HUMAN),
                source="user",
                text="limit confirmed by the user",
                since=now,
            )
        if limit.state is LimitState.SUSPECTED:
            limit.state = LimitState.LIMITED
            limit.source, limit.text = "user", "limit confirmed by the user"
        if limit.resets_at is None or limit.armed_by is ArmedBy.USER or limit.level == 3:
            limit.resets_at = max(at, now)
        self._arm(limit, at, ArmedBy.USER, now)
        return limit

    def swapped(self, agent_id: str, from_profile: str, to_profile: str) -> Limit | None:
        """The agent now runs on its fallback profile; an armed resume swaps it back."""
        limit = self.limits.get(agent_id)
        if limit is None:
            return None
        limit.state = LimitState.SWAPPED
        if limit.swapped_from is None:
            limit.swapped_from = from_profile
        limit.swapped_to = to_profile
        return limit

    def cancel(self, agent_id: str) -> bool:
        """Disarm; True iff a resume was armed (SLM-7), or was missed and asked about (the
        answer "keep it stopped"). The agent stays limited."""
        limit = self.limits.get(agent_id)
        if limit is None or (limit.fire_at is None and limit.overdue_at is None):
            return False
        limit.fire_at = None
        limit.armed_by = None
        limit.overdue_at = None
        return True

    def clear(self, agent_id: str) -> Limit | None:
        """The limit is over (resumed, or the CLI went on by itself)."""
        return self.limits.pop(agent_id, None)

    # ─── time ────────────────────────────────────────────────────────────────────────

    def due(self, now: datetime) -> list[Limit]:
        """Armed resumes whose time came, disarmed as they are returned (each fires once)."""
        found = [
            limit
            for limit in self.limits.values()
            if limit.fire_at is not None and limit.fire_at <= now
        ]
        for limit in found:
            limit.fire_at = None
        return sorted(found, key=lambda limit: limit.since)

    def next_fire(self) -> datetime | None:
        times = [limit.fire_at for limit in self.limits.values() if limit.fire_at is not None]
        return min(times) if times else None

    def overdue(self, now: datetime, ask_after: timedelta) -> list[Limit]:
        """Armed resumes that should have fired more than `ask_after` ago (the daemon was
        down, the machine slept): not fired; each becomes a question to the user
        (`overdue_at`), answered by a time (`set_resume_at`, now included) or a cancel."""
        found = [
            limit
            for limit in self.limits.values()
            if limit.fire_at is not None and now - limit.fire_at > ask_after
        ]
        for limit in found:
            limit.overdue_at = limit.fire_at
            limit.fire_at = None
            limit.armed_by = None
        return found

    # ─── messages already seen ───────────────────────────────────────────────────────

    def shown_by(self, agent_id: str) -> frozenset[str]:
        return frozenset(self.shown.get(agent_id, ()))

    def remember_shown(self, agent_id: str, key: str) -> bool:
        """Record a limit message (or a level-1 record's key) as acted on; True when it was
        not known yet (the book then needs saving)."""
        known = self.shown.pop(agent_id, [])
        new = key not in known
        if not new:
            known.remove(key)
        known.append(key)
        self.shown[agent_id] = known[-SHOWN_PER_AGENT:]  # re-inserted: the newest agent last
        while len(self.shown) > SHOWN_AGENTS:
            del self.shown[next(iter(self.shown))]
        return new

    # ─── the store's shape ───────────────────────────────────────────────────────────

    def to_file(self) -> BookFile:
        return BookFile(limits=list(self.limits.values()), shown=dict(self.shown))

    def load(self, file: BookFile) -> None:
        self.limits = {limit.agent_id: limit for limit in file.limits}
        self.shown = {}
        # A file edited by hand may hold more than the bounds: the newest are kept.
        for agent_id, keys in list(file.shown.items())[-SHOWN_AGENTS:]:
            self.shown[agent_id] = list(dict.fromkeys(keys))[-SHOWN_PER_AGENT:]


def clock_text(at: datetime, zone: tzinfo | None) -> str:
    """HH:MM in `zone` (the user's clock)."""
    local = at.astimezone(zone)
    return local.strftime("%H:%M")


def state_text(limit: Limit, zone: tzinfo | None) -> str:
    """`rate_limited (until HH:MM)`, `rate_limited (unknown)` or `limit suspected`."""
    if limit.state is LimitState.SUSPECTED:
        return "limit suspected"
    if limit.state is LimitState.SWAPPED:
        back = f" until {clock_text(limit.fire_at, zone)}" if limit.fire_at else ""
        return f"on fallback {limit.swapped_to}{back}"
    if limit.resets_at is None:
        return "rate_limited (unknown)"
    return f"rate_limited (until {clock_text(limit.resets_at, zone)})"


def countdown(until: datetime, now: datetime) -> str:
    """`1h 05m`, `4m 09s` or `9s` from `now` to `until`, clamped at 0 (SLM-8)."""
    return countdown_words((until - now).total_seconds())


def countdown_words(seconds: float) -> str:
    """`seconds` as the countdown reads: `1h 05m`, `4m 09s` or `9s`, clamped at 0."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"
