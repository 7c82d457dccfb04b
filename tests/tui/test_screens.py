"""The client's dialogs driven from the keyboard: palette, projects panel, tree, confirm,
prompt and help, each ending in the daemon command it is for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from idea_tui.control import CommandFailed
from idea_tui.screens.confirm import ConfirmScreen
from idea_tui.screens.help import HelpScreen
from idea_tui.screens.palette import PaletteScreen, matches
from idea_tui.screens.projects import ProjectsScreen
from idea_tui.screens.prompt import PromptScreen
from idea_tui.screens.tree import TreeScreen
from idea_tui.widgets.bars import StatusBar
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import drive, make_app, ready, settle, wait_for_screen
from tests.helpers.scenes import grid_scene

SCENE = grid_scene(100, 28, 1, 2, focused=1)


def test_palette_filters_and_runs_the_chosen_action() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", ":")
        await wait_for_screen(pilot, PaletteScreen)
        await pilot.press(*"split below", "enter")
        await settle(pilot)
        assert len(pilot.app.screen_stack) == 1

    drive(make_app(gateway), scenario)
    assert gateway.calls == [("split", {"target": "%cell-1", "direction": "down"})]


def test_palette_escape_runs_nothing() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", ":")
        await wait_for_screen(pilot, PaletteScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert len(pilot.app.screen_stack) == 1
        await pilot.press("z")
        await settle(pilot)

    drive(make_app(gateway), scenario)
    assert gateway.calls == []
    assert gateway.keys == [("cell-1", "z", "z")]  # keys go to the cell again


def test_palette_matching_is_every_word_anywhere() -> None:
    assert matches("split below", "split_down Split: new cell below Cells")
    assert matches("BELOW", "Split: new cell below")
    assert not matches("split left", "Split: new cell below")


PROJECTS = [
    {"id": "p1", "name": "web", "root": "/home/user/web", "open": True, "window": "main"},
    {"id": "p2", "name": "api", "root": "/home/user/api", "open": False, "window": None},
]


def test_projects_panel_opens_the_chosen_project() -> None:
    gateway = FakeGateway(results={"project_list": PROJECTS})

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "P")
        await wait_for_screen(pilot, ProjectsScreen)
        await settle(pilot)
        await pilot.press("down", "enter")
        await settle(pilot)
        assert len(pilot.app.screen_stack) == 1

    drive(make_app(gateway), scenario)
    assert gateway.calls == [("project_list", {}),
                             ("project_open", {"path": "/home/user/api"})]


def probe(root: str, *, project: bool) -> dict[str, object]:
    """What `project_probe` answers for a folder."""
    return {"root": root, "directory": True, "registered": False, "hasProjectFile": project,
            "open": False}


def test_projects_panel_asks_the_daemon_whether_a_folder_is_a_project() -> None:
    """The daemon's files are not the client's (remote projects): a folder that holds a
    project there is opened even though nothing exists at that path here."""
    remote = "/nonexistent-remote-host/proj"
    gateway = FakeGateway(results={"project_list": PROJECTS,
                                   "project_probe": probe(remote, project=True),
                                   "project_open": {"name": "proj", "root": remote}})

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "P")
        screen = await wait_for_screen(pilot, ProjectsScreen)
        await settle(pilot)
        await pilot.press("tab")
        screen.query_one(Input).value = remote
        await pilot.press("enter")
        await settle(pilot)
        assert len(pilot.app.screen_stack) == 1

    drive(make_app(gateway), scenario)
    assert gateway.calls[-2:] == [("project_probe", {"path": remote}),
                                  ("project_open", {"path": remote})]


def test_projects_panel_creates_a_project_from_the_path_box(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    gateway = FakeGateway(results={"project_list": PROJECTS,
                                   "project_probe": probe(str(fresh), project=False),
                                   "project_new": {"name": "fresh", "root": str(fresh)}})

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "P")
        screen = await wait_for_screen(pilot, ProjectsScreen)
        await settle(pilot)
        await pilot.press("tab")
        field = screen.query_one(Input)
        assert field.has_focus
        field.value = str(fresh)
        await pilot.press("enter")
        await settle(pilot)
        assert len(pilot.app.screen_stack) == 1

    drive(make_app(gateway), scenario)
    assert gateway.calls[-1] == ("project_new", {"path": str(fresh)})


def test_projects_panel_closes_a_project_with_x() -> None:
    gateway = FakeGateway(results={"project_list": PROJECTS})

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "P")
        await wait_for_screen(pilot, ProjectsScreen)
        await settle(pilot)
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ProjectsScreen)  # stays open, refreshed

    drive(make_app(gateway), scenario)
    assert ("project_close", {"project": "/home/user/web"}) in gateway.calls
    assert gateway.methods().count("project_list") == 2


def _cells(page: str, count: int) -> list[dict[str, Any]]:
    return [{"id": f"{page}-{i}", "target": f"web:{page}.{i}", "project": "web",
             "root": "/home/user/web", "page": page, "index": i, "focused": i == 0,
             "running": True} for i in range(count)]


OVERVIEW = {"problems": [], "sessions": 3, "windows": [
    {"name": "main", "id": "w1", "clients": 1, "projects": [
        {"name": "web", "root": "/home/user/web", "active": True, "problems": [],
         "worktrees": [], "pages": [
            {"name": "Default", "kind": "terminal", "active": True, "cells": _cells("Default", 1)},
            {"name": "Build", "kind": "terminal", "active": False, "cells": _cells("Build", 2)},
        ]},
    ]},
]}


def test_tree_shows_the_chosen_page() -> None:
    gateway = FakeGateway(results={"ls": OVERVIEW})

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "w")
        await wait_for_screen(pilot, TreeScreen)
        await settle(pilot)
        # window main > web > Default, Build: down three times reaches "Build".
        await pilot.press("down", "down", "down", "enter")
        await settle(pilot)
        assert len(pilot.app.screen_stack) == 1

    drive(make_app(gateway), scenario)
    assert gateway.calls == [
        ("ls", {}),
        ("attach_window", {"window": "main"}),
        ("project_switch", {"which": "/home/user/web"}),
        ("layout_switch", {"project": "/home/user/web", "page": "Build"}),
    ]


def _close_needs_confirmation(params: dict[str, Any]) -> Any:
    if not params.get("force"):
        raise CommandFailed("confirm", "the cell runs sleep: close it anyway?")
    return {"closed": "cell-1"}


def test_closing_a_busy_cell_asks_and_yes_forces_it() -> None:
    gateway = FakeGateway(results={"close": _close_needs_confirmation})

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "x")
        screen = await wait_for_screen(pilot, ConfirmScreen)
        assert "sleep" in screen.question
        await pilot.press("y")
        await settle(pilot)

    drive(make_app(gateway), scenario)
    assert gateway.calls == [("close", {"target": "%cell-1"}),
                             ("close", {"target": "%cell-1", "force": True})]


def test_closing_a_busy_cell_and_answering_no_keeps_it() -> None:
    gateway = FakeGateway(results={"close": _close_needs_confirmation})

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "x")
        await wait_for_screen(pilot, ConfirmScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert len(pilot.app.screen_stack) == 1

    drive(make_app(gateway), scenario)
    assert gateway.calls == [("close", {"target": "%cell-1"})]


def test_a_grid_size_is_asked_for_then_sent() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "g")
        await wait_for_screen(pilot, PromptScreen)
        await pilot.press(*"2x3", "enter")
        await settle(pilot)

    drive(make_app(gateway), scenario)
    assert gateway.calls == [("grid", {"target": "%cell-1", "rows": 2, "cols": 3})]


def test_a_bad_grid_size_is_explained() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "g")
        await wait_for_screen(pilot, PromptScreen)
        await pilot.press(*"lots", "enter")
        await settle(pilot)
        assert "2x3" in pilot.app.query_one(StatusBar).message

    drive(make_app(gateway), scenario)
    assert gateway.calls == []


def test_help_opens_on_prefix_question_mark_and_escape_closes_it() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "?")
        screen = await wait_for_screen(pilot, HelpScreen)
        assert screen.prefix == "ctrl+b"
        await pilot.press("escape")
        await settle(pilot)
        assert len(pilot.app.screen_stack) == 1

    drive(make_app(gateway), scenario)
    assert gateway.calls == [] and gateway.keys == []
