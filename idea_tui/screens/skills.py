"""The Skills panel (prefix + K, FEATURES.md SKL-6): the project's skills and the global ones,
with the agents that have each; create, edit (here or in $EDITOR), delete, assign, unassign."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text

from idea_tui.screens import skill_flows
from idea_tui.screens.list_panel import ListPanel

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Skill = dict[str, Any]

KEYS = {"enter": "edit", "e": "edit", "E": "edit_external", "n": "new", "N": "new_global",
        "d": "delete", "a": "assign", "u": "unassign"}
NO_SKILL_NEEDED = {"new", "new_global"}
FLOWS: dict[str, Callable[[Runner, Skill], Awaitable[object]]] = {
    "edit": skill_flows.edit_skill,
    "edit_external": skill_flows.edit_skill_external,
    "delete": skill_flows.delete_skill,
    "assign": skill_flows.assign_to_agent_of_choice,
    "unassign": skill_flows.unassign_from_agent_of_choice,
}

HINTS = ("Enter/e: edit · E: $EDITOR · n: new in this project · N: new global · d: delete\n"
         "a: assign to an agent · u: unassign · Esc: close")


class SkillsScreen(ListPanel):
    """`listing` is skill_list's answer ({skills, problems, project})."""

    PANEL_TITLE = " Skills "
    INTRO = ("Procedures written once and given to agents: an agent with MCP sees their "
             "names and reads one with idea_skill_read; the others get the text at launch.")
    HINTS = HINTS
    TABLE_ID, NOTE_ID = "skills-table", "skills-note"
    COLUMNS = (("Skill", "name"), ("Scope", "scope"), ("Description", "text"),
               ("Agents", "agents"))
    LIST_COMMAND, ITEMS_FIELD = "skill_list", "skills"
    ACTIONS = KEYS
    NO_SELECTION_NEEDED = NO_SKILL_NEEDED
    NOTHING_SELECTED = "no skill selected: n creates one"
    WORKER_GROUP = "skills-panel"

    @property
    def skills(self) -> list[Skill]:
        return self.items

    def key_of(self, item: Skill) -> str:
        return f"{item['scope']}:{item['id']}"

    def cells(self, item: Skill) -> tuple[Text | str, ...]:
        scope = Text(item["scope"], style="cyan" if item["scope"] == "global" else "")
        description = item.get("description") or ""
        if len(description) > 48:
            description = description[:47] + "…"
        agents = ", ".join(item.get("assignedTo") or []) or Text("—", style="dim")
        return Text(item["name"], style="bold"), scope, description, agents

    def after_fill(self) -> None:
        self.show_note((self.listing or {}).get("problems", []),
                       "No skill yet: n writes one for this project (.ideai/skills/, "
                       "versioned with it), N one for every project.")

    async def perform(self, action: str, skill: Skill | None) -> None:
        runner = self.runner
        assert runner is not None
        if action in NO_SKILL_NEEDED:
            await skill_flows.new_skill(runner, "global" if action == "new_global" else "project")
        else:
            assert skill is not None
            await FLOWS[action](runner, skill)
        await self.refresh_listing()
