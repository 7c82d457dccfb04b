"""The attached client's keyboard, paste and mouse handling, against a recording gateway.

Keys not bound after the prefix go to the focused cell, including the ones Textual binds by
default; workspace actions become daemon commands.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from textual import events
from textual.pilot import Pilot

import idea_tui.app
from idea_tui.app import HOLD_LIMIT, IdeaApp
from idea_tui.widgets.workspace_view import WorkspaceView
from tests.helpers.fake_gateway import FakeGateway, Mouse
from tests.helpers.pilot import drive, make_app, ready, settle, show
from tests.helpers.scenes import grid_scene

SCENE = grid_scene(100, 28, 1, 2, focused=1)
FOCUSED = "%cell-1"


def app_of(pilot: Pilot[str]) -> IdeaApp:
    app = pilot.app
    assert isinstance(app, IdeaApp)
    return app


def test_prefix_then_percent_splits_the_focused_cell() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b")
        assert app_of(pilot).status.mode == "PREFIX"
        await pilot.press("%")
        await settle(pilot)
        assert app_of(pilot).status.mode == ""

    drive(make_app(gateway), scenario)
    assert gateway.calls == [("split", {"target": FOCUSED, "direction": "right"})]
    assert gateway.keys == []


async def until(pilot: Pilot[str], condition: Callable[[], bool]) -> None:
    """Let the app run until `condition` holds (5 s at most; the assertions follow)."""
    for _ in range(100):
        if condition():
            return
        await pilot.pause(0.05)


def test_keys_typed_right_after_a_focus_move_go_to_the_cell_moved_to(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """prefix ← then typing at once: the keys wait for the daemon's answer (which comes
    after the new scene) and go to the left cell, never to the one just left."""
    monkeypatch.setattr(idea_tui.app, "HOLD_LIMIT", 60.0)  # a slow machine never expires it
    gateway = FakeGateway()
    answer = asyncio.Event()

    async def select(params: dict[str, object]) -> None:
        await answer.wait()

    gateway.results["select"] = select

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "left", "l", "s")
        await until(pilot, lambda: gateway.methods() == ["select"])
        assert gateway.keys == []  # held while the focus move is on its way
        await show(pilot, grid_scene(100, 28, 1, 2, focused=0))
        answer.set()
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)

    drive(make_app(gateway), scenario)
    assert gateway.keys == [("cell-0", "l", "l"), ("cell-0", "s", "s"),
                            ("cell-0", "enter", None)]


def test_keys_held_behind_a_slow_action_are_released_not_lost() -> None:
    """An action that takes long (say a dialog) delays typing by HOLD_LIMIT at most."""
    gateway = FakeGateway()
    never = asyncio.Event()

    async def select(params: dict[str, object]) -> None:
        await never.wait()

    gateway.results["select"] = select

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "left", "x")
        await pilot.pause(HOLD_LIMIT)
        await until(pilot, lambda: bool(gateway.keys))  # the hold's timer has fired
        assert gateway.keys == [("cell-1", "x", "x")]
        await pilot.press("y")
        await pilot.pause()
        assert gateway.keys[-1] == ("cell-1", "y", "y")
        never.set()
        await settle(pilot)

    drive(make_app(gateway), scenario)


def test_keys_textual_binds_by_default_go_to_the_cell() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("tab", "ctrl+q", "ctrl+c", "ctrl+p", "a", "enter")
        await settle(pilot)
        app = app_of(pilot)
        assert app.is_running and app.return_value is None
        assert len(app.screen_stack) == 1  # no command palette, no quit

    drive(make_app(gateway), scenario)
    assert [key for cell, key, _ in gateway.keys] == \
        ["tab", "ctrl+q", "ctrl+c", "ctrl+p", "a", "enter"]
    assert {cell for cell, _, _ in gateway.keys} == {"cell-1"}
    assert gateway.calls == []


def test_prefix_twice_sends_the_prefix_to_the_cell() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "ctrl+b")
        await settle(pilot)

    drive(make_app(gateway), scenario)
    assert gateway.keys == [("cell-1", "ctrl+b", None)]
    assert gateway.calls == []


def test_an_unbound_key_after_the_prefix_says_so() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "f12")
        await settle(pilot)
        status = app_of(pilot).status
        assert "ctrl+b f12: not bound" in status.message
        assert "?" in status.message
        # The next key is an ordinary key again.
        await pilot.press("x")
        await settle(pilot)

    drive(make_app(gateway), scenario)
    assert gateway.calls == []
    assert gateway.keys == [("cell-1", "x", "x")]


def test_merge_mode_then_an_arrow_merges_in_that_direction() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.press("ctrl+b", "m")
        await settle(pilot)
        assert "MERGE" in app_of(pilot).status.mode
        await pilot.press("left")
        await settle(pilot)
        assert app_of(pilot).status.mode == ""

    drive(make_app(gateway), scenario)
    assert gateway.calls == [("merge", {"target": FOCUSED, "direction": "left"})]
    assert gateway.keys == []


def test_a_paste_goes_to_the_focused_cell_whole() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        pilot.app.post_message(events.Paste("echo one\necho two\n"))
        await settle(pilot)

    drive(make_app(gateway), scenario)
    assert gateway.pastes == [("cell-1", "echo one\necho two\n")]
    assert gateway.keys == []


def test_clicking_a_cell_selects_it() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        left = SCENE.cells[0]
        await pilot.click(WorkspaceView, offset=(left.x + 5, left.y + 3))
        await settle(pilot)
        # Clicking the focused cell does not select it again.
        right = SCENE.cells[1]
        await pilot.click(WorkspaceView, offset=(right.x + 5, right.y + 3))
        await settle(pilot)

    drive(make_app(gateway), scenario)
    assert gateway.calls == [("select", {"target": "%cell-0"})]
    # The program did not ask for the mouse: nothing is forwarded to it.
    assert gateway.mice == []


def test_clicks_reach_a_program_that_asked_for_the_mouse() -> None:
    gateway = FakeGateway()
    from tests.helpers.scenes import frame

    mouse_frame = frame(SCENE, 1, [])
    mouse_frame.mouse = True

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE, [mouse_frame])
        right = SCENE.cells[1]
        await pilot.click(WorkspaceView, offset=(right.x + 4, right.y + 3))
        await settle(pilot)

    drive(make_app(gateway), scenario)
    # Title line is row 0 of the cell: the program's row 2 is the screen row y + 3.
    assert Mouse("cell-1", "press", 0, 4, 2) in gateway.mice
    assert gateway.calls == []


def test_dragging_a_vertical_border_sets_it() -> None:
    gateway = FakeGateway()
    border = SCENE.borders[0]

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        await pilot.mouse_down(WorkspaceView, offset=(border.x, 10))
        await pilot.hover(WorkspaceView, offset=(border.x - 10, 10))
        await pilot.mouse_up(WorkspaceView, offset=(border.x - 20, 10))
        await settle(pilot)

    drive(make_app(gateway), scenario)
    set_border = [params for method, params in gateway.calls if method == "set_border"]
    assert set_border, gateway.calls
    assert set_border[-1] == {"container": border.container, "index": border.index,
                              "position": border.x - 20, "vertical": True, "drag": 1}
    # Every move of the drag names the same drag (the daemon makes it one undo step).
    assert {params["drag"] for params in set_border} == {1}
    assert "select" not in gateway.methods()


def test_each_drag_of_a_border_is_named_anew() -> None:
    gateway = FakeGateway()
    border = SCENE.borders[0]

    async def scenario(pilot: Pilot[str]) -> None:
        await ready(pilot, gateway, SCENE)
        for end in (border.x - 20, border.x - 10):
            await pilot.mouse_down(WorkspaceView, offset=(border.x, 10))
            await pilot.mouse_up(WorkspaceView, offset=(end, 10))
            await settle(pilot)

    drive(make_app(gateway), scenario)
    drags = [params["drag"] for method, params in gateway.calls if method == "set_border"]
    assert drags[0] != drags[-1], drags


def test_the_client_reports_its_grid_size() -> None:
    gateway = FakeGateway()

    async def scenario(pilot: Pilot[str]) -> None:
        await settle(pilot)
        await pilot.resize_terminal(80, 20)
        await settle(pilot)

    drive(make_app(gateway), scenario)
    # Connected with the screen less the tab bar and the status line, then resized.
    assert gateway.sizes[0] == (100, 28)
    assert gateway.sizes[-1] == (80, 18)
