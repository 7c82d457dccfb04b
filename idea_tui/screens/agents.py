"""The Agents panel (prefix + A, AGT-8): the project's agents, their status, and what to do
with them — launch (split, focused cell, background), stop, restart, change profile, create,
edit the persona, rename, delete, sync with the template, go to the agent's cell."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from idea_tui.screens import flows
from idea_tui.screens.action_list import ActionListScreen
from idea_tui.widgets.message_line import MessageLine

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Agent = dict[str, Any]

STATE_STYLES = {
    "running": "bold green",
    "exited": "yellow",
    "failed": "bold red",
    "resumable": "cyan",
    "stopped": "dim",
}
MIN_STATUS_WIDTH = 20
MAX_PANEL_WIDTH = 130

# Key (as typed) → (action, closes the panel when it worked).
KEYS: dict[str, tuple[str, bool]] = {
    "enter": ("launch_split", True),
    "l": ("launch_split", True),
    "b": ("launch_background", False),
    "c": ("launch_here", True),
    "g": ("go", True),
    "s": ("stop", False),
    "r": ("restart", False),
    "p": ("profile", False),
    "n": ("new", False),
    "e": ("edit", False),
    "E": ("edit_external", False),
    "R": ("rename", False),
    "d": ("delete", False),
    "u": ("sync", False),
    "W": ("launch_worktree", True),
    "w": ("changes", False),
    "t": ("toggle_sync", False),
}
# Actions that make sense without a selected agent.
NO_AGENT_NEEDED = {"new"}
# What each action on the selected agent runs; a true result lets a closing key close the
# panel (the launch went through, the cell was found).
FLOWS: dict[str, Callable[[Runner, Agent], Awaitable[object]]] = {
    "launch_split": lambda runner, agent: flows.launch(runner, agent, "split"),
    "launch_here": lambda runner, agent: flows.launch(runner, agent, "cell"),
    "launch_background": lambda runner, agent: flows.launch(runner, agent, "background"),
    "launch_worktree": lambda runner, agent: flows.launch(runner, agent, "split", worktree=True),
    "changes": flows.changes,
    "go": flows.go_to,
    "stop": flows.stop,
    "restart": flows.restart,
    "profile": flows.change_profile,
    "edit": flows.edit_persona,
    "edit_external": flows.edit_persona_external,
    "rename": flows.rename,
    "delete": flows.delete,
    "sync": flows.sync,
    "toggle_sync": flows.toggle_sync,
}

HINTS = (
    "Enter/l: launch in a split · c: in the focused cell · b: in the background · g: go to it\n"
    "s: stop · r: restart · p: profile · n: new · e: edit · E: $EDITOR · R: rename · d: delete\n"
    "u: sync · t: keep in sync on/off · W: launch in its worktree · w: what it changed · Esc: close"
)


def status_text(agent: Agent, width: int | None = None) -> Text:
    status = flows.agent_status(agent)
    if width is not None and len(status) > width:
        status = status[: width - 1] + "…"
    return Text(status, style=STATE_STYLES.get(str(agent.get("state")), ""))


def template_text(agent: Agent) -> Text:
    text = Text(flows.template_label(agent), style="" if agent.get("template") else "dim")
    return text


def badge_text(agent: Agent) -> Text:
    badge = flows.update_badge(agent)
    if not badge:
        return Text("")
    return Text(f" {badge.replace('update available ', 'update ')} ",
                style="bold black on yellow")


class AgentsScreen(ActionListScreen):
    """`agents` pre-fetched (snapshot tests) or read with agent_list, then every
    `REFRESH_SECONDS` while the panel is open."""

    REFRESH_SECONDS: ClassVar[float] = 2.0

    ACTION_KEYS = KEYS

    DEFAULT_CSS = """
    AgentsScreen { align: center middle; }
    AgentsScreen > Vertical {
        width: 98%; max-width: 130; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    AgentsScreen DataTable { height: auto; max-height: 16; margin-top: 1; }
    AgentsScreen #agent-detail { margin-top: 1; color: $text; }
    AgentsScreen .hint { color: $text-muted; margin-top: 1; }
    """

    def __init__(self, runner: Runner | None, agents: list[Agent] | None = None, *,
                 project: str | None = None) -> None:
        super().__init__()
        self.runner = runner
        self.agents = agents
        self.project = project

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = " Agents "
            yield Static(self._heading(), id="agents-heading")
            yield DataTable(cursor_type="row", id="agents-table")
            yield Static("", id="agent-detail")
            yield MessageLine()
            yield Static(HINTS, classes="hint")

    def _heading(self) -> Text:
        project = self.project
        if project is None and self.runner is not None:
            scene = self.runner.app.view.scene
            project = next((tab.name for tab in scene.tabs if tab.active), None) \
                if scene is not None else None
        heading = Text()
        if project:
            heading.append(project, style="bold")
            heading.append(": its agents")
        else:
            heading.append("The project's agents")
        drifting = sum(1 for agent in self.agents or [] if agent.get("updateAvailable"))
        if drifting:
            heading.append(" · ")
            heading.append(f"{drifting} template update{'s' if drifting > 1 else ''} "
                           "available (u syncs)", style="bold yellow")
        return heading

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()
        self._fill()  # the headers at least, until agent_list answers
        if self.agents is None and self.runner is not None:
            self.run_worker(self.refresh_agents(report=True), group="refresh", exclusive=True)
        if self.runner is not None:
            self.set_interval(self.REFRESH_SECONDS, self._tick)

    def _tick(self) -> None:
        self.run_worker(self.refresh_agents(report=False), group="refresh", exclusive=True)

    async def refresh_agents(self, *, report: bool) -> None:
        if self.runner is None:
            return
        if report:
            agents = await self.runner.call("agent_list")
        else:
            answer = await self.runner.attempt("agent_list")
            agents = answer.result if answer.ok else None
        if agents is None:
            if self.agents is None:
                self.agents = []
                self._fill()
            return
        if agents != self.agents:
            self.agents = agents
            self._fill()

    def _status_width(self) -> int:
        """What the Status column can take without a horizontal scroll bar (the detail
        line below the table shows the whole status of the selected agent)."""
        agents = self.agents or []
        inner = min(MAX_PANEL_WIDTH, self.app.size.width * 98 // 100) - 4
        others = 0
        for header, cells in (
            ("Agent", [agent["name"] for agent in agents]),
            ("Profile", [str(agent.get("profileId", "")) for agent in agents]),
            ("Template", [template_text(agent).plain for agent in agents]),
            ("", [badge_text(agent).plain for agent in agents]),
        ):
            others += max([cell_len(header), *(cell_len(cell) for cell in cells)]) + 2
        return max(MIN_STATUS_WIDTH, inner - others - 2)

    def _fill(self) -> None:
        if not self.is_attached:
            return
        table = self.query_one(DataTable)
        selected = self.selected
        # Columns too: their widths follow the current content.
        table.clear(columns=True)
        for label, key in (("Agent", "name"), ("Profile", "profile"), ("Status", "status"),
                           ("Template", "template"), ("", "update")):
            table.add_column(label, key=key)
        width = self._status_width()
        for agent in self.agents or []:
            table.add_row(Text(agent["name"], style="bold"), agent.get("profileId", ""),
                          status_text(agent, width), template_text(agent), badge_text(agent),
                          key=agent["id"])
        if selected is not None:
            ids = [agent["id"] for agent in self.agents or []]
            if selected["id"] in ids:
                table.move_cursor(row=ids.index(selected["id"]))
        self._show_detail()
        self.query_one("#agents-heading", Static).update(self._heading())

    @property
    def selected(self) -> Agent | None:
        agents = self.agents or []
        if not agents:
            return None
        row = self.query_one(DataTable).cursor_row
        return agents[row] if 0 <= row < len(agents) else None

    def _show_detail(self) -> None:
        detail = self.query_one("#agent-detail", Static)
        agent = self.selected
        if agent is None:
            detail.update("No agent yet: n creates one, from scratch or from a template "
                          "(prefix T shows the templates).")
            return
        text = Text()
        text.append(agent["name"], style="bold")
        text.append(f" · .ideai/{agent.get('mdPath', '')} · profile {agent.get('profileId')}")
        if agent.get("template"):
            text.append(f" · template {agent['template']}"
                        + (" (kept in sync)" if agent.get("synchronized") else " (copy)"))
        text.append("\n")
        text.append_text(status_text(agent, width=None))
        badge = flows.update_badge(agent)
        if badge:
            text.append(f" · {badge}: u syncs", style="bold yellow")
        detail.update(text)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail()

    def start(self, key: str) -> None:
        """Run the action of `key` in a worker (it may ask questions in dialogs)."""
        action, closes = KEYS[key]
        agent = self.selected
        if agent is None and action not in NO_AGENT_NEEDED:
            self.query_one(MessageLine).show("no agent selected: n creates one", "error")
            return
        if self.runner is None:
            return
        self.run_worker(self._run(action, agent, closes), group="agents-panel")

    async def _run(self, action: str, agent: Agent | None, closes: bool) -> None:
        runner = self.runner
        assert runner is not None
        done: object = None
        if action == "new":
            await flows.new_agent(runner)
        else:
            assert agent is not None
            done = await FLOWS[action](runner, agent)
        if closes and done and self.is_active:
            self.dismiss(None)
            return
        await self.refresh_agents(report=False)
