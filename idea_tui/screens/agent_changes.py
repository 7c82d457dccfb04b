"""What an agent changed (w in the Agents panel): in its own worktree, its commits since the
worktree was made and what it has not committed yet, as coloured diffs."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from idea_tui.screens.diff_screen import DiffScreen
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


class AgentChangesScreen(DiffScreen):
    def __init__(self, name: str, changes: dict[str, Any]) -> None:
        super().__init__()
        self.agent_name = name
        self.changes = changes

    def header(self) -> Text:
        return summary(self.agent_name, self.changes)

    def on_mount(self) -> None:
        files = [f for key, _ in SECTIONS for f in self.changes[key]]
        view = self.query_one(DiffView)
        view.show(files, "no changes yet")
        view.focus()
