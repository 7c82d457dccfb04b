"""What an agent changed (w in the Agents panel): in its own worktree, its commits since the
worktree was made and what it has not committed yet, as coloured diffs."""

from __future__ import annotations

import msgspec
from rich.text import Text

from adapters.ipc.answers_git import AgentChanges, FileDiff
from idea_tui.screens.diff_screen import DiffScreen
from idea_tui.widgets.diff_view import DiffView

SECTIONS = (("committed", "committed"), ("staged", "staged, not committed"),
            ("unstaged", "not staged"))


def _files(changes: AgentChanges, section: str) -> list[FileDiff]:
    files: list[FileDiff] = getattr(changes, section)
    return files


def summary(name: str, changes: AgentChanges) -> Text:
    text = Text(f" {name} ", style="bold reverse")
    text.append(f"  {changes.branch} in {changes.path}", style="bold")
    text.append(f"  (from {changes.base} at {str(changes.base_oid)[:10]})\n", style="dim")
    commits = changes.commits
    text.append(f"{len(commits)} commit(s)" + (": " if commits else ""), style="bold")
    text.append(" · ".join(c.subject for c in commits[:5]) + (" …" if len(commits) > 5 else ""))
    counts = [f"{len(_files(changes, key))} file(s) {label}" for key, label in SECTIONS
              if _files(changes, key)]
    text.append("\n" + (" · ".join(counts) if counts else "no changes yet"), style="dim")
    return text


class AgentChangesScreen(DiffScreen):
    def __init__(self, name: str, changes: AgentChanges) -> None:
        super().__init__()
        self.agent_name = name
        self.changes = changes

    def header(self) -> Text:
        return summary(self.agent_name, self.changes)

    def on_mount(self) -> None:
        # `DiffView` reads the files as maps: the daemon's own, from the Structs.
        files = [msgspec.to_builtins(f) for key, _ in SECTIONS for f in _files(self.changes, key)]
        view = self.query_one(DiffView)
        view.show(files, "no changes yet")
        view.focus()
