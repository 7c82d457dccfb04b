"""`ActionListScreen`: the keys shared by the Agents panel and the templates screen.

A table of items, one key per action: Enter on a row and each of the screen's action keys
call `start(key)`; `q` and Escape close the screen.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import ClassVar

from textual import events
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import DataTable

from idea_tui.keymap import normalize_key


class ActionListScreen(ModalScreen[None]):
    """Subclasses set `ACTION_KEYS` and implement `start`."""

    BINDINGS = [Binding("escape", "close", "Close", priority=True)]
    ACTION_KEYS: ClassVar[Collection[str]] = ()
    start: Callable[[str], None]
    """Runs the action bound to a key (Enter: the row's default action)."""

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.start("enter")

    def on_key(self, event: events.Key) -> None:
        key = normalize_key(event.key, event.character)
        if key == "q":
            event.stop()
            self.dismiss(None)
        elif key in self.ACTION_KEYS and key != "enter":
            event.stop()
            self.start(key)

    def action_close(self) -> None:
        self.dismiss(None)
