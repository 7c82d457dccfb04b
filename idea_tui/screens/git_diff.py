"""A commit's diff, full screen (Enter on the Git Graph page)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

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


class CommitDiffScreen(ModalScreen[None]):
    """`files` given: shown as is (snapshot tests); else read with git_diff."""

    DEFAULT_CSS = """
    CommitDiffScreen { align: center middle; }
    CommitDiffScreen > Vertical {
        width: 98%; height: 94%; border: round $accent; background: $surface; padding: 0 1;
    }
    CommitDiffScreen DiffView { margin-top: 1; }
    CommitDiffScreen .hint { color: $text-muted; }
    """

    def __init__(self, runner: Runner | None, entry: dict[str, Any],
                 files: list[dict[str, Any]] | None = None) -> None:
        super().__init__()
        self.runner = runner
        self.entry = entry
        self.files = files

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(commit_header(self.entry))
            yield DiffView()
            yield Static("↑↓ PgUp PgDn: scroll · [ ]: previous/next hunk · Esc: back",
                         classes="hint")

    async def on_mount(self) -> None:
        view = self.query_one(DiffView)
        view.focus()
        if self.files is not None:
            view.show(self.files)
        elif self.runner is not None:
            view.show([], "reading the diff…")
            answer = await self.runner.attempt("git_diff", target="commit", new=self.entry["oid"])
            view.show(answer.result["files"] if answer.ok else [], answer.error or "")

    def on_key(self, event: events.Key) -> None:
        if event.key in ("escape", "q"):
            event.stop()
            self.dismiss(None)
        elif event.character in ("[", "]"):
            event.stop()
            self.query_one(DiffView).select_hunk(-1 if event.character == "[" else 1)
