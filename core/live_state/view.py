"""Reading the rows: the lean view (tool, CLI, Work panel) and the injected `# Project state`
(FEATURES.md LIV-3, LIV-5, DECISIONS D13).

Both show previews only and name agents by their names. The injection is bounded twice —
at most `INJECT_MAX_ROWS` rows and `INJECT_MAX_CHARS` characters — leaves the launched agent
out (it knows what it does), and leaves out rows of agents no longer in the project. It
carries no clock time, so the same rows always give the same text (stable convention files,
and a refresh fingerprint that moves only when something an agent would act on moved).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from core.live_state.model import LiveRow, preview
from core.live_state.policy import USER, Rows

INJECT_MAX_ROWS = 12
INJECT_MAX_CHARS = 2000
INTRO = (
    "Who is doing what now in this project (read it again with idea_workstate_read; "
    "keep your own row current with idea_workstate_set):"
)
INTRO_NO_TOOLS = "Who is doing what now in this project (as of your launch):"
"""For an agent without idea's MCP tools (it cannot call idea_workstate_*)."""
MORE_RESERVE = 80
"""Characters kept for the closing "… N more" line."""
Team = Sequence[tuple[str, str]]
"""(agent id, name) in manifest order."""


def ordered(rows: Rows, team: Team) -> list[tuple[str, str, LiveRow]]:
    """(id, name, row) in manifest order; rows of agents not in the manifest last, by id,
    named by their id."""
    names = dict(team)
    known = [(agent_id, name, rows[agent_id]) for agent_id, name in team if agent_id in rows]
    unknown = [(key, key, rows[key]) for key in sorted(rows) if key not in names]
    return known + unknown


def iso_utc(ms: int) -> str:
    stamp = datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def lean_rows(rows: Rows, team: Team) -> list[dict[str, Any]]:
    """The lean read: one small object per row, names instead of ids, text as previews."""
    names = dict(team)
    listed: list[dict[str, Any]] = []
    for agent_id, name, row in ordered(rows, team):
        item: dict[str, Any] = {"agent": name, "id": agent_id, "status": row.status.value}
        if row.task:
            item["task"] = preview(row.task)
        if row.note:
            item["note"] = preview(row.note)
        if row.last_delegation is not None:
            asker = row.last_delegation.from_
            item["askedBy"] = "user" if asker == USER else names.get(asker, asker)
            item["ticket"] = row.last_delegation.ticket
        item["updatedAt"] = iso_utc(row.updated_at_ms)
        listed.append(item)
    return listed


def row_line(name: str, row: LiveRow, *, notes: bool = True) -> str:
    """`- NAME: STATUS — TASK (NOTE)`, each text a preview."""
    line = f"- {name}: {row.status.value}"
    task = preview(row.task)
    if task:
        line += f" — {task}"
    note = preview(row.note) if notes else None
    if note:
        line += f" ({note})"
    return line


def render_state(
    rows: Rows,
    team: Team,
    exclude: str | None,
    *,
    notes: bool = True,
    tools: bool = True,
    max_rows: int = INJECT_MAX_ROWS,
    max_chars: int = INJECT_MAX_CHARS,
) -> str | None:
    """The body of `# Project state` for agent `exclude`, or None when there is no row.

    With more rows than fit, the most recently updated are kept (still shown in manifest
    order) and a last line says how many were left out. `tools` says whether the agent
    can call idea_workstate_read/set (the first line names them). `notes=False` gives the
    material view the refresh fingerprint uses: the rows alone (no first line), without
    their notes — a note changing alone is not worth a refresh.
    """
    members = dict(team)
    candidates = [
        (agent_id, name, row)
        for agent_id, name, row in ordered(rows, team)
        if agent_id != exclude and agent_id in members
    ]
    if not candidates:
        return None
    # Most recent first until either bound is reached, then shown in manifest order.
    recent = sorted(candidates, key=lambda item: (-item[2].updated_at_ms, item[0]))
    intro = INTRO if tools else INTRO_NO_TOOLS
    lines_of: dict[str, str] = {}
    used = len(intro)
    for agent_id, name, row in recent[:max_rows]:
        line = row_line(name, row, notes=notes)
        # Room for this line and, if anything is left out, the closing "more" line.
        reserve = MORE_RESERVE if len(lines_of) + 1 < len(candidates) else 0
        if used + 1 + len(line) + reserve > max_chars:
            break
        lines_of[agent_id] = line
        used += 1 + len(line)
    shown = len(lines_of)
    lines = [intro] + [lines_of[agent_id] for agent_id, _, _ in candidates if agent_id in lines_of]
    left = len(candidates) - shown
    if left:
        lines.append(f"- … {left} more" + (" (idea_workstate_read lists every row)"
                                          if tools else ""))
    return "\n".join(lines if notes else lines[1:])
