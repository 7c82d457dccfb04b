"""Commands on what runs in a cell: typing, pasting, reading its screen and history,
watching it for activity or silence."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from core.keys import parse_key_spec, wrap_paste
from core.limits import MAX_PATTERN, wait_seconds
from core.terminal import row_text, rows_to_ansi
from idea_daemon.client_connection import ClientConnection
from idea_daemon.commands import Handler, _int, _svc, _target
from idea_daemon.errors import CommandError
from idea_daemon.server import DaemonServer
from idea_daemon.session import TerminalSession


def _running_session(
    server: DaemonServer, client: ClientConnection, params: dict[str, Any]
) -> TerminalSession:
    """The session of the target cell, which must have a running program."""
    ref = _target(server, client, params)
    session = _svc(server).lookups.session_of(ref)
    if session is None or not session.running:
        raise CommandError(f"cell {ref.leaf.id[:8]} has no running program")
    return session


def _write(session: TerminalSession, data: bytes) -> dict[str, int]:
    if not session.write(data):
        raise CommandError("the program is not reading its input (too much is pending)")
    session.note_human_input(data)
    return {"bytes": len(data)}


def send_keys(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    session = _running_session(server, client, params)
    keys = params.get("keys", [])
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        raise CommandError("keys must be a list of strings")
    modes = session.emulator.modes
    if params.get("literal"):
        data = "".join(keys).encode()
    else:
        data = b"".join(parse_key_spec(key, modes) for key in keys)
    return _write(session, data)


def paste(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    session = _running_session(server, client, params)
    return _write(session, wrap_paste(str(params.get("text", "")), session.emulator.modes))


async def capture(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    ref = _target(server, client, params)
    session = service.lookups.session_of(ref)
    if session is None:
        raise CommandError(f"cell {ref.leaf.id[:8]} has no terminal")
    wait = params.get("wait")
    if wait:
        if len(str(wait)) > MAX_PATTERN:
            raise CommandError(f"--wait pattern longer than {MAX_PATTERN} characters")
        try:
            pattern = re.compile(str(wait), re.MULTILINE)
        except re.error as exc:
            raise CommandError(f"bad --wait pattern: {exc}") from exc
        timeout = wait_seconds(params.get("timeout", 10.0))
        if timeout is None:
            raise CommandError("--timeout must be a number of seconds (0 or more)")
        try:
            # Not shielded: on a timeout (or the client leaving) the wait is cancelled, which
            # removes it from the cell.
            await asyncio.wait_for(session.wait_for(pattern), timeout)
        except TimeoutError as exc:
            raise CommandError(f"{wait!r} did not appear within {timeout:g} s", "timeout") from exc
    history = _int(params, "history", 0, 0, 10_000_000)
    emulator = session.emulator
    if session.error is not None:
        # A program that could not start has no screen: its error is what the cell shows.
        return {"text": session.error, "cols": emulator.cols, "rows": emulator.rows,
                "cursor": [0, 0], "cell": ref.leaf.id, "error": session.error}
    rows = []
    if history:
        size = emulator.history_size()
        start = max(0, size - history)
        rows.extend(emulator.render_history(start, size - start))
    rows.extend(emulator.render_row(y) for y in range(emulator.rows))
    if params.get("ansi"):
        text = rows_to_ansi(rows)
    else:
        text = "\n".join(row_text(row).rstrip() for row in rows)
    cursor = emulator.cursor()
    return {
        "text": text,
        "cols": emulator.cols,
        "rows": emulator.rows,
        "cursor": [cursor.x, cursor.y],
        "cell": ref.leaf.id,
    }


def history(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    ref = _target(server, client, params)
    session = service.lookups.session_of(ref)
    if session is None:
        return {"size": 0, "rows": []}
    size = session.emulator.history_size()
    start = _int(params, "start", max(0, size - 100), 0, max(size, 0))
    count = _int(params, "count", 100, 0, 100_000)
    return {
        "size": size,
        "start": start,
        "rows": session.emulator.render_history(start, min(count, size - start)),
    }


def monitor(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    """Watch a cell for activity (output after quiet) or silence (quiet after output)."""
    ref = _target(server, client, params)
    session = _svc(server).lookups.session_of(ref)
    if session is None:
        raise CommandError(f"cell {ref.leaf.id[:8]} has no terminal")
    if "activity" in params:
        session.monitor_activity = bool(params["activity"])
    if "silence" in params:
        seconds = params["silence"]
        if not isinstance(seconds, int | float) or not 0 <= seconds <= 86400:
            raise CommandError("silence must be a number of seconds from 0 (off) to 86400")
        session.monitor_silence = float(seconds)
    return {"activity": session.monitor_activity, "silence": session.monitor_silence}


# The commands of this module, by wire name (the composition root merges the tables).
COMMANDS: dict[str, Handler] = {
    "send_keys": send_keys,
    "paste": paste,
    "capture": capture,
    "history": history,
    "monitor": monitor,
}
