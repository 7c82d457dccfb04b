"""The git panel (prefix + G, GIT-2): the branch with ahead/behind, the conflicted, staged,
unstaged and untracked files, the selected file's diff (syntax-coloured; one hunk can be
staged or unstaged alone), a commit message box, branch switching and the recent log.

It never polls: it asks the daemon to watch the repository (`git_watch`) and refreshes when
the daemon says it changed (`daemon_changed`, from a `Changed` message), or after an action.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import msgspec
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from adapters.ipc.answers_git import Branch, GitCommitted, GitDiff, GitLog, GitStatus, GitWatching
from idea_tui.ports import attempt_as, attempt_list
from idea_tui.widgets.diff_view import DiffView
from idea_tui.widgets.message_line import MessageLine

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Status = dict[str, Any]
SECTIONS = (
    ("conflicted", "Conflicts", "conflict"),
    ("staged", "Staged", "staged"),
    ("unstaged", "Unstaged", "unstaged"),
    ("untracked", "Untracked", None),
)
MARK_STYLES = {"A": "green", "M": "yellow", "D": "red", "T": "magenta"}
HINTS = (
    "s/Space: stage · u: unstage · d: discard · [ ]: hunk · h: stage/unstage the hunk\n"
    "c: commit message · b: branch · F: fetch · P: pull · p: push · g: graph page · r: refresh\n"
    "i: init · Esc: close"
)
REMOTE_WORDS = {"git_fetch": ("fetch", "fetching", "fetched"),
                "git_pull": ("pull", "pulling", "pulled"),
                "git_push": ("push", "pushing", "pushed")}
LOG_LINES = 6


def head_text(status: Status | None, problem: str = "") -> Text:
    if status is None:
        return Text(problem or "reading the repository…", style="bold yellow" if problem else "dim")
    branch = status["branch"] or f"detached at {str(status['head'])[:10]}"
    text = Text(f" {branch} ", style="bold reverse")
    if status["head"] is None:
        text.append("  no commits yet", style="dim")
    if status["upstream"]:
        text.append(f"  ← {status['upstream']}")
        if status["ahead"]:
            text.append(f"  ↑{status['ahead']}", style="bold green")
        if status["behind"]:
            text.append(f"  ↓{status['behind']}", style="bold yellow")
    if status["state"] != "none":
        text.append(f"  {status['state'].upper()}: finish or abort it", style="bold red")
    text.append(f"  ({status['adapter']})", style="dim")
    return text


def log_text(entries: list[dict[str, Any]]) -> Text:
    text = Text()
    for entry in entries[:LOG_LINES]:
        text.append(f"{entry['oid'][:8]} ", style="yellow")
        text.append(entry["subject"])
        text.append(f"  {entry['author']}\n", style="dim")
    if not entries:
        text.append("no commits yet", style="dim italic")
    return text


class GitScreen(ModalScreen[None]):
    """`status`, `log` and `diffs` (by row key) may be given (snapshot tests: no daemon);
    with a runner, the panel reads them and follows the repository's changes."""

    DEFAULT_CSS = """
    GitScreen { align: center middle; }
    GitScreen > Vertical {
        width: 98%; height: 94%; border: round $accent; background: $surface; padding: 0 1;
    }
    GitScreen #git-body { height: 1fr; margin-top: 1; }
    GitScreen #git-left { width: 42%; min-width: 30; }
    GitScreen #git-files { height: 1fr; }
    GitScreen #git-log {
        height: auto; max-height: 8; margin-top: 1; color: $text;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    GitScreen DiffView { width: 1fr; border-left: solid $accent; padding-left: 1; }
    GitScreen Input { margin-top: 1; }
    GitScreen .hint { color: $text-muted; }
    """

    def __init__(self, runner: Runner | None, *, status: Status | None = None,
                 log: list[dict[str, Any]] | None = None,
                 diffs: dict[str, list[dict[str, Any]]] | None = None,
                 path: str | None = None) -> None:
        super().__init__()
        self.runner = runner
        self.status = status
        self.history = log or []
        self.diffs = diffs or {}
        self.path = path
        self.root: str | None = status["root"] if status else None
        self.problem = ""
        self.rows: list[tuple[str, dict[str, Any] | None]] = []
        # Set by `c` at once: focus moves to the message box only after the keys already
        # queued, so keys typed right after `c` are text for the box, never panel commands.
        self.composing = False
        self.remote: list[str] = []
        """The fetches, pulls and pushes running (`git_fetch`…): Esc / ctrl+c cancels them."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(head_text(self.status), id="git-head")
            with Horizontal(id="git-body"):
                with Vertical(id="git-left"):
                    yield DataTable(id="git-files", cursor_type="row", show_header=False)
                    yield Static(log_text(self.history), id="git-log")
                yield DiffView(id="git-diff")
            yield Input(placeholder="Commit message — Enter commits the staged changes",
                        id="git-message")
            yield MessageLine(id="git-said")
            yield Static(HINTS, classes="hint", id="git-hint")

    async def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column("mark", width=3)
        table.add_column("path")
        self._fill()
        table.focus()
        if self.runner is not None:
            self.run_worker(self._start(), group="git")
        else:
            self._show_selected_diff()

    def _where(self) -> dict[str, Any]:
        return {"path": self.path} if self.path else {}

    async def _start(self) -> None:
        assert self.runner is not None
        _, watched = await attempt_as(self.runner, GitWatching, "git_watch", **self._where())
        if watched is not None:
            self.root = watched.root
        await self.refresh_all()

    # ─── data ────────────────────────────────────────────────────────────────────────

    def daemon_changed(self, topic: str, key: str) -> None:
        """The daemon says the repository changed (files, the index, a commit)."""
        if topic == "git" and key == self.root and self.runner is not None:
            self.run_worker(self.refresh_all, group="git",  # type: ignore[arg-type]
                            exclusive=True)  # a callable: a cancelled worker never made a coroutine

    async def refresh_all(self) -> None:
        if self.runner is None:
            return
        answer, status = await attempt_as(self.runner, GitStatus, "git_status", **self._where())
        if status is None:
            self.status, self.problem = None, answer.error or ""
            if answer.code == "NotARepository":
                self.problem += "  (i: make it one)"
            self.query_one("#git-head", Static).update(head_text(None, self.problem))
            self._fill()
            return
        # The rows stay maps: the snapshot tests give the panel maps, and `DiffView`
        # reads the files as maps (`msgspec.to_builtins` gives the daemon's own map).
        self.status, self.problem = msgspec.to_builtins(status), ""
        self.root = status.root
        _, log = await attempt_as(self.runner, GitLog, "git_log", **self._where(),
                                  limit=LOG_LINES)
        self.history = msgspec.to_builtins(log.entries) if log is not None else []
        self.query_one("#git-head", Static).update(head_text(self.status))
        self.query_one("#git-log", Static).update(log_text(self.history))
        self._fill()
        await self._load_selected_diff()

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        keep = table.cursor_row
        # A refresh keeps the cursor on the same row (a section header, or a file) when it
        # is still there, so a refresh between two keys never changes what the second acts on.
        was = self._row_key(self.rows[keep]) if 0 <= keep < len(self.rows) else None
        table.clear()
        self.rows = []
        if self.status is None:
            return
        for section, title, key in SECTIONS:
            items = self.status[section]
            if not items:
                continue
            table.add_row(Text(""), Text(f"{title} ({len(items)})", style="bold"))
            self.rows.append((section, None))
            for item in items:
                letter = item.get(key, "?") if key else "?"
                mark = Text(letter, style=MARK_STYLES.get(letter[:1], "cyan"))
                shown = item["path"] if "\n" not in item["path"] else repr(item["path"])
                table.add_row(mark, Text(shown))
                self.rows.append((section, item))
        if self.rows:
            keys = [self._row_key(row) for row in self.rows]
            if was is not None and was in keys:
                table.move_cursor(row=keys.index(was))
                return
            wanted = keep if 0 <= keep < len(self.rows) else 0
            if self.rows[wanted][1] is None and wanted + 1 < len(self.rows):
                wanted += 1
            table.move_cursor(row=wanted)

    @staticmethod
    def _row_key(row: tuple[str, dict[str, Any] | None]) -> tuple[str, str | None]:
        section, item = row
        return section, (item["path"] if item is not None else None)

    def _selected(self) -> tuple[str, dict[str, Any] | None] | None:
        row = self.query_one(DataTable).cursor_row
        return self.rows[row] if 0 <= row < len(self.rows) else None

    @staticmethod
    def _wire_path(item: dict[str, Any]) -> dict[str, Any]:
        return {k: item[k] for k in ("path", "pathHex") if k in item}

    def _diff_key(self) -> str | None:
        chosen = self._selected()
        if chosen is None or chosen[1] is None:
            return None
        return f"{chosen[0]}:{chosen[1]['path']}"

    def _show_selected_diff(self) -> None:
        key = self._diff_key()
        view = self.query_one(DiffView)
        chosen = self._selected()
        if chosen is not None and chosen[0] == "untracked":
            view.show([], "untracked file: s stages it")
        else:
            view.show(self.diffs.get(key, []) if key else [])

    async def _load_selected_diff(self) -> None:
        chosen = self._selected()
        if self.runner is None or chosen is None or chosen[1] is None:
            self._show_selected_diff()
            return
        section, item = chosen
        if section == "untracked" or item is None:
            self._show_selected_diff()
            return
        target = "staged" if section == "staged" else "worktree"
        _, diff = await attempt_as(self.runner, GitDiff, "git_diff", **self._where(),
                                   target=target, files=[self._wire_path(item)])
        key = self._diff_key()
        if key is not None:
            self.diffs[key] = msgspec.to_builtins(diff.files) if diff is not None else []
        self._show_selected_diff()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.runner is None:
            self._show_selected_diff()
        else:
            self.run_worker(self._load_selected_diff, group="git-diff",  # type: ignore[arg-type]
                            exclusive=True)  # a callable: a cancelled worker never made a coroutine

    # ─── actions ─────────────────────────────────────────────────────────────────────

    def _say(self, message: str, level: str = "info") -> None:
        self.query_one(MessageLine).show(message, level)

    def _targets(self) -> tuple[str, list[dict[str, Any]]] | None:
        """The selected file, or every file of the selected section's header."""
        chosen = self._selected()
        if chosen is None or self.status is None:
            return None
        section, item = chosen
        items = [item] if item is not None else list(self.status[section])
        return section, [self._wire_path(i) for i in items]

    async def _act(self, method: str, done: str, **params: Any) -> None:
        assert self.runner is not None
        answer = await self.runner.attempt(method, **self._where(), **params)
        if answer.ok:
            self._say(done)
            await self.refresh_all()
        elif not answer.declined:
            self._say(answer.error or "failed", "error")

    async def remote_op(self, method: str) -> None:
        """Fetch, pull or push: the daemon shows git's progress on the status line; while
        it runs the hint line says how to cancel it, and Esc sends `git_cancel`."""
        if self.runner is None:
            return
        name, doing, done = REMOTE_WORDS[method]
        self.remote.append(method)
        hint = self.query_one("#git-hint", Static)
        hint.update(f"{doing}… · Esc or ctrl+c: cancel the {name}")
        self._say(f"{doing}…")
        try:
            answer = await self.runner.attempt(method, **self._where())
        finally:
            self.remote.remove(method)
            if not self.remote:
                hint.update(HINTS)
        if answer.ok:
            self._say(done)
            await self.refresh_all()
        elif answer.code == "GitCancelled":
            self._say(f"{name} cancelled", "warning")
        elif not answer.declined:
            self._say(answer.error or f"the {name} failed", "error")

    async def cancel_remote(self) -> None:
        if self.runner is None or not self.remote:
            return
        self._say(f"cancelling the {REMOTE_WORDS[self.remote[-1]][0]}…")
        await self.runner.attempt("git_cancel")

    async def stage(self, unstage: bool | None = None) -> None:
        targets = self._targets()
        if targets is None or self.runner is None:
            return
        section, paths = targets
        back = section == "staged" if unstage is None else unstage
        if back and section != "staged":
            return
        method = "git_unstage" if back else "git_stage"
        await self._act(method, f"{'unstaged' if back else 'staged'} {len(paths)} file(s)",
                        paths=paths)

    async def discard(self) -> None:
        targets = self._targets()
        if targets is None or self.runner is None or targets[0] not in ("unstaged", "untracked"):
            self._say("discard works on unstaged and untracked files", "error")
            return
        await self._act("git_discard", f"discarded {len(targets[1])} file(s)", paths=targets[1])

    async def stage_hunk(self) -> None:
        chosen = self._selected()
        picked = self.query_one(DiffView).selected_hunk()
        if self.runner is None or chosen is None or picked is None:
            return
        item, index, header = picked
        await self._act("git_hunk", "done", file=self._wire_path(item), hunk=index,
                        header=header, unstage=chosen[0] == "staged")

    async def commit(self, message: str) -> None:
        if self.runner is None:
            return
        answer, committed = await attempt_as(self.runner, GitCommitted, "git_commit",
                                             **self._where(), message=message)
        if committed is not None:
            self.query_one(Input).value = ""
            self._say(f"committed {committed.oid[:10]} at {time.strftime('%H:%M')}")
            self.query_one(DataTable).focus()
            await self.refresh_all()
        else:
            self._say(answer.error or "the commit failed", "error")

    async def switch_branch(self) -> None:
        from idea_tui.screens.choice import ChoiceScreen

        if self.runner is None:
            return
        answer, branches = await attempt_list(self.runner, Branch, "git_branches",
                                              **self._where())
        if branches is None:
            self._say(answer.error or "", "error")
            return
        current = next((b.name for b in branches if b.current), None)
        options = [(b.name, ("* " if b.current else "  ") + b.name) for b in branches]
        choice = await self.runner.ask(ChoiceScreen("Switch to branch", options,
                                                    highlighted=current))
        if choice and choice != current:
            await self._act("git_switch", f"on {choice}", branch=choice)

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.composing = False
        await self.commit(event.value)

    async def on_key(self, event: events.Key) -> None:
        box = self.query_one(Input)
        if isinstance(self.focused, Input) or self.composing:
            if event.key == "escape":
                event.stop()
                self.composing = False
                self.query_one(DataTable).focus()
            elif not isinstance(self.focused, Input):
                # Typed before the box had the focus: it is still the message.
                event.stop()
                if event.key == "enter":
                    self.composing = False
                    await self.commit(box.value)
                elif event.character and event.character.isprintable():
                    box.insert_text_at_cursor(event.character)
            return
        key = event.character if event.character and event.character.isprintable() else event.key
        handlers: dict[str, Callable[[], Awaitable[None]]] = {
            "s": lambda: self.stage(False), "space": lambda: self.stage(False),
            " ": lambda: self.stage(False), "u": lambda: self.stage(True),
            "d": self.discard, "h": self.stage_hunk, "b": self.switch_branch,
            "r": self.refresh_all,
            "F": lambda: self.remote_op("git_fetch"),
            "P": lambda: self.remote_op("git_pull"),
            "p": lambda: self.remote_op("git_push"),
        }
        if key in ("escape", "ctrl+c") and self.remote:
            event.stop()
            self.run_worker(self.cancel_remote(), group="git-cancel")
        elif key == "escape":
            event.stop()
            self.dismiss(None)
        elif key in ("[", "]"):
            event.stop()
            self.query_one(DiffView).select_hunk(-1 if key == "[" else 1)
        elif key == "c":
            event.stop()
            self.composing = True
            box.focus()
        elif key == "g" and self.runner is not None:
            event.stop()
            self.dismiss(None)
            await self.runner.call("layout_new", kind="gitGraph")
        elif key == "i" and self.runner is not None:
            event.stop()
            await self._act("git_init", "initialized")
        elif key in handlers:
            event.stop()
            if self.runner is not None:
                self.run_worker(handlers[key](), group="git-act")
