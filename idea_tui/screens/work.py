"""The Work panel (prefix + W, LIV-7): who is doing what now, one discreet row per agent —
status, task, note, who asked — from the project's live state. Enter (or g) goes to the
agent's cell; v opens the conversation of the pair (the agent and who asked it, in the
conversation viewer); f delivers a refreshed context to an agent whose cell offers one.

Kept small on purpose (the seed's directive: live state must not become a verbose UI): the
rows are previews; `idea work --json` has the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from rich.text import Text
from textual.widgets import Static

from adapters.ipc.answers_orchestration import Refreshed
from idea_tui.ports import call_as
from idea_tui.screens import flows
from idea_tui.screens.list_panel import ListPanel

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Row = dict[str, Any]

STATUS_STYLES = {
    "working": "bold green",
    "waiting": "cyan",
    "blocked": "bold yellow",
    "done": "dim green",
    "idle": "dim",
}
KEYS: dict[str, str] = {"enter": "go", "g": "go", "f": "refresh", "v": "conversation"}
HINTS = ("Enter/g: go to the agent's cell · v: its conversation with who asked · f: refresh "
         "its context (⟳: its knowledge changed) · Esc: close")
MAX_PANEL_WIDTH = 130
MIN_TEXT_WIDTH = 12


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def status_text(row: Row) -> Text:
    status = str(row.get("status", ""))
    text = Text(status, style=STATUS_STYLES.get(status, ""))
    if row.get("refresh"):
        text.append(" ⟳", style="bold cyan")
    return text


async def open_conversation(runner: Runner, row: Row) -> None:
    """The viewer on the pair (the agent, who asked it); without a pair, the agent's
    conversations to pick from."""
    from idea_tui.screens.conversation import ConversationScreen, open_for_agent

    peer = row.get("askedById")
    if not peer:
        await open_for_agent(runner, {"id": row["id"], "name": row["agent"]})
        return
    screen = ConversationScreen(runner, str(row["id"]), str(peer))
    screen.labels = (str(row["agent"]), str(row.get("askedBy", peer)))
    runner.app.push_screen(screen)


class WorkScreen(ListPanel):
    """`state` pre-fetched (snapshot tests) or read with work_state, then every
    `REFRESH_SECONDS` while the panel is open."""

    PANEL_TITLE = " Work "
    HINTS = HINTS
    TABLE_ID, NOTE_ID = "work-table", "work-detail"
    COLUMNS = (("Agent", "agent"), ("Status", "status"), ("Task", "task"), ("Note", "note"),
               ("Asked by", "askedBy"))
    COLUMNS_FOLLOW_CONTENT = True
    LIST_COMMAND, ITEMS_FIELD = "work_state", "rows"
    REFRESH_SECONDS: ClassVar[float | None] = 2.0
    ACTIONS = KEYS
    NOTHING_SELECTED = "no row selected"
    WORKER_GROUP = "work-panel"

    DEFAULT_CSS = """
    WorkScreen > Vertical { width: 98%; max-width: 130; }
    WorkScreen #work-detail { color: $text; }
    """

    def __init__(self, runner: Runner | None, state: dict[str, Any] | None = None) -> None:
        super().__init__(runner, state)
        self.widths = (MIN_TEXT_WIDTH, MIN_TEXT_WIDTH)

    @property
    def rows(self) -> list[Row]:
        return self.items

    def above(self) -> Static:
        return Static(self._heading(), id="work-heading")

    def _heading(self) -> Text:
        heading = Text()
        project = (self.listing or {}).get("project")
        heading.append(str(project or "The project"), style="bold")
        heading.append(": who is doing what now")
        problem = (self.listing or {}).get("problem")
        if problem:
            heading.append(f"\n{problem}", style="bold red")
        return heading

    def take(self, listing: Any) -> bool:
        """A failed or unchanged read keeps the table as it is (no flicker every 2 s)."""
        if listing is None or listing == self.listing:
            return False
        self.listing = listing
        return True

    def key_of(self, item: Row) -> str:
        return str(item["id"])

    def measure(self) -> None:
        """Task and note share what the other columns leave (no horizontal scroll bar; the
        detail line and `idea work` show more)."""
        inner = min(MAX_PANEL_WIDTH, self.app.size.width * 98 // 100) - 4
        fixed = 0
        for header, key in (("Agent", "agent"), ("Status", "status"), ("Asked by", "askedBy")):
            cells = [str(row.get(key, "")) for row in self.rows]
            fixed += max([len(header), *(len(cell) + 2 for cell in cells)]) + 2
        left = max(2 * MIN_TEXT_WIDTH, inner - fixed - 4 - 2)
        task = max(MIN_TEXT_WIDTH, left * 11 // 20)
        self.widths = task, max(MIN_TEXT_WIDTH, left - task)

    def cells(self, item: Row) -> tuple[Text | str, ...]:
        task_width, note_width = self.widths
        name = Text(str(item["agent"]), style="bold" if item.get("running") else "")
        return (name, status_text(item), clip(str(item.get("task", "")), task_width),
                clip(str(item.get("note", "")), note_width), str(item.get("askedBy", "")))

    def after_fill(self) -> None:
        self.show_selection()
        self.query_one("#work-heading", Static).update(self._heading())

    def show_selection(self) -> None:
        detail = self.query_one("#work-detail", Static)
        row = self.selected
        if row is None:
            detail.update("No work state yet: delegations fill it, and agents set their own "
                          "row with idea_workstate_set.")
            return
        text = Text()
        text.append(str(row["agent"]), style="bold")
        text.append(f" · {row.get('status')} since {row.get('updatedAt', '?')}")
        if row.get("ticket"):
            text.append(f" · ticket {row['ticket']} from {row.get('askedBy', '?')}")
        if not row.get("running"):
            text.append(" · not running", style="dim")
        if row.get("refresh"):
            text.append(" · its knowledge changed: f refreshes its context", style="cyan")
        for key in ("task", "note"):
            if row.get(key):
                text.append(f"\n{key}: ", style="dim")
                text.append(str(row[key]))
        detail.update(text)

    async def perform(self, action: str, row: Row | None) -> None:
        runner = self.runner
        assert runner is not None and row is not None
        if action == "conversation":
            await open_conversation(runner, row)
            return
        if action == "go":
            agent = {"id": row["id"], "name": row["agent"]}
            if await flows.go_to(runner, agent, refresh=True) and self.is_active:
                self.dismiss(None)
            return
        result = await call_as(runner, Refreshed, "agent_refresh", agent=row["id"])
        if result is not None:
            if result.ticket:
                runner.report(f"{row['agent']}: refreshed {', '.join(result.sections)}")
            else:
                runner.report(f"{row['agent']}: its context is up to date")
            await self.refresh_listing(report=False)
