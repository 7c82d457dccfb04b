"""A message the client fails to show is reported and does not stop the next ones."""

from __future__ import annotations

from textual.pilot import Pilot

from core.terminal import row_text
from idea_tui.app import IdeaApp
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import drive, make_app, show
from tests.helpers.scenes import SAMPLE_CONTENT, frame, grid_scene


def test_a_frame_that_cannot_be_shown_is_reported_and_later_ones_are_shown() -> None:
    scene = grid_scene(100, 28, 1, 2, focused=0)

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await show(pilot, scene)
        real = app.view.apply_frame
        calls = {"n": 0}

        def broken_once(message: object) -> None:
            calls["n"] += 1
            if calls["n"] == 1:
                raise ValueError("cannot draw this")
            real(message)  # type: ignore[arg-type]

        app.view.apply_frame = broken_once  # type: ignore[method-assign, assignment]
        app.handle_message(frame(scene, 0, SAMPLE_CONTENT[0]))
        await pilot.pause()
        assert "display error" in app.status.message
        app.handle_message(frame(scene, 1, SAMPLE_CONTENT[1]))
        await pilot.pause()
        mirror = app.view.mirrors[scene.cells[1].id]
        first_run_text = SAMPLE_CONTENT[1][0][0][0]
        assert mirror.lines and row_text(mirror.lines[0]).startswith(first_run_text)

    drive(make_app(FakeGateway()), scenario)
