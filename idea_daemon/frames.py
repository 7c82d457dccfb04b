"""Sending screens to clients: scenes, notices and frames of dirty rows, paced per cell.

`FrameSender` is a collaborator of the server (`idea_daemon.server`), given its clients.

Output from PTYs is not sent as it arrives: sessions mark rows dirty and a flush, at most one
per frame interval, sends each attached client the rows that changed since what that client
last received (a fast-scrolling cell costs one frame per interval, not one message per
read). The focused cell is sent at full rate, other visible cells every 48 ms, hidden cells
not at all. A client that says what it drew (`FramesShown`) is sent other cells' frames
only while it is at most `MAX_UNSHOWN` frames behind: a cell flooding beside the focused
one then never queues frames in front of a typed key's echo (the client draws each cell's
latest rows when it catches up, not every frame in between). A client whose socket buffer
grows too large gets no frames until it drains, then one full repaint.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from adapters.ipc.messages import CellFrame, CellTitle, Clipboard, Notice
from core.terminal import links_of_rows
from idea_daemon.client_connection import ClientConnection
from idea_daemon.echo_turns import EchoFirst
from idea_daemon.scene import build_scene, visible_sessions
from idea_daemon.session import TerminalSession

if TYPE_CHECKING:
    from idea_daemon.service import WorkspaceService

log = logging.getLogger(__name__)

FRAME_INTERVAL = 0.012
UNFOCUSED_INTERVAL = 0.048
LAGGING_BYTES = 1 << 20
SYNC_RETRY = 0.02
LAG_RETRY = 0.05
MAX_UNSHOWN = 1
ECHO_HOLD = 0.1
"""Seconds other cells' frames wait at most, after a key, for the focused cell's echo to be
drawn (its frame first, then the client's whole attention for it)."""
UNSHOWN_RETRY = 0.1
"""A client behind wakes the flush when it says what it drew; this is the fallback."""


class FrameSender:
    """Sends each attached client what changed (the server's collaborator for output).

    It is also the workspace service's `Listener`: the service tells it which windows
    changed, which sessions have output, and what to say on the status line.
    """

    def __init__(
        self,
        clients: dict[int, ClientConnection],
        service: Callable[[], WorkspaceService],
        claim_size: Callable[[ClientConnection], None],
    ) -> None:
        self.clients = clients
        self._service = service
        self._claim_size = claim_size
        self.loop: asyncio.AbstractEventLoop | None = None
        """Set once the server serves; nothing is scheduled before."""
        self._dirty_sessions: set[str] = set()
        self._dirty_scenes: set[str | None] = set()
        self._dirty_titles: set[str] = set()
        self._notices: list[tuple[str | None, str, str]] = []
        self._flush_handle: asyncio.Handle | None = None
        self._last_flush = 0.0
        self._flushed: dict[str, float] = {}
        """When each session's output was last flushed (the pace of its frames)."""
        self.echo_first = EchoFirst()
        """Whose echo is awaited: other cells read short turns meanwhile."""

    # ─── Listener (called by the service) ────────────────────────────────────────────

    def scene_changed(self, window_id: str | None) -> None:
        self._dirty_scenes.add(window_id)
        self._schedule(0.0)

    def title_changed(self, session: TerminalSession) -> None:
        # Paced like output: a program retitling itself in a loop costs one small message
        # per frame interval to the clients that show the cell, and nothing else.
        self._dirty_titles.add(session.id)
        since = time.monotonic() - self._last_flush
        self._schedule(max(0.0, FRAME_INTERVAL - since))

    def output(self, session: TerminalSession) -> None:
        self._dirty_sessions.add(session.id)
        # Leading edge: output after a quiet spell goes out at once (a typed character's
        # echo); during a burst, at most one flush per frame interval. The spell is this
        # cell's own: another cell flooding does not make an echo wait for the next flush.
        since = time.monotonic() - self._flushed.get(session.id, 0.0)
        self._schedule(max(0.0, FRAME_INTERVAL - since))

    def shown(self, client: ClientConnection, count: int) -> None:
        """The client drew `count` frames: send what was kept back for it, now."""
        before = client.frames_shown or 0
        behind = client.unshown > MAX_UNSHOWN
        client.frames_shown = min(max(count, before), client.frames_sent)
        if client.frames_shown > before:
            client.caught_up = time.monotonic()  # it drew until now: other cells rest a while
        echoed = client.echo_frame is not None and before < client.echo_frame <= count
        if ((behind and client.unshown <= MAX_UNSHOWN) or echoed) and self._dirty_sessions:
            self._schedule(0.0)

    def short_turn(self, session_id: str, now: float) -> bool:
        """Whether `session_id` reads one chunk this turn (another cell's echo is due)."""
        return self.echo_first.short_turn(session_id, now)

    def input_waiting(self) -> bool:
        """Whether an attached client's input waits to be read (a reader yields to it)."""
        return self.echo_first.input_waiting()

    def watched_windows(self) -> set[str]:
        return {c.window_id for c in self.clients.values() if c.attached and c.window_id}

    def repaint(self, window_id: str | None) -> None:
        """Send a window's scene (an attaching client's first)."""
        self.scene_changed(window_id)

    def clipboard(self, text: str) -> None:
        """To the most recently active client: the terminal the user is at."""
        attached = [c for c in self.clients.values() if c.attached]
        if attached:
            max(attached, key=lambda c: c.last_active).send(Clipboard(text=text))

    def notify(self, window_id: str | None, text: str, level: str = "info") -> None:
        self._notices.append((window_id, text, level))
        self._schedule(0.0)

    def flush_scenes(self) -> None:
        """Send the scenes a command changed now, before its response: a client that gets
        the response already shows the new layout and focus (keys it held meanwhile then
        go to the cell the user moved to)."""
        if not self._dirty_scenes:
            return
        if self._flush_handle is not None:
            self._flush_handle.cancel()
        self._flush()

    def _schedule(self, delay: float) -> None:
        """Flush in `delay` seconds at the latest: a flush already due sooner stands; one
        due later (a busy cell's pace, a lagging client's retry) is brought forward, so an
        echo never waits behind another cell's slower schedule."""
        loop = self.loop
        if loop is None:
            return
        handle = self._flush_handle
        if handle is not None:
            due = handle.when() if isinstance(handle, asyncio.TimerHandle) else 0.0
            if due <= loop.time() + delay:
                return
            handle.cancel()
        if delay > 0:
            self._flush_handle = loop.call_later(delay, self._flush)
        else:
            self._flush_handle = loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_handle = None
        self._last_flush = time.monotonic()
        service = self._service()
        scenes, self._dirty_scenes = self._dirty_scenes, set()
        dirty, self._dirty_sessions = self._dirty_sessions, set()
        flushed = self._flushed
        if len(flushed) > 4096:
            flushed.clear()  # sessions long gone: only pacing is lost, for one flush
        for session_id in dirty:
            flushed[session_id] = self._last_flush
        titles, self._dirty_titles = self._dirty_titles, set()
        notices, self._notices = self._notices, []
        now = time.monotonic()
        deferred: set[str] = set()
        wake: float | None = None
        for client in list(self.clients.values()):
            if not client.attached:
                continue
            try:
                wake = self._flush_client(
                    client, service, scenes, dirty, notices, now, deferred, wake, titles
                )
            except Exception:
                # A bug drawing one client must not freeze every other client (nor this
                # one for good): log it, and repaint this client whole next time.
                log.exception("flushing client %s failed", client.id)
                client.forget_frames()
                self._dirty_scenes.add(client.window_id)
                deferred |= dirty
                wake = LAG_RETRY
        if deferred:
            self._dirty_sessions |= deferred
            self._schedule(max(wake or FRAME_INTERVAL, 0.001))

    def _flush_client(
        self,
        client: ClientConnection,
        service: WorkspaceService,
        scenes: set[str | None],
        dirty: set[str],
        notices: list[tuple[str | None, str, str]],
        now: float,
        deferred: set[str],
        wake: float | None,
        titles: frozenset[str] | set[str] = frozenset(),
    ) -> float | None:
        """Send one client what changed; returns when the next flush is needed (adding the
        sessions it could not send yet to `deferred`)."""
        if client.buffered() > LAGGING_BYTES:
            # A slow client: skip frames now, repaint it whole once it drained.
            client.lagging = True
            deferred |= dirty
            return min(wake or LAG_RETRY, LAG_RETRY)
        if client.lagging:
            client.lagging = False
            client.forget_frames()
            scenes.add(client.window_id)
        self._ensure_window(client)
        if None in scenes or client.window_id in scenes:
            scene = build_scene(service, client.window_id)
            # The same scene again (a change elsewhere, a notification of nothing visible)
            # would cost the client a rebuild and a repaint of its whole screen for nothing;
            # titles changed since are kept right by `CellTitle` below.
            if scene != client.last_scene:
                client.send(scene)
                client.last_scene = scene
                client.sent_titles = {cell.id: cell.title for cell in scene.cells}
        for window_id, text, level in notices:
            if window_id is None or window_id == client.window_id:
                client.send(Notice(text=text, level=level))
        focused = service.lookups.focused_cell_id(client.window_id)
        # The cell typed into is served like the focused one: its echo never waits for the
        # hold that other cells keep for it.
        typed = client.typed_cell if client.awaiting_echo(now, ECHO_HOLD) else focused
        for cell_id, session in visible_sessions(service, client.window_id):
            first = cell_id in (focused, typed)
            key = (cell_id, session.id)
            if session.id in titles and client.sent_titles.get(cell_id) != session.title:
                client.send(CellTitle(cell=cell_id, title=session.title))
                client.sent_titles[cell_id] = session.title
            if session.id not in dirty and key in client.sent_rows:
                continue
            if session.emulator.synchronized:
                # A frame in progress: show it once complete (time-boxed by the emulator).
                deferred.add(session.id)
                wake = min(wake or SYNC_RETRY, SYNC_RETRY)
                continue
            if not first and key in client.sent_rows:
                if client.awaiting_echo(now, ECHO_HOLD):
                    # A key's echo comes first: this cell's rows wait until it is drawn.
                    deferred.add(session.id)
                    wake = min(wake or FRAME_INTERVAL, FRAME_INTERVAL)
                    continue
                if client.unshown > MAX_UNSHOWN:
                    # The client is still drawing: keep this cell's rows until it is done.
                    deferred.add(session.id)
                    wake = min(wake or UNSHOWN_RETRY, UNSHOWN_RETRY)
                    continue
            # The focused cell at full rate; other visible cells less often, so that busy
            # agents beside it cost the client little (hidden cells cost nothing). A client
            # that was behind gets that interval of rest too: a key's echo then finds it idle.
            interval = FRAME_INTERVAL if first else UNFOCUSED_INTERVAL
            since = client.last_frame.get(key, 0.0)
            if not first:
                since = max(since, client.caught_up)
            wait = since + interval - now
            if wait > 0 and key in client.sent_rows:
                deferred.add(session.id)
                wake = wait if wake is None else min(wake, wait)
                continue
            self._send_frame(client, cell_id, session, cell_id == typed)
            client.last_frame[key] = now
        return wake

    def _ensure_window(self, client: ClientConnection) -> None:
        """A client whose window closed moves to another window."""
        service = self._service()
        ids = {w.id for w in service.workspace.windows}
        if client.window_id not in ids:
            client.window_id = service.project_ops.default_window().id
            client.forget_frames()
            self._claim_size(client)

    def _send_frame(self, client: ClientConnection, cell_id: str, session: TerminalSession,
                    echoes: bool = False) -> None:
        key = (cell_id, session.id)
        emulator = session.emulator
        versions, rendered = session.rendered_rows()
        sent = client.sent_rows.get(key)
        full = sent is None or len(sent) != len(versions)
        if full:
            rows = list(range(len(versions)))
        else:
            assert sent is not None
            rows = [y for y, version in enumerate(versions) if sent[y] != version]
        cursor = emulator.cursor()
        wire_cursor = (cursor.x, cursor.y, cursor.visible, int(cursor.shape))
        if not rows and client.sent_cursor.get(key) == wire_cursor:
            return
        lines = [(y, rendered[y] or ()) for y in rows]
        modes = emulator.modes
        client.send(
            CellFrame(
                cell=cell_id,
                cols=emulator.cols,
                rows=emulator.rows,
                lines=lines,
                cursor=wire_cursor,
                full=full,
                mouse=modes.mouse != 0,
                alt_screen=modes.alt_screen,
                links=links_of_rows(lines),
            )
        )
        client.frames_sent += 1
        if echoes and client.echo_frame is None and client.typed_at:
            client.echo_frame = client.frames_sent
            self.echo_first.echoed(session.id)
        client.sent_rows[key] = list(versions)
        client.sent_cursor[key] = wire_cursor
