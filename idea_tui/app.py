"""The attached workspace screen: tabs, the grid of cells, the status line.

Thin on purpose: the daemon owns all state. The app shows what the daemon sends (`Scene`,
`CellFrame`, `Notice`), sends keys to the focused cell, and runs the workspace actions of
the key table (`idea_tui.keymap`) through `idea_tui.actions.ActionRunner`.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any

from textual import events
from textual.app import App, ComposeResult

from adapters.ipc.messages import (
    CellFrame,
    CellInfo,
    CellTitle,
    Changed,
    Clipboard,
    DaemonMessage,
    Detached,
    Notice,
    Scene,
)
from idea_tui import callback_counts
from idea_tui.actions import ActionRunner
from idea_tui.control import DaemonError
from idea_tui.gateway import GatewayPort
from idea_tui.git_graph import GraphPage
from idea_tui.keymap import DEFAULT_PREFIX, DIRECTION_KEYS, build_prefix_table, normalize_key
from idea_tui.widgets.bars import StatusBar, TabBar
from idea_tui.widgets.workspace_view import WorkspaceView

log = logging.getLogger(__name__)

Connector = Callable[[int, int], Awaitable[GatewayPort]]
FIRST_RUN_TIMEOUT = 5.0
"""Seconds the first frame waits for the first-run answer (a daemon answers in
milliseconds; this only bounds a daemon that never does)."""
HOLD_LIMIT = 0.5
"""Seconds keys typed after an action's key may wait for it (see `_run_key_action`)."""


