"""The ticket journal: what survives a daemon restart (D27).

One JSON document per project, `.ideai/run/tickets.json` (runtime state, gitignored with
`run/`): `{"version": 1, "tickets": [Ticket, ...]}` in camelCase, unfinished tickets and the
finished ones still waiting to be collected. This module only encodes and decodes; the
daemon writes it atomically, coalescing bursts of changes.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from core.orchestration.tickets import Ticket

JOURNAL_VERSION = 1


class Journal(msgspec.Struct, kw_only=True):
    version: int = JOURNAL_VERSION
    tickets: list[Ticket] = msgspec.field(default_factory=list)


class JournalError(ValueError):
    """The journal cannot be read (corrupt, or written by a newer idea)."""


def encode_journal(tickets: Iterable[Ticket]) -> bytes:
    return msgspec.json.format(msgspec.json.encode(Journal(tickets=list(tickets))), indent=2)


def decode_journal(data: bytes) -> list[Ticket]:
    """Raises: JournalError, with a sentence saying why."""
    try:
        header = msgspec.json.decode(data, type=dict[str, object])
    except msgspec.DecodeError as exc:
        raise JournalError(f"not JSON ({exc})") from exc
    version = header.get("version")
    if isinstance(version, int) and version > JOURNAL_VERSION:
        raise JournalError(f"written by a newer idea (version {version})")
    try:
        return msgspec.json.decode(data, type=Journal).tickets
    except msgspec.ValidationError as exc:
        raise JournalError(str(exc)) from exc
