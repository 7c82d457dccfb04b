"""The Agents panel (prefix + A, AGT-8): the project's agents, their status, and what to do
with them — launch (split, focused cell, background), stop, restart, change profile, create,
edit the persona, rename, delete, sync with the template, go to the agent's cell."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec
from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from adapters.ipc.answers_knowledge import SkillList
from idea_tui.ports import attempt_as
from idea_tui.screens import flows, limit_flows, skill_flows
from idea_tui.screens.conversation import open_for_agent
from idea_tui.screens.list_panel import ListPanel

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

# Key (as typed) → action.
KEYS: dict[str, str] = {
    "enter": "launch_split",
    "l": "launch_split",
    "b": "launch_background",
    "c": "launch_here",
    "g": "go",
    "s": "stop",
    "r": "restart",
    "p": "profile",
    "n": "new",
    "e": "edit",
    "E": "edit_external",
    "R": "rename",
    "d": "delete",
    "u": "sync",
    "W": "launch_worktree",
    "w": "changes",
    "t": "toggle_sync",
    "v": "conversations",
    "m": "limit_time",
    "N": "limit_now",
    "X": "limit_cancel",
    "o": "limit_not_limited",
    "f": "limit_swap",
    "k": "give_skill",
    "K": "take_skill",
}
# Actions that close the panel when they worked (the launch went through, the cell was found).
CLOSES_PANEL = {"launch_split", "launch_here", "launch_worktree", "go"}
# Actions that make sense without a selected agent.
NO_AGENT_NEEDED = {"new"}
# What each action on the selected agent runs; a true result lets an action of CLOSES_PANEL
# close the panel.
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
    "conversations": open_for_agent,
    "limit_time": limit_flows.set_time,
    "limit_now": limit_flows.resume_now,
    "limit_cancel": limit_flows.cancel,
    "limit_not_limited": limit_flows.not_limited,
    "limit_swap": limit_flows.continue_on,
    "give_skill": skill_flows.give_skill,
    "take_skill": skill_flows.take_skill,
}
SKILL_ACTIONS = {"give_skill", "take_skill"}

HINTS = (
    "Enter/l: launch in a split · c: in the focused cell · b: in the background · g: go to it\n"
    "s: stop · r: restart · p: profile · n: new · e: edit · E: $EDITOR · R: rename · d: delete\n"
    "u: sync · t: keep in sync on/off · W: launch in its worktree · w: what it changed\n"
    "v: its conversations · k: give a skill · K: take a skill off · Esc: close"
)
LIMIT_HINT = ("m: when to resume · N: resume now · X: cancel the resume · "
              "f: continue on another profile")
"""Shown under a selected agent at a usage limit (issue 10)."""
STATE_HINTS = {
    "limited": ("m: when to resume · N: resume now · X: cancel the resume · o: no longer "
                "limited · f: continue on another profile"),
    "suspected": ("m: when to resume · o: not a limit (its task goes on) · N: resume now · "
                  "f: continue on another profile"),
}
"""The hint for a limited agent (o: it went on unseen), a suspected one (nothing is armed
to cancel yet); an agent on its fallback profile gets LIMIT_HINT."""
LIMIT_STYLES = {"limited": "bold magenta", "suspected": "bold red", "swapped": "bold cyan"}


def status_text(agent: Agent, width: int | None = None, elapsed: float = 0.0) -> Text:
    status = flows.agent_status(agent, elapsed)
    if width is not None and len(status) > width:
        status = status[: width - 1] + "…"
    limit = agent.get("limit")
    if isinstance(limit, dict):
        return Text(status, style=LIMIT_STYLES.get(str(limit.get("state")), "bold magenta"))
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


def skill_chips(agent: Agent, skills: list[dict[str, Any]]) -> Text:
    """`Skills: [Release checklist] [Build (global)]`, one chip per assigned skill in its
    order (k gives one, K takes one off)."""
    text = Text("Skills: ", style="bold")
    held = skill_flows.held_by(agent, skills)
    if not held:
        text.append("none (k gives one)", style="dim")
        return text
    for index, skill in enumerate(held):
        if index:
            text.append(" ")
        style = "black on magenta" if skill["scope"] == "global" else "black on cyan"
        if skill.get("gone"):
            style = "dim strike"
        text.append(f" {skill_flows.label(skill)} ", style=style)
    return text


class AgentsScreen(ListPanel):
    """`agents` pre-fetched (snapshot tests) or read with agent_list, then every
    `REFRESH_SECONDS` while the panel is open."""

    PANEL_TITLE = " Agents "
    HINTS = HINTS
    TABLE_ID, NOTE_ID = "agents-table", "agent-detail"
    COLUMNS = (("Agent", "name"), ("Profile", "profile"), ("Status", "status"),
               ("Template", "template"), ("", "update"))
    COLUMNS_FOLLOW_CONTENT = True
    LIST_COMMAND = "agent_list"
    REFRESH_SECONDS: ClassVar[float | None] = 2.0
    COUNTDOWN_SECONDS: ClassVar[float] = 1.0
    """A limited agent's countdown runs between two reads of agent_list (SLM-8)."""
    ACTIONS = KEYS
    NO_SELECTION_NEEDED = NO_AGENT_NEEDED
    NOTHING_SELECTED = "no agent selected: n creates one"
    WORKER_GROUP = "agents-panel"

    DEFAULT_CSS = """
    AgentsScreen > Vertical { width: 98%; max-width: 130; }
    AgentsScreen #agent-detail { color: $text; }
    """

    def __init__(self, runner: Runner | None, agents: list[Agent] | None = None, *,
                 project: str | None = None, skills: list[dict[str, Any]] | None = None) -> None:
        super().__init__(runner, agents)
        self.project = project
        self.read_at = time.monotonic()
        """When `agents` was read: countdowns subtract the time since."""
        self.clock: Callable[[], float] = time.monotonic
        self.skills = skills
        """skill_list's skills (names for the chips): read at open and after a skill key."""
        self.status_width = MIN_STATUS_WIDTH

    @property
    def items(self) -> list[Agent]:
        """agent_list answers the list itself."""
        return list(self.listing or [])

    @property
    def agents(self) -> list[Agent]:
        return self.items

    def above(self) -> Static:
        return Static(self._heading(), id="agents-heading")

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
        drifting = sum(1 for agent in self.agents if agent.get("updateAvailable"))
        if drifting:
            heading.append(" · ")
            heading.append(f"{drifting} template update{'s' if drifting > 1 else ''} "
                           "available (u syncs)", style="bold yellow")
        return heading

    def start_reading(self) -> None:
        super().start_reading()
        if self.skills is None:
            self.run_worker(self.refresh_skills(), group="skills", exclusive=True)
        self.set_interval(self.COUNTDOWN_SECONDS, self._count_down)

    def _count_down(self) -> None:
        if any(isinstance(agent.get("limit"), dict) and "resumeIn" in agent["limit"]
               for agent in self.agents):
            self._fill()

    def _elapsed(self) -> float:
        return max(0.0, self.clock() - self.read_at)

    def take(self, listing: Any) -> bool:
        """A failed read shows an empty table the first time, else keeps what is shown; an
        unchanged one draws nothing again."""
        if listing is None:
            if self.listing is None:
                self.listing = []
                return True
            return False
        if listing == self.listing:
            return False
        self.listing = listing
        self.read_at = self.clock()
        return True

    async def refresh_skills(self) -> None:
        """The skills' names for the chips (quietly none when the daemon cannot say)."""
        if self.runner is None:
            return
        _, listed = await attempt_as(self.runner, SkillList, "skill_list")
        # Maps, as the snapshot tests give them: the daemon's own, from the Structs.
        self.skills = msgspec.to_builtins(listed.skills) if listed is not None else []
        self.show_selection()

    def measure(self) -> None:
        """What the Status column can take without a horizontal scroll bar (the detail
        line below the table shows the whole status of the selected agent)."""
        agents = self.agents
        inner = min(MAX_PANEL_WIDTH, self.app.size.width * 98 // 100) - 4
        others = 0
        for header, cells in (
            ("Agent", [agent["name"] for agent in agents]),
            ("Profile", [str(agent.get("profileId", "")) for agent in agents]),
            ("Template", [template_text(agent).plain for agent in agents]),
            ("", [badge_text(agent).plain for agent in agents]),
        ):
            others += max([cell_len(header), *(cell_len(cell) for cell in cells)]) + 2
        self.status_width = max(MIN_STATUS_WIDTH, inner - others - 2)

    def key_of(self, item: Agent) -> str:
        return str(item["id"])

    def cells(self, item: Agent) -> tuple[Text | str, ...]:
        return (Text(item["name"], style="bold"), item.get("profileId", ""),
                status_text(item, self.status_width, self._elapsed()), template_text(item),
                badge_text(item))

    def after_fill(self) -> None:
        self.show_selection()
        self.query_one("#agents-heading", Static).update(self._heading())

    def show_selection(self) -> None:
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
        text.append_text(status_text(agent, width=None, elapsed=self._elapsed()))
        limit = agent.get("limit")
        if isinstance(limit, dict):
            if limit.get("message"):
                text.append(f"\n{limit['message']}", style="dim")
            hint = STATE_HINTS.get(str(limit.get("state")), LIMIT_HINT)
            text.append(f"\n{hint}", style="bold")
        badge = flows.update_badge(agent)
        if badge:
            text.append(f" · {badge}: u syncs", style="bold yellow")
        text.append("\n")
        text.append_text(skill_chips(agent, self.skills or []))
        detail.update(text)

    async def perform(self, action: str, agent: Agent | None) -> None:
        runner = self.runner
        assert runner is not None
        done: object = None
        if action == "new":
            await flows.new_agent(runner)
        else:
            assert agent is not None
            done = await FLOWS[action](runner, agent)
        if action in CLOSES_PANEL and done and self.is_active:
            self.dismiss(None)
            return
        await self.refresh_listing(report=False)
        if action in SKILL_ACTIONS:
            await self.refresh_skills()
