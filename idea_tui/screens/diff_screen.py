"""`DiffScreen`: a header above a coloured diff, full screen — what a commit changed (the Git
Graph page's Enter) and what an agent changed in its worktree (w in the Agents panel).
↑↓ PgUp PgDn scroll (the DiffView has the focus), [ ] go to the previous/next hunk, Esc or q
go back. A screen says its header and fills the view when it is mounted."""

from __future__ import annotations

from abc import abstractmethod

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from idea_tui.widgets.diff_view import DiffView

HINT = "↑↓ PgUp PgDn: scroll · [ ]: previous/next hunk · Esc: back"


class DiffScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    DiffScreen { align: center middle; }
    DiffScreen > Vertical {
        width: 98%; height: 94%; border: round $accent; background: $surface; padding: 0 1;
    }
    DiffScreen DiffView { margin-top: 1; }
    DiffScreen .hint { color: $text-muted; }
    """

    @abstractmethod
    def header(self) -> Text:
        """What the diff is of (the line or two above it)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.header())
            yield DiffView()
            yield Static(HINT, classes="hint")

    def on_key(self, event: events.Key) -> None:
        if event.key in ("escape", "q"):
            event.stop()
            self.dismiss(None)
        elif event.character in ("[", "]"):
            event.stop()
            self.query_one(DiffView).select_hunk(-1 if event.character == "[" else 1)
