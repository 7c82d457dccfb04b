"""Commands on what runs in a cell: typing, pasting, reading its screen and history,
watching it for activity or silence."""

from __future__ import annotations

import asyncio
import itertools
import re
from collections.abc import Iterable

import msgspec

from adapters.ipc import commands as rpc
from core.keys import parse_key_spec, wrap_paste
from core.limits import MAX_PATTERN, wait_seconds
from core.terminal import Row, history_rows, links_of_rows, row_text, rows_to_ansi
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands import _svc, target
from idea_daemon.errors import CommandError
from idea_daemon.server import DaemonServer
from idea_daemon.session import TerminalSession


def _running_session(server: DaemonServer, client: ClientConnection,
                     cell: str | None) -> TerminalSession:
    """The session of the target cell, which must have a running program."""
    ref = target(server, client, cell)
    session = _svc(server).lookups.session_of(ref)
    if session is None or not session.running:
        raise CommandError(f"cell {ref.leaf.id[:8]} has no running program")
    return session


def _write(session: TerminalSession, data: bytes) -> rpc.WriteAnswer:
    if not session.write(data):
        raise CommandError("the program is not reading its input (too much is pending)")
    session.note_human_input(data)
    return rpc.WriteAnswer(bytes=len(data))


def send_keys(server: DaemonServer, client: ClientConnection,
              p: rpc.SendKeysParams) -> rpc.WriteAnswer:
    session = _running_session(server, client, p.target)
    modes = session.emulator.modes
    if p.literal:
        data = "".join(p.keys).encode()
    else:
        data = b"".join(parse_key_spec(key, modes) for key in p.keys)
    return _write(session, data)


def paste(server: DaemonServer, client: ClientConnection,
          p: rpc.PasteParams) -> rpc.WriteAnswer:
    session = _running_session(server, client, p.target)
    return _write(session, wrap_paste(p.text, session.emulator.modes))


async def capture(server: DaemonServer, client: ClientConnection,
                  p: rpc.CaptureParams) -> rpc.CaptureAnswer:
    service = _svc(server)
    ref = target(server, client, p.target)
    session = service.lookups.session_of(ref)
    if session is None:
        raise CommandError(f"cell {ref.leaf.id[:8]} has no terminal")
    if p.wait:
        if len(p.wait) > MAX_PATTERN:
            raise CommandError(f"--wait pattern longer than {MAX_PATTERN} characters")
        try:
            pattern = re.compile(p.wait, re.MULTILINE)
        except re.error as exc:
            raise CommandError(f"bad --wait pattern: {exc}") from exc
        timeout = wait_seconds(p.timeout)
        if timeout is None:
            raise CommandError("--timeout must be a number of seconds (0 or more)")
        try:
            # Not shielded: on a timeout (or the client leaving) the wait is cancelled, which
            # removes it from the cell.
            await asyncio.wait_for(session.wait_for(pattern), timeout)
        except TimeoutError as exc:
            raise CommandError(f"{p.wait!r} did not appear within {timeout:g} s",
                               "timeout") from exc
    emulator = session.emulator
    if session.error is not None:
        # A program that could not start has no screen: its error is what the cell shows.
        return rpc.CaptureAnswer(text=session.error, cols=emulator.cols, rows=emulator.rows,
                                 cursor=[0, 0], cell=ref.leaf.id, error=session.error)
    rows: Iterable[Row] = (emulator.render_row(y) for y in range(emulator.rows))
    if p.history:
        size = emulator.history_size()
        start = max(0, size - p.history)
        # Read a block at a time as the text is made (all at once, 10,000 lines of history
        # were some 40 MB of rows at the peak).
        rows = itertools.chain(history_rows(emulator, start, size - start), rows)
    text = rows_to_ansi(rows) if p.ansi else "\n".join(row_text(r).rstrip() for r in rows)
    cursor = emulator.cursor()
    return rpc.CaptureAnswer(text=text, cols=emulator.cols, rows=emulator.rows,
                             cursor=[cursor.x, cursor.y], cell=ref.leaf.id)


def history(server: DaemonServer, client: ClientConnection,
            p: rpc.HistoryParams) -> rpc.HistoryAnswer:
    service = _svc(server)
    ref = target(server, client, p.target)
    session = service.lookups.session_of(ref)
    if session is None:
        return rpc.HistoryAnswer(size=0, rows=[])
    size = session.emulator.history_size()
    start = max(0, size - 100) if p.start is None else p.start
    if start > size:
        raise CommandError(f"start must be a whole number from 0 to {size}", "bad_request")
    rows = session.emulator.render_history(start, min(p.count, size - start))
    links = links_of_rows(enumerate(rows))
    return rpc.HistoryAnswer(size=size, start=start, rows=list(rows),
                             links=links if links else msgspec.UNSET)


def monitor(server: DaemonServer, client: ClientConnection,
            p: rpc.MonitorParams) -> rpc.MonitorAnswer:
    """Watch a cell for activity (output after quiet) or silence (quiet after output)."""
    ref = target(server, client, p.target)
    session = _svc(server).lookups.session_of(ref)
    if session is None:
        raise CommandError(f"cell {ref.leaf.id[:8]} has no terminal")
    if p.activity is not None:
        session.monitor_activity = p.activity
    if p.silence is not None:
        session.monitor_silence = p.silence
    return rpc.MonitorAnswer(activity=session.monitor_activity,
                             silence=session.monitor_silence)


COMMANDS = entries(
    command("send_keys", rpc.SendKeysParams, rpc.WriteAnswer, send_keys),
    command("paste", rpc.PasteParams, rpc.WriteAnswer, paste),
    command("capture", rpc.CaptureParams, rpc.CaptureAnswer, capture),
    command("history", rpc.HistoryParams, rpc.HistoryAnswer, history),
    command("monitor", rpc.MonitorParams, rpc.MonitorAnswer, monitor),
)
"""The commands of this module (the composition root merges the tables)."""
