"""What changes the rows, and how they are read (FEATURES.md LIV-2..LIV-4, DECISIONS D13).

Pure functions over `{agent id: LiveRow}`: a new mapping comes back, the argument is never
changed. Two kinds of writers:

- an agent, through `idea_workstate_set`, for its own row only (`agent_update`);
- the daemon, at zero token cost, when a delegation is accepted or ends (`ask_accepted`,
  `reply_returned`, `ask_ended`). Those texts are previews, so a derived row always fits.

Reading prunes: rows older than the TTL go, then all but the `MAX_ROWS` most recent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import msgspec

from core.live_state.model import (
    MAX_ROWS,
    TTL_MS,
    Delegation,
    LiveRow,
    WorkStatus,
    check_row,
    preview,
)

Rows = Mapping[str, LiveRow]
USER = "user"
"""The requester id of the person at the keyboard (as in core.orchestration.tickets)."""


def agent_update(
    rows: Rows,
    agent_id: str,
    status: WorkStatus,
    task: str | None,
    note: str | None,
    now_ms: int,
) -> dict[str, LiveRow]:
    """The agent's own row set: a field left out (None) keeps its previous value.

    Raises:
        RowTooLarge: The row would be over 2 KiB; the rows are unchanged.
    """
    previous = rows.get(agent_id)
    row = LiveRow(
        status=status,
        task=task if task is not None else (previous.task if previous else None),
        note=note if note is not None else (previous.note if previous else None),
        last_delegation=previous.last_delegation if previous else None,
        updated_at_ms=now_ms,
    )
    return {**rows, agent_id: check_row(row)}


def ask_accepted(
    rows: Rows,
    *,
    requester: str,
    requester_name: str,
    target: str,
    target_name: str,
    ticket: str,
    task: str,
    now_ms: int,
) -> dict[str, LiveRow]:
    """The target works on the caller's task; the caller (an agent) waits for it."""
    updated = dict(rows)
    updated[target] = LiveRow(
        status=WorkStatus.WORKING,
        task=preview(task),
        note=preview(f"on {requester_name}'s ticket {ticket}"),
        last_delegation=Delegation(from_=requester, ticket=ticket, at_ms=now_ms),
        updated_at_ms=now_ms,
    )
    if requester != USER:
        mine = rows.get(requester)
        updated[requester] = LiveRow(
            status=WorkStatus.WAITING,
            task=mine.task if mine else None,
            note=preview(f"waiting for {target_name} (ticket {ticket})"),
            last_delegation=mine.last_delegation if mine else None,
            updated_at_ms=now_ms,
        )
    return updated


def reply_returned(
    rows: Rows,
    *,
    requester: str,
    requester_name: str,
    target: str,
    target_name: str,
    ticket: str,
    now_ms: int,
) -> dict[str, LiveRow]:
    """The target is done with the ticket; a caller that was waiting works again."""
    updated = dict(rows)
    theirs = rows.get(target)
    updated[target] = LiveRow(
        status=WorkStatus.DONE,
        task=theirs.task if theirs else None,
        note=preview(f"replied to {requester_name} (ticket {ticket})"),
        last_delegation=(
            theirs.last_delegation
            if theirs and theirs.last_delegation
            else Delegation(from_=requester, ticket=ticket, at_ms=now_ms)
        ),
        updated_at_ms=now_ms,
    )
    _resume_caller(updated, rows, requester, f"{target_name} replied (ticket {ticket})", now_ms)
    return updated


def ask_ended(
    rows: Rows,
    *,
    requester: str,
    target: str,
    target_name: str,
    ticket: str,
    outcome: str,
    now_ms: int,
) -> dict[str, LiveRow]:
    """A ticket ended without a reply (timed out, cancelled, failed).

    The caller stops waiting; the target, if its row is still about this ticket, is idle.
    """
    updated = dict(rows)
    theirs = rows.get(target)
    if (
        theirs is not None
        and theirs.status is WorkStatus.WORKING
        and theirs.last_delegation is not None
        and theirs.last_delegation.ticket == ticket
    ):
        updated[target] = msgspec.structs.replace(
            theirs,
            status=WorkStatus.IDLE,
            note=preview(f"ticket {ticket} {outcome}"),
            updated_at_ms=now_ms,
        )
    _resume_caller(
        updated, rows, requester, f"ticket {ticket} to {target_name} {outcome}", now_ms
    )
    return updated


def _resume_caller(
    updated: dict[str, LiveRow], rows: Rows, requester: str, note: str, now_ms: int
) -> None:
    mine = rows.get(requester)
    if requester == USER or mine is None or mine.status is not WorkStatus.WAITING:
        return
    updated[requester] = msgspec.structs.replace(
        mine, status=WorkStatus.WORKING, note=preview(note), updated_at_ms=now_ms
    )


def prune(
    rows: Rows, now_ms: int, ttl_ms: int = TTL_MS, max_rows: int = MAX_ROWS
) -> dict[str, LiveRow]:
    """Rows updated within the TTL, at most `max_rows` of them (the most recent kept).

    A row stamped in the future (a clock that went back) counts as fresh.
    """
    fresh = [(key, row) for key, row in rows.items() if now_ms - row.updated_at_ms <= ttl_ms]
    fresh.sort(key=lambda item: (-item[1].updated_at_ms, item[0]))
    return dict(fresh[:max_rows])


def forget(rows: Rows, agent_ids: Iterable[str]) -> dict[str, LiveRow]:
    """The rows without those agents' (agents deleted from the project)."""
    gone = set(agent_ids)
    return {key: row for key, row in rows.items() if key not in gone}
