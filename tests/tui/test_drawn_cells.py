"""The e2e tests read cell geometry back from the client's drawing (`drawn_cells`): check
that reading against what the real widget draws for known scenes."""

from __future__ import annotations

from textual.pilot import Pilot

from adapters.ipc.messages import Scene
from idea_tui.app import IdeaApp
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import drive, make_app, settle, show
from tests.helpers.scenes import grid_scene
from tests.helpers.tui import Box, drawn_cells


def drawn_lines(scene: Scene, size: tuple[int, int]) -> list[str]:
    """The screen as text: tab bar, the grid widget's lines, status bar."""
    lines: list[str] = []

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await show(pilot, scene)
        await settle(pilot)
        view = app.view
        lines.append("tabs")
        lines.extend("".join(segment.text for segment in view.render_line(y)).rstrip()
                     for y in range(view.size.height))
        lines.append("status")

    drive(make_app(FakeGateway()), scenario, size)
    return lines


def expected(scene: Scene) -> dict[int, Box]:
    return {cell.index: Box(cell.index, cell.x, cell.y + 1, cell.width, cell.height - 1)
            for cell in scene.cells}


def test_a_grid_is_read_back_exactly() -> None:
    scene = grid_scene(100, 28, 2, 3, focused=4, commands=("bash", "vim", "less"))
    assert drawn_cells(drawn_lines(scene, (100, 30))) == expected(scene)


def test_spans_and_a_window_smaller_than_the_terminal() -> None:
    scene = grid_scene(90, 22, 2, 2)
    top, right = scene.cells[0], scene.cells[1]
    # The top cell spans both columns (a merge): drop its right neighbour and its border.
    top.width = 90
    scene.cells.remove(right)
    scene.borders = [b for b in scene.borders if b.y != 0]
    for index, cell in enumerate(scene.cells):
        cell.index = index
    lines = drawn_lines(scene, (120, 35))
    assert lines[30].startswith("·")  # below the window: outside
    assert drawn_cells(lines) == expected(scene)
