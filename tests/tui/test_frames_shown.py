"""The client tells the daemon how many frames it has drawn, once the screen was repainted
with them (the daemon keeps other cells' frames back while it is behind: see
tests/daemon/test_frame_flow.py)."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from idea_tui.app import IdeaApp
from idea_tui.widgets import workspace_view
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import drive, make_app, settle, show
from tests.helpers.scenes import frame, grid_scene, prompt, run


def test_frames_are_reported_drawn_after_the_repaint_that_shows_them() -> None:
    gateway = FakeGateway()
    scene = grid_scene(100, 28, 1, 2, focused=0)

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await show(pilot, scene, [frame(scene, 0, [prompt()]), frame(scene, 1, [prompt()])])
        await settle(pilot)
        assert gateway.shown and gateway.shown[-1] == 2
        reported = len(gateway.shown)
        await show(pilot, scene, [frame(scene, 1, [prompt(f"ls {n}")]) for n in range(3)])
        await settle(pilot)
        # Three frames drawn in one repaint: said once, with the new count.
        assert gateway.shown[reported:] == [5]
        assert "ls 2" in "".join(segment.text for segment in app.view.render_line(1))

    drive(make_app(gateway), scenario)


def test_another_cells_whole_screen_is_drawn_over_several_repaints_after_an_echo(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The echo is awaited as long as it takes here (not 0.1 s): the test does not depend on
    # how fast this machine is.
    monkeypatch.setattr(workspace_view, "ECHO_WAIT", 60.0)
    gateway = FakeGateway()
    scene = grid_scene(100, 28, 1, 2, focused=0)

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await show(pilot, scene, [frame(scene, 0, [prompt()]), frame(scene, 1, [prompt()])])
        await settle(pilot)
        view = app.view
        # A key to the focused cell, then the other cell's whole screen changes: its rows
        # wait for the echo, which is drawn first.
        await pilot.press("x")
        assert gateway.keys[-1][1:] == ("x", "x")
        lines = [(run(f"flood {n}"),) for n in range(26)]
        app.handle_message(frame(scene, 1, lines))
        await pilot.pause()
        await pilot.pause()
        assert view.painting  # still waiting for the echo, however many repaints pass
        assert gateway.shown[-1] == 2  # nor are the frames said to be drawn
        app.handle_message(frame(scene, 0, [prompt("x")]))
        for _ in range(40):
            await pilot.pause()
            if not view.painting:
                break
        assert not view.painting
        assert "flood 0" in "".join(s.text for s in view.render_line(1))
        assert "flood 25" in "".join(s.text for s in view.render_line(26))
        await settle(pilot)
        assert gateway.shown[-1] == 4  # said once every row of the four frames was drawn

    drive(make_app(gateway), scenario)
