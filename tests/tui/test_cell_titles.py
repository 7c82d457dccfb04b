"""A `CellTitle` from the daemon retitles one cell's title line; the rest of the screen and
the scene stay as they were (no rebuild, nothing repainted but that line)."""

from __future__ import annotations

from textual.pilot import Pilot

from adapters.ipc.messages import CellFrame, CellTitle
from idea_tui.app import IdeaApp
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import drive, make_app, settle, show
from tests.helpers.scenes import grid_scene, run


def test_a_cell_title_changes_only_that_cells_title_line() -> None:
    scene = grid_scene(100, 28, 1, 2, titles=("old title", "other"))
    frame = CellFrame(cell="cell-0", cols=scene.cells[0].width, rows=27,
                      lines=[(0, (run("hello"),))], cursor=(0, 0, True, 0), full=True)
    seen: dict[str, object] = {}

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await show(pilot, scene, [frame])
        await settle(pilot)
        view = app.view
        before = [view.render_line(y).text for y in range(view.size.height)]
        plan = view._plan
        app.handle_message(CellTitle(cell="cell-0", title="new title"))
        await settle(pilot)
        after = [view.render_line(y).text for y in range(view.size.height)]
        seen.update(before=before, after=after, same_plan=view._plan is plan,
                    same_scene=view.scene is scene)

    drive(make_app(FakeGateway()), scenario)
    before, after = seen["before"], seen["after"]
    assert isinstance(before, list) and isinstance(after, list)
    assert "old title" in before[0] and "new title" in after[0]
    assert "other" in after[0], "the other cell's title is untouched"
    assert after[1:] == before[1:], "only the title line changed"
    assert seen["same_plan"] and seen["same_scene"], "no new scene was built"
