"""Actions on what the grid shows: mouse clicks and drags, the wheel, copy mode.

A collaborator of `idea_tui.actions.ActionRunner` (its `view_actions`): it calls the daemon
through the runner's `call` and shows modal screens through its `ask`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from textual.screen import Screen

from adapters.ipc.messages import BorderInfo
from core.hyperlinks import attach_links
from core.terminal import Row
from idea_tui.copy_mode import CopyMode, Outcome

if TYPE_CHECKING:
    from adapters.ipc.commands import HistoryAnswer
    from idea_tui.ports import AppHost, Runner
    from idea_tui.widgets.workspace_view import WorkspaceView

DRAG_INTERVAL = 0.03
# Lines of history copy mode loads (the most recent ones).
COPY_MODE_LINES = 50_000


class ViewActions:
    """Mouse, wheel and copy mode, for the action runner (`ActionRunner.view_actions`)."""

    def __init__(self, app: AppHost, runner: Runner) -> None:
        self.app = app
        self.runner = runner
        self._last_drag = 0.0
        self._drags = 0
        self._drag_number: int | None = None

    async def call(self, method: str, **params: Any) -> Any:
        """Run a daemon command through the runner (a failure is reported)."""
        return await self.runner.call(method, **params)

    async def ask(self, screen: Screen[Any]) -> Any:
        return await self.runner.ask(screen)

    async def mouse(self, message: WorkspaceView.CellClicked) -> None:
        view = self.app.view
        mirror = view.mirrors.get(message.cell)
        if message.kind == "press" and (view.scene is None or view.scene.focused != message.cell):
            await self.call("select", target=f"%{message.cell}")
        if mirror is not None and mirror.mouse and message.y >= 0 and self.app.gateway:
            event = message.mouse_event
            self.app.gateway.mouse(
                message.cell,
                message.kind,
                message.button,
                message.x,
                message.y,
                shift=event.shift,
                alt=event.meta,
                ctrl=event.ctrl,
            )

    async def drag_border(self, border: BorderInfo, position: int, done: bool) -> None:
        # Every move of one drag carries the drag's number: the daemon makes them one
        # undo step (prefix u puts the border back where the drag started).
        if self._drag_number is None:
            self._drags += 1
            self._drag_number = self._drags
        drag = self._drag_number
        if done:
            self._drag_number = None
        now = time.monotonic()
        if not done and now - self._last_drag < DRAG_INTERVAL:
            return
        self._last_drag = now
        await self.call(
            "set_border",
            container=border.container,
            index=border.index,
            position=position,
            vertical=border.vertical,
            drag=drag,
        )

    async def scroll(self, cell_id: str, lines: int, x: int, y: int) -> None:
        """The wheel over a cell: to the program if it asked for the mouse, else through
        the history (copy mode, left again when scrolled back to the bottom)."""
        view = self.app.view
        mirror = view.mirrors.get(cell_id)
        gateway = self.app.gateway
        if mirror is None or gateway is None:
            return
        if mirror.copy is None:
            if mirror.mouse:
                kind = "wheel_up" if lines > 0 else "wheel_down"
                gateway.mouse(cell_id, kind, 0, max(0, x), max(0, y))
                return
            if mirror.alt_screen:
                # Full-screen programs without mouse reporting get arrow keys, as in
                # xterm's alternate scroll mode.
                for _ in range(abs(lines)):
                    gateway.key(cell_id, "up" if lines > 0 else "down", None)
                return
            if lines < 0:
                return
            await self.enter_copy_mode(cell_id)
        copy = mirror.copy
        if copy is None:
            return
        copy.scroll(lines)
        if copy.scrolled == 0 and copy.anchor is None and lines < 0:
            self.exit_copy_mode(cell_id)
            return
        view.refresh_cell(cell_id)

    async def enter_copy_mode(self, cell_id: str) -> None:
        view = self.app.view
        mirror = view.mirrors.get(cell_id)
        if mirror is None or mirror.copy is not None:
            return
        from adapters.ipc.commands import HistoryAnswer
        from idea_tui.ports import call_as

        info = await call_as(self.runner, HistoryAnswer, "history", target=f"%{cell_id}",
                             start=0, count=0)
        size = info.size if info is not None else 0
        start = max(0, size - COPY_MODE_LINES)
        history: list[Row] = []
        if size:
            chunk = await call_as(self.runner, HistoryAnswer, "history", target=f"%{cell_id}",
                                  start=start, count=size - start)
            if chunk is not None:
                history = history_rows(chunk)
        cursor = (mirror.cursor[0], mirror.cursor[1])
        mirror.copy = CopyMode.start(history, list(mirror.lines), mirror.cols, mirror.rows, cursor)
        self.app.status.set_mode("COPY")
        view.refresh_cell(cell_id)

    def exit_copy_mode(self, cell_id: str) -> None:
        mirror = self.app.view.mirrors.get(cell_id)
        if mirror is not None and mirror.copy is not None:
            mirror.copy = None
            self.app.status.set_mode("")
            self.app.view.refresh_cell(cell_id)

    async def copy_key(self, cell_id: str, key: str, character: str | None) -> bool:
        """A key in copy mode; False when copy mode does not use it."""
        mirror = self.app.view.mirrors.get(cell_id)
        copy = mirror.copy if mirror is not None else None
        if copy is None:
            return False
        outcome = copy.handle_key(key, character)
        if outcome is Outcome.UNHANDLED:
            return False
        if outcome is Outcome.EXIT:
            self.exit_copy_mode(cell_id)
        elif outcome is Outcome.COPY:
            # Textual writes OSC 52: the outer terminal copies it, over ssh too.
            self.app.copy_to_clipboard(copy.copied)
            lines = copy.copied.count("\n") + 1
            self.exit_copy_mode(cell_id)
            self.app.status.show(f"copied {len(copy.copied)} characters ({lines} lines)")
        elif outcome in (Outcome.SEARCH_FORWARD, Outcome.SEARCH_BACKWARD):
            backward = outcome is Outcome.SEARCH_BACKWARD
            self.app.run_worker(self._search(cell_id, copy, backward), group="actions")
        self.app.view.refresh_cell(cell_id)
        return True


    async def _search(self, cell_id: str, copy: CopyMode, backward: bool) -> None:
        from idea_tui.screens.prompt import PromptScreen

        question = "Search back:" if backward else "Search:"
        query = await self.ask(PromptScreen(question, copy.query))
        if query:
            copy.search(query, backward)
            self.app.view.refresh_cell(cell_id)


def _row(row: Any) -> Row:
    return tuple((str(run[0]), int(run[1]), int(run[2]), int(run[3])) for run in row)


def history_rows(answer: HistoryAnswer) -> list[Row]:
    """The scrollback rows of a `history` answer, with their hyperlinks."""
    rows = [_row(row) for row in answer.rows]
    if isinstance(answer.links, list):  # else UNSET: no row has links
        for index, links in answer.links:
            if 0 <= index < len(rows):
                rows[index] = attach_links(rows[index], links)
    return rows


