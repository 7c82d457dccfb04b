"""What the six list panels share (`idea_tui/screens/list_panel.py`), on the real client with
canned daemon answers: one read of their list when they open, the selected row kept by its
key when the list changes under it, and a clear message (no daemon call) for an action that
needs a row when there is none."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable

from idea_tui.screens.agents import AgentsScreen
from idea_tui.screens.context import ContextScreen
from idea_tui.screens.list_panel import ListPanel
from idea_tui.screens.memory import MemoryScreen
from idea_tui.screens.skills import SkillsScreen
from idea_tui.screens.templates import TemplatesScreen
from idea_tui.screens.work import WorkScreen
from tests.helpers.pilot import drive, make_app, settle, show
from tests.tui.test_agent_screens import SCENE, Gateway, app_of, message, screen, until

# (the action that opens it, the panel, how often it reads each command when it opens)
PANELS: list[tuple[str, type[ListPanel], dict[str, int]]] = [
    ("memory", MemoryScreen, {"memory_list": 1}),
    ("skills", SkillsScreen, {"skill_list": 1}),
    ("templates", TemplatesScreen, {"template_list": 1}),
    ("project_context", ContextScreen, {"context_read": 1, "context_proposals": 1}),
    ("work", WorkScreen, {"work_state": 1}),
    ("agents", AgentsScreen, {"agent_list": 1, "skill_list": 1}),
]


def note(slug: str) -> dict[str, Any]:
    return {"slug": slug, "description": f"about {slug}", "type": "project", "indexed": True,
            "present": True, "problem": None, "size": 90}


@pytest.fixture(autouse=True)
def _no_refresh_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    # The periodic reads would add to the counts on a slow machine.
    monkeypatch.setattr(AgentsScreen, "REFRESH_SECONDS", 1000.0)
    monkeypatch.setattr(WorkScreen, "REFRESH_SECONDS", 1000.0)


@pytest.mark.parametrize(("action", "kind", "reads"), PANELS,
                         ids=[action for action, _, _ in PANELS])
def test_a_panel_reads_its_list_once_when_it_opens(action: str, kind: type[ListPanel],
                                                  reads: dict[str, int]) -> None:
    gateway = Gateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await show(pilot, SCENE)
        await app_of(pilot).runner.run(action)
        await screen(pilot, kind)
        await settle(pilot)

    drive(make_app(gateway), scenario)
    counted = {method: len(gateway.params(method)) for method in reads}
    assert counted == reads


def test_the_selected_row_follows_its_key_when_the_list_changes() -> None:
    notes = [note("deploy-rules"), note("user-prefers-french")]
    gateway = Gateway(results={"memory_list": lambda _: {"folder": "/p/.ideai/memory",
                                                         "problem": None, "notes": list(notes)}})
    seen: list[tuple[str | None, int]] = []

    async def scenario(pilot: Pilot[str]) -> None:
        await show(pilot, SCENE)
        await app_of(pilot).runner.run("memory")
        panel = await screen(pilot, MemoryScreen)
        table = panel.query_one(DataTable)
        await until(pilot, lambda: table.row_count == 2, "rows")
        await pilot.press("down")  # user-prefers-french
        notes.insert(0, note("a-new-note"))
        await pilot.press("r")
        await until(pilot, lambda: table.row_count == 3, "the new note")
        selected = panel.selected
        seen.append((selected["slug"] if selected else None, table.cursor_row))

    drive(make_app(gateway), scenario)
    assert seen == [("user-prefers-french", 2)]


def test_an_action_on_no_row_says_so_and_asks_nothing_of_the_daemon() -> None:
    gateway = Gateway(results={"template_list": {"templates": [], "problems": []}})
    said: list[str] = []

    async def scenario(pilot: Pilot[str]) -> None:
        await show(pilot, SCENE)
        await app_of(pilot).runner.run("templates")
        await screen(pilot, TemplatesScreen)
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        said.append(message(pilot))
        await pilot.press("q")
        await until(pilot, lambda: not isinstance(pilot.app.screen, TemplatesScreen), "closed")

    drive(make_app(gateway), scenario)
    assert said == ["no template selected: n creates one, i installs the software team pack"]
    assert gateway.params("template_rm") == []
