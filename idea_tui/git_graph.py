"""The Git Graph page (GIT-3, LAY-5 `kind: "gitGraph"`): the commit graph drawn in the
page's cell by the client, from pages of `git_log` (lanes computed by the daemon's pure
`core.git.graph`, carried from one page to the next).

History is read lazily: a page of `PAGE` commits at first, the next one when the selection
nears the end of what is loaded, so scrolling reaches the first commit of a huge history
without ever loading it whole. Enter shows the selected commit's diff. The page refreshes
when the daemon says the repository changed (a `Changed` message), never on a timer.

Drawing reuses the cell machinery: the page's rows are fed to the cell's mirror as a
`CellFrame`, exactly as a program's screen would be.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from adapters.ipc.messages import CellFrame, CellInfo, Scene, WireRow, WireRun
from core.terminal import DEFAULT_COLOR, Attr

if TYPE_CHECKING:
    from idea_tui.ports import Runner

PAGE = 200
LANE_COLOURS = (2, 3, 4, 5, 6, 1, 10, 11, 12, 13, 14)
YELLOW, DIM, REFS = 3, 8, 11
SELECTED_BG = 238
"""The selected commit's row: a grey band (reverse video would invert each lane's colour)."""
Entry = dict[str, Any]


def _run(text: str, fg: int = DEFAULT_COLOR, attrs: int = 0, bg: int = DEFAULT_COLOR) -> WireRun:
    return (text, fg, bg, attrs)


def _graph_runs(glyphs: str) -> list[WireRun]:
    runs: list[WireRun] = []
    for index, char in enumerate(glyphs):
        colour = LANE_COLOURS[(index // 2) % len(LANE_COLOURS)] if char != " " else DEFAULT_COLOR
        attrs = int(Attr.BOLD) if char == "●" else 0
        if runs and runs[-1][1] == colour and runs[-1][3] == attrs:
            runs[-1] = (runs[-1][0] + char, colour, DEFAULT_COLOR, attrs)
        else:
            runs.append(_run(char, colour, attrs))
    return runs


def _fit(runs: list[WireRun], width: int, selected: bool) -> WireRow:
    """Cut or pad `runs` to `width` cells (idea's graph glyphs and ASCII are one cell each;
    wider characters in messages are cut conservatively)."""
    out: list[WireRun] = []
    used = 0
    for text, fg, bg, attrs in runs:
        if used >= width:
            break
        piece = text[: width - used]
        out.append((piece, fg, SELECTED_BG if selected else bg, attrs))
        used += len(piece)
    if used < width:
        out.append((" " * (width - used), DEFAULT_COLOR,
                    SELECTED_BG if selected else DEFAULT_COLOR, 0))
    return tuple(out)


def commit_runs(entry: Entry, graph_width: int, width: int) -> list[WireRun]:
    graph = entry["graph"]["line"].ljust(graph_width)
    runs = _graph_runs(graph)
    runs.append(_run(f" {entry['oid'][:8]} ", YELLOW))
    for ref in entry["refs"]:
        runs.append(_run(f"({ref}) ", REFS, int(Attr.BOLD)))
    when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(entry["time"] + 60 * entry["offset"]))
    tail = f"  {entry['author']}  {when}"
    used = sum(len(r[0]) for r in runs)
    room = max(0, width - used - len(tail))
    subject = entry["subject"]
    if len(subject) > room:
        subject = subject[: max(0, room - 1)] + "…" if room else ""
    runs.append(_run(subject.ljust(room)))
    runs.append(_run(tail, DIM))
    return runs


class GraphPage:
    """The graph shown in the active gitGraph cell, if any."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.cell: CellInfo | None = None
        self.root: str | None = None
        self.entries: list[Entry] = []
        self.lanes: list[str | None] = []
        self.more = True
        self.loading = False
        self.selected = 0
        self.top = 0
        self.problem = ""

    # ─── following the scene ─────────────────────────────────────────────────────────

    def on_scene(self, scene: Scene) -> None:
        cell = next((c for c in scene.cells if c.kind == "gitGraph"), None)
        previous, self.cell = self.cell, cell
        if cell is None:
            return
        if previous is None or previous.id != cell.id:
            self.runner.app.run_worker(self.reload(), group="git-graph")
        else:
            self.draw()

    def daemon_changed(self, topic: str, key: str) -> None:
        if topic == "git" and key == self.root and self.cell is not None:
            self.runner.app.run_worker(self.reload(keep=True), group="git-graph")

    async def reload(self, keep: bool = False) -> None:
        chosen = self.entries[self.selected]["oid"] if keep and self.entries else None
        from adapters.ipc.answers_git import GitWatching
        from idea_tui.ports import attempt_as

        answer, watched = await attempt_as(self.runner, GitWatching, "git_watch")
        if watched is not None:
            self.root = watched.root
        self.entries, self.lanes, self.more = [], [], True
        if watched is None:
            self.more = False
            self.problem = answer.error or "not a git repository"
        else:
            self.problem = ""
            await self.load_more()
        if chosen is not None:
            found = next((i for i, e in enumerate(self.entries) if e["oid"] == chosen), 0)
            self.selected = found
        self.selected = min(self.selected, max(0, len(self.entries) - 1))
        self.draw()

    async def load_more(self) -> None:
        if self.loading or not self.more:
            return
        import msgspec

        from adapters.ipc.answers_git import GitLog
        from idea_tui.ports import attempt_as

        self.loading = True
        try:
            answer, log = await attempt_as(
                self.runner, GitLog, "git_log", rev="--all", skip=len(self.entries),
                limit=PAGE, lanes=self.lanes
            )
        finally:
            self.loading = False
        if log is None:
            self.more, self.problem = False, answer.error or ""
            return
        # The entries stay maps: `commit_runs`, the commit's diff page and the tests read them.
        self.entries.extend(msgspec.to_builtins(log.entries))
        self.lanes = log.lanes
        self.more = log.more

    def show_entries(self, entries: list[Entry], more: bool = False) -> None:
        """Entries given directly (tests and snapshots, no daemon)."""
        self.entries, self.more = entries, more
        self.draw()

    # ─── keys ────────────────────────────────────────────────────────────────────────

    @property
    def height(self) -> int:
        return max(1, self.cell.height - 1) if self.cell is not None else 1

    async def key(self, key: str) -> bool:
        """Handle a key typed in the graph page; True when it was one of the page's."""
        steps = {"down": 1, "j": 1, "up": -1, "k": -1, "pagedown": self.height // 2,
                 "pageup": -(self.height // 2), "home": -(10**9)}
        if key in steps:
            self.selected = max(0, min(len(self.entries) - 1, self.selected + steps[key]))
        elif key == "end":
            while self.more:
                await self.load_more()
            self.selected = max(0, len(self.entries) - 1)
        elif key == "enter" and self.entries:
            from idea_tui.screens.git_diff import CommitDiffScreen

            self.runner.app.push_screen(CommitDiffScreen(self.runner, self.entries[self.selected]))
            return True
        elif key == "r":
            await self.reload(keep=True)
            return True
        else:
            return False
        if self.more and self.selected >= len(self.entries) - self.height:
            await self.load_more()
        self.draw()
        return True

    # ─── drawing ─────────────────────────────────────────────────────────────────────

    def rows(self, width: int) -> list[tuple[int | None, list[WireRun]]]:
        graph_width = max((max(len(e["graph"]["line"]), len(e["graph"]["joint"]))
                           for e in self.entries), default=1)
        out: list[tuple[int | None, list[WireRun]]] = []
        for index, entry in enumerate(self.entries):
            out.append((index, commit_runs(entry, graph_width, width)))
            if entry["graph"]["joint"]:
                out.append((None, _graph_runs(entry["graph"]["joint"])))
        return out

    def draw(self) -> None:
        cell = self.cell
        if cell is None:
            return
        width, height = cell.width, self.height
        lines: list[tuple[int, WireRow]] = []
        if not self.entries:
            message = self.problem or ("reading the history…" if self.more else "no commits yet")
            lines.append((0, _fit([_run(message, DIM, int(Attr.ITALIC))], width, False)))
        else:
            rows = self.rows(width)
            at = next(i for i, (entry, _) in enumerate(rows) if entry == self.selected)
            if at < self.top:
                self.top = at
            elif at >= self.top + height:
                self.top = at - height + 1
            for y, (entry, runs) in enumerate(rows[self.top : self.top + height]):
                lines.append((y, _fit(runs, width, entry == self.selected)))
        frame = CellFrame(cell=cell.id, cols=width, rows=height, lines=lines,
                          cursor=(0, 0, False, 0), full=True)
        self.runner.app.view.apply_frame(frame)
