"""The Work panel (LIV-7) and the refresh marker of an agent's cell title: SVG snapshots at
a fixed 100x30 (stored under `snapshots/test_work_snapshots/`), and the panel's keys against
a recording gateway."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from textual.pilot import Pilot

from adapters.ipc.messages import CellInfo
from idea_tui.app import IdeaApp
from idea_tui.screens.conversation import ConversationScreen
from idea_tui.screens.work import WorkScreen
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import SIZE, drive, make_app, settle, show
from tests.helpers.scenes import grid_scene
from tests.tui.test_agent_snapshots import showing

SnapCompare = Callable[..., bool]

STATE: dict[str, Any] = {
    "project": "web",
    "rows": [
        {"agent": "Conductor", "id": "a1", "status": "waiting",
         "task": "ship the 0.3 release notes", "note": "waiting for Reviewer (ticket T5b2c1a)",
         "askedBy": "user", "ticket": "T0a0a0a", "updatedAt": "2026-12-01T16:20:00Z",
         "running": True},
        {"agent": "Reviewer", "id": "a2", "status": "working",
         "task": "review the parser change in src/parse.py and report every missing test " * 2,
         "note": "on Conductor's ticket T5b2c1a", "askedBy": "Conductor", "askedById": "a1",
         "ticket": "T5b2c1a",
         "updatedAt": "2026-12-01T16:21:00Z", "running": True, "refresh": True},
        {"agent": "QA", "id": "a3", "status": "blocked", "task": "run the e2e suite",
         "note": "CI runner offline", "updatedAt": "2026-12-01T15:02:00Z", "running": True},
        {"agent": "Git Keeper", "id": "a4", "status": "done", "task": "tag v0.2.9",
         "note": "replied to Conductor (ticket T9f9f9f)", "askedBy": "Conductor",
         "ticket": "T9f9f9f", "updatedAt": "2026-12-01T14:00:00Z", "running": False},
        {"agent": "Architect", "id": "a5", "status": "idle",
         "updatedAt": "2026-12-01T13:00:00Z", "running": False},
    ],
}


def app() -> Any:
    return make_app(FakeGateway())


def test_work_panel_every_status_and_a_refresh_offer(snap_compare: SnapCompare) -> None:
    """Five rows (waiting, working with ⟳, blocked, done, idle), the second selected."""
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: WorkScreen(None, STATE), "down"))


def test_work_panel_empty_and_a_damaged_file(snap_compare: SnapCompare) -> None:
    state = {"project": "web", "rows": [], "problem": (
        "/home/u/web/.ideai/live-state.json cannot be read: invalid JSON at line 1, column 2. "
        "idea left the file untouched and will not overwrite it; fix or remove it, then reopen."
    )}
    assert snap_compare(app(), terminal_size=SIZE, run_before=showing(
        lambda: WorkScreen(None, state)))


def test_an_agent_cell_offers_a_refresh_in_its_title() -> None:
    scene = grid_scene(100, 28, 1, 2, commands=("Reviewer (claude-code)", "bash"))
    cells = [msgspec.structs.replace(scene.cells[0], refresh=True), scene.cells[1]]
    offered = msgspec.structs.replace(scene, cells=cells)
    seen: list[str] = []

    async def scenario(pilot: Pilot[str]) -> None:
        assert isinstance(pilot.app, IdeaApp)
        await show(pilot, offered, [])
        await settle(pilot)
        seen.append(pilot.app.view.render_line(0).text)

    drive(make_app(FakeGateway()), scenario)
    left, right = seen[0][:50], seen[0][50:]
    assert "Reviewer (claude-code) ⟳ refresh context" in left
    assert "refresh" not in right
    assert isinstance(cells[1], CellInfo) and not cells[1].refresh


def test_work_panel_opens_the_pairs_conversation() -> None:
    gateway = FakeGateway()
    gateway.results["work_state"] = STATE
    gateway.results["read_conversation_page"] = {
        "conversation": "c", "parties": ["Reviewer", "Conductor"], "segments": [],
        "segment": None, "turns": [], "problems": []}
    seen: list[tuple[str, str, tuple[str, str]]] = []

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await show(pilot, grid_scene(100, 28, 1, 2), [])
        await app.runner.run("work")
        await settle(pilot)
        await pilot.press("down", "v")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ConversationScreen)
        seen.append((screen.a, screen.b, screen.labels))

    drive(make_app(gateway), scenario)
    assert seen == [("a2", "a1", ("Reviewer", "Conductor"))]


def test_work_panel_keys_go_to_the_cell_and_refresh() -> None:
    gateway = FakeGateway()
    gateway.results["work_state"] = STATE
    gateway.results["agent_list"] = [{"id": "a2", "name": "Reviewer", "state": "running",
                                      "cell": "cell-1"}]
    gateway.results["agent_refresh"] = {"agent": "Reviewer", "ticket": "T1", "sections":
                                        ["state"]}

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await show(pilot, grid_scene(100, 28, 1, 2), [])
        await app.runner.run("work")
        await settle(pilot)
        await pilot.press("down", "f")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)

    drive(make_app(gateway), scenario)
    calls = [(method, params) for method, params in gateway.calls
             if method in ("work_state", "agent_refresh", "select")]
    assert ("agent_refresh", {"agent": "a2"}) in calls
    assert ("select", {"target": "%cell-1"}) in calls
    assert calls[0][0] == "work_state"
