"""The ticket journal on disk: `.ideai/run/tickets.json` (D27), written atomically and at
most once per `DELAY` however many tickets change (bursts coalesced)."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

from adapters.store.atomic import write_text_atomic
from core.errors import IdeaError
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
        data = path.read_bytes()
    except FileNotFoundError:
        return [], None
    except OSError as exc:
        return [], f"{path}: cannot read ({exc.strerror})"
    try:
        return decode_journal(data), None
    except JournalError as exc:
        aside = path.with_name(f"{path.name}.bad-{int(time.time())}")
        try:
            path.rename(aside)
        except OSError:
            aside = path
        return [], f"{path}: {exc}; kept as {aside.name}, pending tickets were not restored"


class JournalWriter:
    def __init__(self) -> None:
        self._scheduled: dict[str, asyncio.TimerHandle] = {}

    def schedule(self, root: str, box: Mailbox) -> None:
        if root in self._scheduled:
            return
        loop = asyncio.get_running_loop()
        self._scheduled[root] = loop.call_later(DELAY, self._write, root, box)

    def flush(self, root: str, box: Mailbox) -> None:
        handle = self._scheduled.pop(root, None)
        if handle is not None:
            handle.cancel()
        self._write(root, box, scheduled=False)

    def _write(self, root: str, box: Mailbox, scheduled: bool = True) -> None:
        if scheduled:
            self._scheduled.pop(root, None)
        path = journal_path(root)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(path, encode_journal(box.tickets()).decode() + "\n")
        except (IdeaError, OSError) as exc:
            log.error("ticket journal not written: %s", exc)
