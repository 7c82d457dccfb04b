"""The client's delegation keys and view (issue 8, "Seeing it"): the delegations view (prefix +
D) lists agents and recent tickets from `team_monitor`, the enqueue (prefix + e) and interrupt
(prefix + i) keys act on the focused cell's agent, and a cell marked by a delegation problem
says it in its title."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from idea_tui.app import IdeaApp
from idea_tui.screens.delegations import DelegationsScreen
from idea_tui.screens.prompt import PromptScreen
from idea_tui.widgets.bars import StatusBar
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import drive, make_app, ready, settle, show, wait_for_screen
from tests.helpers.scenes import grid_scene

SCENE = grid_scene(120, 28, 1, 2, focused=1, commands=("bash", "Dev (claude-code)"))

SNAPSHOT: dict[str, Any] = {
    "project": "web",
    "agents": [
        {"name": "Conductor", "state": "working", "detail": "", "profile": "claude-code",
         "queue": 0, "ticket": "T1", "askedBy": "user", "since": 42.0, "trouble": ""},
        {"name": "Dev", "state": "blocked", "detail": "Do you want to proceed?",
         "profile": "codex", "queue": 2, "ticket": None, "askedBy": None, "since": None,
         "trouble": "T2 timed out"},
    ],
    "tickets": [
        {"ticket": "T3", "requester": "Conductor", "target": "Dev", "state": "queued",
         "age": 3.0, "took": None, "reason": ""},
        {"ticket": "T2", "requester": "Conductor", "target": "Dev", "state": "timed_out",
         "age": 400.0, "took": 300.0, "reason": "no reply within 300 s"},
        {"ticket": "T1", "requester": "user", "target": "Conductor", "state": "submitted",
         "age": 42.0, "took": None, "reason": ""},
    ],
}


@pytest.fixture(autouse=True)
def _no_refresh_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(DelegationsScreen, "REFRESH_SECONDS", 1000.0)


def table_text(table: DataTable[Any]) -> list[list[str]]:
    return [[str(cell) for cell in table.get_row_at(y)] for y in range(table.row_count)]


def test_the_delegations_view_lists_agents_tickets_and_who_needs_the_user() -> None:
    gateway = FakeGateway(results={"team_monitor": SNAPSHOT})
    seen: dict[str, Any] = {}

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "D")
        view = await wait_for_screen(pilot, DelegationsScreen)
        await settle(pilot)
        seen["agents"] = table_text(view.query_one("#delegations-agents", DataTable))
        seen["tickets"] = table_text(view.query_one("#delegations-tickets", DataTable))
        seen["attention"] = str(view.query_one("#delegations-attention", Static).render())
        await pilot.press("r")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        seen["closed"] = len(pilot.app.screen_stack) == 1

    drive(make_app(gateway), scenario, size=(130, 34))
    assert seen["agents"][0] == ["Conductor", "working", "", "T1", "user", "42 s", ""]
    assert seen["agents"][1][:3] == ["Dev", "blocked (Do you want to proceed?)", "2"]
    assert seen["agents"][1][6] == "! T2 timed out"
    assert [row[:3] for row in seen["tickets"]] == [
        ["T3", "Conductor → Dev", "queued"],
        ["T2", "Conductor → Dev", "timed out"],
        ["T1", "user → Conductor", "submitted"],
    ]
    assert seen["tickets"][1][3:] == ["7 min", "5 min", "no reply within 300 s"]
    assert "needs you: Dev (T2 timed out)" in seen["attention"]
    assert gateway.methods().count("team_monitor") == 2  # on open, then r
    assert seen["closed"]


def test_the_enqueue_key_asks_for_a_line_and_queues_it_for_the_focused_agent() -> None:
    gateway = FakeGateway(results={"agent_send": {
        "ticket": "T9", "target": "Dev", "requester": "user", "state": "queued",
        "times": {"created": 100.0, "delivered": None, "submitted": None, "finished": None}}})
    status: dict[str, str] = {}

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "e")
        prompt = await wait_for_screen(pilot, PromptScreen)
        assert "Line for the agent" in str(prompt.query_one(Static).render())
        await pilot.press(*"run the tests", "enter")
        await settle(pilot)
        status["text"] = pilot.app.query_one(StatusBar).message

    drive(make_app(gateway), scenario)
    assert gateway.calls == [("agent_send", {"target": "%cell-1", "text": "run the tests"})]
    assert "Dev: queued as T9" in status["text"]
    assert gateway.keys == [], "nothing was typed into the cell itself"


def test_the_interrupt_key_stops_the_focused_agents_turn() -> None:
    gateway = FakeGateway(results={"agent_interrupt": {"agent": "Dev", "interrupted": "T4"}})
    status: dict[str, str] = {}

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "i")
        await settle(pilot)
        status["text"] = pilot.app.query_one(StatusBar).message

    drive(make_app(gateway), scenario)
    assert gateway.calls == [("agent_interrupt", {"target": "%cell-1"})]
    assert "Dev: interrupted; ticket T4 failed" in status["text"]


def test_a_delegation_mark_shows_in_the_cells_title() -> None:
    cells = list(SCENE.cells)
    cells[0] = msgspec.structs.replace(cells[0], attention=True, mark="T2 timed out")
    marked = msgspec.structs.replace(SCENE, cells=cells)
    seen: dict[str, str] = {}

    async def scenario(pilot: Pilot[str]) -> None:
        await show(pilot, marked)
        await settle(pilot)
        app = pilot.app
        assert isinstance(app, IdeaApp)
        seen["title"] = app.view.render_line(0).text

    drive(make_app(FakeGateway()), scenario, size=(120, 28))
    assert "[T2 timed out]" in seen["title"]
