"""A commit's diff, full screen (Enter on the Git Graph page)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import msgspec
from rich.text import Text

from adapters.ipc.answers_git import GitDiff
from idea_tui.ports import attempt_as
from idea_tui.screens.diff_screen import DiffScreen
from idea_tui.widgets.diff_view import DiffView

if TYPE_CHECKING:
    from idea_tui.ports import Runner


def commit_header(entry: dict[str, Any]) -> Text:
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(entry["time"] + 60 * entry["offset"]))
    text = Text(f" {entry['oid'][:12]} ", style="bold reverse")
    text.append(f"  {entry['subject']}\n", style="bold")
    text.append(f"{entry['author']} <{entry.get('email', '')}>  {when}", style="dim")
    if len(entry["parents"]) > 1:
        text.append(f"  merge of {', '.join(p[:8] for p in entry['parents'])}"
                    " (shown against the first parent)", style="dim")
    return text


class CommitDiffScreen(DiffScreen):
    """`files` given: shown as is (snapshot tests); else read with git_diff."""

    def __init__(self, runner: Runner | None, entry: dict[str, Any],
                 files: list[dict[str, Any]] | None = None) -> None:
        super().__init__()
        self.runner = runner
        self.entry = entry
        self.files = files

    def header(self) -> Text:
        return commit_header(self.entry)

    async def on_mount(self) -> None:
        view = self.query_one(DiffView)
        view.focus()
        if self.files is not None:
            view.show(self.files)
        elif self.runner is not None:
            view.show([], "reading the diff…")
            answer, diff = await attempt_as(self.runner, GitDiff, "git_diff", target="commit",
                                            new=self.entry["oid"])
            # `DiffView` reads the files as maps: the daemon's own, from the Structs.
            view.show(msgspec.to_builtins(diff.files) if diff is not None else [],
                      answer.error or "")
