"""What an agent changed (w in the Agents panel): in its own worktree, its commits since the
worktree was made and what it has not committed yet, as coloured diffs."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from idea_tui.widgets.diff_view import DiffView

SECTIONS = (("committed", "committed"), ("staged", "staged, not committed"),
            ("unstaged", "not staged"))


def summary(name: str, changes: dict[str, Any]) -> Text:
    text = Text(f" {name} ", style="bold reverse")
    text.append(f"  {changes['branch']} in {changes['path']}", style="bold")
    text.append(f"  (from {changes['base']} at {str(changes['baseOid'])[:10]})\n", style="dim")
    commits = changes["commits"]
    text.append(f"{len(commits)} commit(s)" + (": " if commits else ""), style="bold")
    text.append(" · ".join(c["subject"] for c in commits[:5]) + (" …" if len(commits) > 5 else ""))
    counts = [f"{len(changes[key])} file(s) {label}" for key, label in SECTIONS if changes[key]]
    text.append("\n" + (" · ".join(counts) if counts else "no changes yet"), style="dim")
    return text


class AgentChangesScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    AgentChangesScreen { align: center middle; }
    AgentChangesScreen > Vertical {
        width: 98%; height: 94%; border: round $accent; background: $surface; padding: 0 1;
    }
    AgentChangesScreen DiffView { margin-top: 1; }
    AgentChangesScreen .hint { color: $text-muted; }
    """

    def __init__(self, name: str, changes: dict[str, Any]) -> None:
        super().__init__()
        self.agent_name = name
        self.changes = changes

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(summary(self.agent_name, self.changes))
            yield DiffView()
            yield Static("↑↓ PgUp PgDn: scroll · [ ]: previous/next hunk · Esc: back",
                         classes="hint")

    def on_mount(self) -> None:
        files = [f for key, _ in SECTIONS for f in self.changes[key]]
        view = self.query_one(DiffView)
        view.show(files, "no changes yet")
        view.focus()

    def on_key(self, event: events.Key) -> None:
        if event.key in ("escape", "q"):
            event.stop()
            self.dismiss(None)
        elif event.character in ("[", "]"):
            event.stop()
            self.query_one(DiffView).select_hunk(-1 if event.character == "[" else 1)
