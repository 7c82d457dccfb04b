"""The key table, grouped, generated from `idea_tui.keymap` (prefix + ?)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from idea_tui.keymap import ACTIONS, key_label


def help_table(prefix: str) -> Table:
    table = Table(box=None, expand=True, show_header=False, padding=(0, 1))
    table.add_column("keys", style="bold", no_wrap=True, width=16)
    table.add_column("action")
    group = None
    for action in ACTIONS:
        if action.group != group:
            group = action.group
            table.add_row(Text(group, style="bold underline"), "")
        keys = ", ".join(key_label(key) for key in action.keys)
        if action.name == "send_prefix":
            keys = key_label(prefix)
        if not keys:
            keys = "(palette)"
        table.add_row(keys, action.description)
    table.add_row("0 … 9", "Show page N")
    return table


class HelpScreen(ModalScreen[None]):
    """Escape, q or ? closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 80; height: 90%; border: round $accent; padding: 0 1; background: $surface;
    }
    HelpScreen .intro { margin-bottom: 1; }
    """

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(
                f"Press [b]{key_label(self.prefix)}[/b], then one of these keys. Every other key "
                "goes to the focused cell. Escape closes this help.",
                classes="intro",
            )
            yield Static(help_table(self.prefix))

    def on_key(self, event: events.Key) -> None:
        if event.key in ("escape", "q", "question_mark"):
            event.stop()
            self.dismiss(None)