class IdeaApp(App[str], inherit_bindings=False):
    """The client. `connect` is called once the screen size is known."""

    CSS_PATH = Path(__file__).with_name("idea.tcss")
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = []
    TITLE = "idea"

    def __init__(self, connect: Connector, *, prefix: str = DEFAULT_PREFIX,
                 after_first_frame: Callable[[], None] | None = None,
                 wizard_due: bool | None = None) -> None:
        super().__init__()
        callback_counts.install()
        self._connect = connect
        # False when the attach already asked (and painted the first frame early): the
        # messages read so far are then shown before the app's own first paint, which
        # thus draws the same frame again, never an empty "connecting" one in between.
        self._wizard_due = wizard_due
        self._after_first_frame = after_first_frame
        self.gateway: GatewayPort | None = None
        self.prefix = prefix
        self.prefix_table = build_prefix_table(prefix)
        self._armed = False
        self._pending_mode: str | None = None
        self.runner = ActionRunner(self)
        self.graph = GraphPage(self.runner)
        self.detach_reason = "detached"
        self.connect_error: DaemonError | None = None
        self.detach_error = False
        self._detached = False
        self._offered_resume = False
        self._live_gateway = False
        # Until the first-run check has answered, what the daemon sends waits here and keys
        # are held: the wizard, when it is needed, appears with the first frame, and keys
        # typed before that frame go to the shell, never half to it and half to the wizard.
        self._first_run_pending = False
        self._early: list[DaemonMessage] = []
        # The grid's size as laid out, sent once the first-run answer is in: sent earlier,
        # it would queue the daemon's relayout ahead of that answer (and of the first frame).
        self._held_size: tuple[int, int] | None = None
        # Keys and pastes typed while a key's action (focus move, split, ...) is on its way
        # to the daemon wait here, then go to the cell the action left focused.
        self._actions_running = 0
        self._held: list[tuple[str, str | None] | str] = []
        self._hold_expired = False
        self._releasing = False
        # Frames applied, and whether the daemon is to hear of them after the next repaint
        # (it keeps busy cells' frames back while the client is still drawing).
        self._frames_got = 0
        self._shown_due = False
        # Keys and pastes handed to the grid (its queue, then `handle_key`) and not yet
        # handled: while there are any, a key may not take the quick way (see `on_event`).
        self._grid_inputs = 0
        self._grid: WorkspaceView | None = None

    def compose(self) -> ComposeResult:
        yield TabBar()
        yield WorkspaceView(id="workspace")
        yield StatusBar()

    @property
    def view(self) -> WorkspaceView:
        return self.query_one(WorkspaceView)

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    async def on_mount(self) -> None:
        view = self._grid = self.view
        view.key_handler = self.handle_key
        view.paste_handler = self.handle_paste
        view.size_handler = self._send_size
        view.welcome_path = os.getcwd()
        view.prefix_label = self.prefix
        view.focus()
        self.status.prefix_label = self.prefix
        # The grid is not laid out yet: its size is the screen's less the two bars.
        width, height = self.size.width, self.size.height - 2
        try:
            gateway = await self._connect(max(width, 1), max(height, 1))
        except DaemonError as exc:
            # Reported by `attach` once the screen is restored (a version mismatch offers
            # a restart there).
            self.connect_error = exc
            self.exit("connection failed")
            return
        self.gateway = gateway
        setter = getattr(gateway, "on_message", None)
        if setter is not None:
            self._first_run_pending = self._wizard_due is not False
            gateway.on_message = self.handle_message  # type: ignore[attr-defined]
            gateway.on_closed = self._on_gateway_closed  # type: ignore[attr-defined]
            gateway.start()  # type: ignore[attr-defined]
            self._live_gateway = True
            if self._first_run_pending:
                self._in_worker(self._first_run_check())
            elif self._after_first_frame is not None:
                self.call_after_refresh(self._after_first_frame)

    async def _first_run_check(self) -> None:
        """Ask whether the first-run wizard is due, then show the first frame: with the
        wizard on top when it is (both are painted together), and hand the keys held
        meanwhile to the shell (they were typed before anything was on screen)."""
        try:
            wizard = await asyncio.wait_for(self.runner.first_run_screen(), FIRST_RUN_TIMEOUT)
        except TimeoutError:
            wizard = None
        if wizard is not None:
            self.push_screen(wizard)
        self._first_run_pending = False
        if self._held_size is not None:
            self._send_size(*self._held_size)
        early, self._early = self._early, []
        for message in early:
            self.handle_message(message)
        await self._release_held()
        if self._after_first_frame is not None:
            self.call_after_refresh(self._after_first_frame)

    def _send_size(self, width: int, height: int) -> None:
        if self._first_run_pending:
            self._held_size = (width, height)
        elif self.gateway is not None and width > 0 and height > 0:
            self.gateway.resize(width, height)

    # ─── daemon messages ─────────────────────────────────────────────────────────────

    def handle_message(self, message: DaemonMessage) -> None:
        if self._first_run_pending and not isinstance(message, Detached):
            self._early.append(message)
            return
        try:
            self._handle_message(message)
        except Exception:
            # One message the client cannot show must not stop it showing the next ones
            # (they come from the gateway's reader, which would otherwise end).
            log.exception("showing %s failed", type(message).__name__)
            self.status.show("a display error happened (see client.log); idea goes on", "error")

    def _handle_message(self, message: DaemonMessage) -> None:
        if isinstance(message, CellFrame):
            self.view.apply_frame(message)
            self._frames_got += 1
            if not self._shown_due:
                self._shown_due = True
                self.call_after_refresh(self._say_frames_shown)
        elif isinstance(message, Scene):
            if not self._offered_resume and message.tabs:
                self._offered_resume = True
                self._in_worker(self.runner.offer_resume())
            self.view.set_scene(message)
            self.graph.on_scene(message)
            self.query_one(TabBar).set_scene(message)
            self.status.set_scene(message)
        elif isinstance(message, CellTitle):
            self.view.set_title(message.cell, message.title)
        elif isinstance(message, Notice):
            self.status.show(message.text, message.level)
        elif isinstance(message, Clipboard):
            # Textual writes OSC 52: the user's terminal copies it.
            self.copy_to_clipboard(message.text)
            self.status.show(f"a program copied {len(message.text)} characters")
        elif isinstance(message, Changed):
            # Whatever shows that topic asks the daemon again (the git panel, the graph).
            self.graph.daemon_changed(message.topic, message.key)
            for screen in self.screen_stack:
                listener = getattr(screen, "daemon_changed", None)
                if callable(listener):
                    listener(message.topic, message.key)
        elif isinstance(message, Detached):
            self._detached = True
            self.detach_reason = message.reason
            self.detach_error = message.error
            self.exit(message.reason)

    def _say_frames_shown(self) -> None:
        if self.view.painting:
            # Rows of those frames are still to be drawn: say so once they are.
            self.call_after_refresh(self._say_frames_shown)
            return
        self._shown_due = False
        if self.gateway is not None:
            self.gateway.frames_shown(self._frames_got)

    def _on_gateway_closed(self, reason: str) -> None:
        # After a Detached the daemon closes the socket: that close is expected and must
        # not replace the reason the daemon gave.
        if self._detached:
            return
        self.detach_reason = reason
        self.detach_error = True
        self.exit(reason)

    # ─── keys ────────────────────────────────────────────────────────────────────────

    async def on_event(self, event: events.Event) -> None:
        # A key for the focused cell's program goes to the daemon from here: Textual would
        # forward it to the grid's queue, one more task switch (0.2 ms) before its echo
        # can start. Only the plain case (`_plain_key_cell`) and only when nothing handed to
        # the grid earlier is still unhandled, so keys keep their order; the App's key
        # handling skipped here is the priority bindings (this app and its default screen
        # have none, see the tests) and the maximized widget's escape (none is maximized).
        grid = self._grid
        if (isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded
                and grid is not None and self.focused is grid):
            if (isinstance(event, events.Key) and not self._grid_inputs
                    and self._quick_key(grid, event)):
                return
            self._grid_inputs += 1
        await super().on_event(event)

    def _quick_key(self, grid: WorkspaceView, event: events.Key) -> bool:
        cell = self._plain_key_cell(event.key, event.character)
        if cell is None or self.gateway is None or self.screen.maximized is not None:
            return False
        self.app_focus = True
        event.stop()
        event.prevent_default()
        self.gateway.key(cell.id, event.key, event.character)
        grid.await_echo()
        return True

    def _plain_key_cell(self, key: str, character: str | None) -> CellInfo | None:
        """The focused cell when `key` goes to its program as it is (nothing held, no
        prefix or mode, no action, no copy mode); None when `_route_key` has more to do."""
        if (self._holding() or self._held or self._pending_mode is not None or self._armed
                or key == self.prefix or self.gateway is None):
            return None
        view = self._grid
        cell = view.focused_cell if view is not None else None
        if cell is None or view is None or not cell.running or cell.kind == "gitGraph":
            return None
        mirror = view.mirrors.get(cell.id)
        if mirror is not None and mirror.copy is not None:
            return None
        return cell

    def _grid_input_done(self) -> None:
        self._grid_inputs = max(0, self._grid_inputs - 1)

    async def handle_key(self, key: str, character: str | None) -> None:
        try:
            if self._holding() or self._held:
                self._held.append((key, character))
                return
            await self._route_key(key, character)
        finally:
            self._grid_input_done()

    async def _route_key(self, key: str, character: str | None) -> None:
        if self._pending_mode is not None:
            mode, self._pending_mode = self._pending_mode, None
            self.status.set_mode("")
            direction = DIRECTION_KEYS.get(key) or DIRECTION_KEYS.get(character or "")
            if direction is not None:
                self._run_key_action(self.runner.run_directional(mode, direction))
            return
        if self._armed:
            self._armed = False
            self.status.set_mode("")
            action = self.prefix_table.get(normalize_key(key, character))
            if action is None:
                self.status.show(f"{self.prefix} {key}: not bound (prefix ? shows the keys)")
                return
            self._run_key_action(self.runner.run(action))
            return
        if key == self.prefix:
            self._armed = True
            self.status.set_mode("PREFIX")
            return
        scene = self.view.scene
        if scene is not None and not scene.tabs and key == "enter":
            self._run_key_action(self.runner.open_here(self.view.welcome_path))
            return
        cell = self.view.focused_cell
        if cell is None or self.gateway is None:
            return
        if cell.kind == "gitGraph":
            # No program here: the graph page itself takes the keys.
            await self.graph.key(key)
            return
        waiting_agent = cell.kind == "agent" and not cell.running
        if key == "enter" and not cell.running and (cell.exit_code is not None or waiting_agent):
            self._run_key_action(self.runner.run("restart_cell"))
            return
        mirror = self.view.mirrors.get(cell.id)
        if mirror is not None and mirror.copy is not None:
            if await self.runner.view_actions.copy_key(cell.id, key, character):
                return
            # A key copy mode does not use leaves it and goes to the program.
            self.runner.view_actions.exit_copy_mode(cell.id)
        self.gateway.key(cell.id, key, character)
        self.view.await_echo()

    def _in_worker(self, work: Coroutine[Any, Any, None]) -> None:
        # Actions may open a modal screen and wait for its answer: they run as workers so
        # that the grid keeps handling keys and frames meanwhile.
        self.run_worker(work, group="actions")

    def _run_key_action(self, work: Coroutine[Any, Any, None]) -> None:
        """Run a key's action holding the keys typed after it until it is done (the daemon
        sends the new focus before its answer), so that prefix ← then `ls` types `ls` in
        the cell on the left however fast it is typed. An action that takes longer (a
        dialog) releases them after HOLD_LIMIT seconds: typing is delayed, never lost."""
        self._actions_running += 1
        if self._actions_running == 1:
            self._hold_expired = False
            self.set_timer(HOLD_LIMIT, self._expire_hold)

        async def held() -> None:
            try:
                await work
            finally:
                self._actions_running -= 1
                if self._actions_running == 0:
                    await self._release_held()

        self._in_worker(held())

    def _holding(self) -> bool:
        if self._first_run_pending:
            return True
        return self._actions_running > 0 and not self._hold_expired

    async def _expire_hold(self) -> None:
        if self._actions_running > 0:
            self._hold_expired = True
            await self._release_held()

    async def _release_held(self) -> None:
        # In order (keys typed meanwhile queue behind); a held key that starts another
        # action holds the ones after it again.
        if self._releasing:
            return
        self._releasing = True
        try:
            while self._held and not self._holding():
                item = self._held.pop(0)
                if isinstance(item, str):
                    await self._route_paste(item)
                else:
                    await self._route_key(*item)
        finally:
            self._releasing = False

    def start_mode(self, mode: str, label: str) -> None:
        self._pending_mode = mode
        self.status.set_mode(label)

    async def handle_paste(self, text: str) -> None:
        try:
            if self._holding() or self._held:
                self._held.append(text)
                return
            await self._route_paste(text)
        finally:
            self._grid_input_done()

    async def _route_paste(self, text: str) -> None:
        cell = self.view.focused_cell
        if cell is not None and self.gateway is not None:
            self.gateway.paste(cell.id, text)
            self.view.await_echo()

    # ─── mouse ───────────────────────────────────────────────────────────────────────

    async def on_workspace_view_cell_clicked(self, message: WorkspaceView.CellClicked) -> None:
        await self.runner.view_actions.mouse(message)

    async def on_workspace_view_border_dragged(self, message: WorkspaceView.BorderDragged) -> None:
        await self.runner.view_actions.drag_border(message.border, message.position, message.done)

    async def on_workspace_view_cell_scrolled(self, message: WorkspaceView.CellScrolled) -> None:
        await self.runner.view_actions.scroll(message.cell, message.lines, message.x, message.y)

    async def on_tab_bar_tab_clicked(self, message: TabBar.TabClicked) -> None:
        await self.runner.call("project_switch", which=str(message.index))

    async def on_tab_bar_tab_retry(self, message: TabBar.TabRetry) -> None:
        # An unavailable project's tab: open it again (the status line says why it failed).
        await self.runner.call("project_open", path=message.root)
