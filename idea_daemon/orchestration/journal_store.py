"""The ticket journal on disk: `.ideai/run/tickets.json` (D27), written atomically and at
most once per `DELAY` however many tickets change (bursts coalesced)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from pathlib import Path

from adapters.store.atomic import read_bytes_bounded, write_text_atomic
from core.errors import CorruptFile, FileAccessError, IdeaError
from core.orchestration.journal import JournalError, decode_journal, encode_journal
from core.orchestration.mailbox import Mailbox
from core.orchestration.tickets import Ticket

log = logging.getLogger(__name__)

JOURNAL = Path(".ideai") / "run" / "tickets.json"
DELAY = 0.2


def journal_path(root: str) -> Path:
    return Path(root) / JOURNAL


def load_journal(root: str) -> tuple[list[Ticket], str | None]:
    """The journaled tickets and a problem to show (None when fine).

    An unreadable journal is moved aside (`tickets.json.bad-<time>`), never overwritten.
    """
    path = journal_path(root)
    try:
        # Bounded like every file idea reads: a huge one is refused unread (and kept).
        data = read_bytes_bounded(path)
        return decode_journal(data), None
    except FileNotFoundError:
        return [], None
    except FileAccessError as exc:
        return [], f"{path}: cannot read ({exc.detail})"
    except (JournalError, CorruptFile) as exc:
        why = exc.detail if isinstance(exc, CorruptFile) else str(exc)
        aside = path.with_name(f"{path.name}.bad-{int(time.time())}")
        try:
            path.rename(aside)
        except OSError:
            aside = path
        return [], f"{path}: {why}; kept as {aside.name}, pending tickets were not restored"


class JournalWriter:
    """Writes each project's journal in a worker thread, one write at a time per project.

    A write is two fsyncs and a folder scan (milliseconds, more on a loaded disk): on the
    loop it stalled every delivery and reply behind it. The tickets are encoded on the loop
    (a consistent snapshot); only the bytes go to the thread. A change while a write runs
    schedules one more write after it, so the last state always reaches the disk.
    """

    def __init__(self) -> None:
        self._scheduled: dict[str, asyncio.TimerHandle] = {}
        self._writing: dict[str, asyncio.Future[None]] = {}
        self._again: set[str] = set()

    def schedule(self, root: str, box: Mailbox) -> None:
        if root in self._writing:
            self._again.add(root)
            return
        if root in self._scheduled:
            return
        loop = asyncio.get_running_loop()
        self._scheduled[root] = loop.call_later(DELAY, self._start, root, box)

    def _start(self, root: str, box: Mailbox) -> None:
        self._scheduled.pop(root, None)
        data = _encode(box)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(None, _write, root, data)
        self._writing[root] = future
        future.add_done_callback(lambda _f: self._done(root, box))

    def _done(self, root: str, box: Mailbox) -> None:
        self._writing.pop(root, None)
        if root in self._again:
            self._again.discard(root)
            self.schedule(root, box)

    async def drain(self) -> None:
        """Wait for the writes in flight (before a final `flush`, which must come last)."""
        for future in list(self._writing.values()):
            with contextlib.suppress(Exception):
                await future

    def flush(self, root: str, box: Mailbox) -> None:
        """Write now, on the caller's thread (the daemon stopping: nothing else runs)."""
        handle = self._scheduled.pop(root, None)
        if handle is not None:
            handle.cancel()
        self._again.discard(root)
        _write(root, _encode(box))


def _encode(box: Mailbox) -> str:
    # What a restart needs (core.orchestration.journal): the unfinished tickets and the
    # finished ones not collected yet. A collected one is history only: journaling every
    # ticket of the day made each write grow with the day's delegations.
    kept = [t for t in box.tickets() if not (t.state.final and t.collected)]
    return encode_journal(kept).decode() + "\n"


def _write(root: str, text: str) -> None:
    path = journal_path(root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, text)
    except (IdeaError, OSError) as exc:
        log.error("ticket journal not written: %s", exc)
