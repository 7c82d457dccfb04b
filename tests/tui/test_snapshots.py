"""SVG snapshots of the client: the workspace and its screens at a fixed 100x30.

No live shell is involved: cells show fixed rows fed as `CellFrame`s (colours, attributes,
wide characters), screens get their data passed in. Stored under `snapshots/test_snapshots/`;
`pytest tests/tui/test_snapshots.py --snapshot-update` rewrites them after a deliberate
change (look at the report first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input

from adapters.ipc.messages import TabInfo
from idea_tui.app import IdeaApp
from idea_tui.screens.help import HelpScreen
from idea_tui.screens.palette import PaletteScreen
from idea_tui.screens.projects import ProjectsScreen
from idea_tui.screens.tree import TreeScreen
from idea_tui.widgets.bars import TabBar
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import SIZE, drive, make_app, settle, show, wait_for_screen
from tests.helpers.scenes import SAMPLE_CONTENT, frame, grid_scene

SnapCompare = Callable[..., bool]

SCENE = grid_scene(100, 28, 2, 2, focused=3, commands=("bash", "bash", "bash", "vim"),
                   titles=("", "colours", "", "main.py"), tabs=("web", "api", "docs"),
                   pages=("Default", "Build"))
FRAMES = [frame(SCENE, i, rows, cursor=(len("user@host:~/web$ "), 2) if i == 0 else (0, 0))
          for i, rows in enumerate(SAMPLE_CONTENT)]
FRAMES[3] = frame(SCENE, 3, SAMPLE_CONTENT[3], cursor=(4, 1))


def workspace_app() -> IdeaApp:
    return make_app(FakeGateway())


async def with_workspace(pilot: Pilot[str]) -> None:
    await show(pilot, SCENE, FRAMES)
    await settle(pilot)


def keys_then(screen: type[Screen[Any]], *keys: str,
              typed: str = "") -> Callable[[Pilot[str]], Any]:
    """Press `keys`, wait for `screen` to be shown (its action may still be waiting for an
    answer, so workers are not awaited), then type `typed` into it."""
    async def run_before(pilot: Pilot[str]) -> None:
        await with_workspace(pilot)
        await pilot.press(*keys)
        await wait_for_screen(pilot, screen)
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await pilot.press(*typed)
        await pilot.pause()

    return run_before


def test_workspace_grid(snap_compare: SnapCompare) -> None:
    """2x2 grid: coloured ls, truecolour and attributes, wide characters, a vim-like cell
    (focused, with the cursor), tabs and pages."""
    assert snap_compare(workspace_app(), terminal_size=SIZE, run_before=with_workspace)


def test_help_screen(snap_compare: SnapCompare) -> None:
    assert snap_compare(workspace_app(), terminal_size=SIZE,
                        run_before=keys_then(HelpScreen, "ctrl+b", "question_mark"))


def test_palette(snap_compare: SnapCompare) -> None:
    assert snap_compare(workspace_app(), terminal_size=SIZE,
                        run_before=keys_then(PaletteScreen, "ctrl+b", "colon"))


def test_palette_filtered(snap_compare: SnapCompare) -> None:
    assert snap_compare(workspace_app(), terminal_size=SIZE,
                        run_before=keys_then(PaletteScreen, "ctrl+b", "colon", typed="split"))


PROJECTS = [
    {"id": "p1", "name": "web", "root": "/home/user/code/web", "open": True, "window": "main"},
    {"id": "p2", "name": "api", "root": "/home/user/code/api", "open": True,
     "window": "backend"},
    {"id": "p3", "name": "notes", "root": "/home/user/notes", "open": False, "window": None},
]


def test_projects_panel(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[str]) -> None:
        await with_workspace(pilot)
        pilot.app.push_screen(ProjectsScreen(None, projects=PROJECTS, cwd="/home/user/code/new"))
        await settle(pilot)

    assert snap_compare(workspace_app(), terminal_size=SIZE, run_before=run_before)


def test_projects_panel_empty(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[str]) -> None:
        await with_workspace(pilot)
        pilot.app.push_screen(ProjectsScreen(None, projects=[], cwd="/home/user"))
        await settle(pilot)

    assert snap_compare(workspace_app(), terminal_size=SIZE, run_before=run_before)


def _page(project: str, root: str, name: str, active: bool, count: int) -> dict[str, Any]:
    """A page of the `ls` answer with `count` cells."""
    cells = [{"id": f"{project}-{name}-{i}", "target": f"{project}:{name}.{i}",
              "project": project, "root": root, "page": name, "index": i,
              "focused": i == 0, "running": True} for i in range(count)]
    return {"name": name, "kind": "terminal", "active": active, "cells": cells}


def _project(name: str, root: str, active: bool, *pages: tuple[str, bool, int]
             ) -> dict[str, Any]:
    return {"name": name, "root": root, "active": active, "problems": [], "worktrees": [],
            "pages": [_page(name, root, *page) for page in pages]}


OVERVIEW = {"problems": [], "sessions": 10, "windows": [
    {"name": "main", "id": "w1", "clients": 2, "projects": [
        _project("web", "/home/user/code/web", True, ("Default", True, 4), ("Build", False, 1)),
        _project("api", "/home/user/code/api", False, ("Default", True, 2)),
    ]},
    {"name": "backend", "id": "w2", "clients": 0, "projects": [
        _project("db", "/srv/db", True, ("Default", True, 3)),
    ]},
]}


def test_tree_screen(snap_compare: SnapCompare) -> None:
    async def run_before(pilot: Pilot[str]) -> None:
        await with_workspace(pilot)
        pilot.app.push_screen(TreeScreen(None, overview=OVERVIEW))
        await settle(pilot)

    assert snap_compare(workspace_app(), terminal_size=SIZE, run_before=run_before)


def test_exited_cell_and_status_message(snap_compare: SnapCompare) -> None:
    """A cell whose shell exited shows its status in the title; a notice on the status line."""
    from adapters.ipc.messages import Notice

    async def run_before(pilot: Pilot[str]) -> None:
        scene = grid_scene(100, 28, 1, 2, focused=0)
        scene.cells[1].running = False
        scene.cells[1].exit_code = 3
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await show(pilot, scene, [frame(scene, 0, SAMPLE_CONTENT[0], cursor=(17, 2)),
                                  frame(scene, 1, [(("e2e$ exit 3", -1, -1, 0),)])])
        app.handle_message(Notice(text="layouts.json cannot be read", level="error"))
        await settle(pilot)

    assert snap_compare(workspace_app(), terminal_size=SIZE, run_before=run_before)


UNAVAILABLE_SCENE = msgspec.structs.replace(SCENE, tabs=[
    *SCENE.tabs[:2],
    TabInfo(project="", name="docs", root="/home/user/docs",
            unavailable="/home/user/docs is missing")])


async def with_unavailable_tab(pilot: Pilot[str]) -> None:
    await show(pilot, UNAVAILABLE_SCENE, FRAMES)
    await settle(pilot)


def test_workspace_with_an_unavailable_project_tab(snap_compare: SnapCompare) -> None:
    """A project whose folder is gone keeps its tab, after the open ones: the reason, in
    red, and what a click does (retry)."""
    assert snap_compare(workspace_app(), terminal_size=SIZE, run_before=with_unavailable_tab)


def test_a_click_on_an_unavailable_tab_retries_opening_it() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await show(pilot, UNAVAILABLE_SCENE, FRAMES)
        await settle(pilot)
        bar = pilot.app.query_one(TabBar)
        start = bar.render().plain.index("⚠")
        await pilot.click(TabBar, offset=(start + 2, 0))
        await settle(pilot)

    drive(make_app(gateway), scenario)
    assert ("project_open", {"path": "/home/user/docs"}) in gateway.calls
    assert not any(method == "project_switch" for method, _ in gateway.calls)
