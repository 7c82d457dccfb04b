"""SVG snapshots of cells (issue 3): the attention marker and copy mode.

Fixed rows fed as `CellFrame`s, no live shell; stored under `snapshots/test_cell_snapshots/`.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.pilot import Pilot

from idea_tui.app import IdeaApp
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import SIZE, make_app, settle, show
from tests.helpers.scenes import SAMPLE_CONTENT, frame, grid_scene

SnapCompare = Callable[..., bool]

LOG_LINES = [f"build step {i:03d}: compiling module_{i % 7}.py" for i in range(60)]


def history_gateway() -> FakeGateway:
    """A gateway whose daemon holds 60 lines of scrollback for every cell."""
    gateway = FakeGateway()
    rows = [[[line, -1, -1, 0]] for line in LOG_LINES]

    def history(params: dict[str, object]) -> dict[str, object]:
        start = int(str(params.get("start", 0)))
        count = int(str(params.get("count", 0)))
        return {"size": len(rows), "start": start, "rows": rows[start:start + count]}

    gateway.results["history"] = history
    return gateway


def test_attention_marker(snap_compare: SnapCompare) -> None:
    """A cell that rang the bell while another had the focus: its title is marked."""
    async def run_before(pilot: Pilot[str]) -> None:
        scene = grid_scene(100, 28, 1, 3, focused=0,
                           commands=("bash", "claude-agent", "bash"))
        scene.cells[1].attention = True
        await show(pilot, scene, [frame(scene, i, SAMPLE_CONTENT[i], cursor=(0, 0))
                                  for i in range(3)])
        await settle(pilot)

    assert snap_compare(make_app(FakeGateway()), terminal_size=SIZE, run_before=run_before)


def test_copy_mode_search_and_selection(snap_compare: SnapCompare) -> None:
    """Copy mode: scrolled back into the history, a search match and a selection."""
    async def run_before(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        scene = grid_scene(100, 28, 1, 1, focused=0)
        screen_rows = [((f"$ tail -f build.log   # line {i}", -1, -1, 0),) for i in range(27)]
        await show(pilot, scene, [frame(scene, 0, screen_rows, cursor=(2, 26))])
        await pilot.press("ctrl+b", "left_square_bracket")
        await settle(pilot)
        mirror = app.view.mirrors[scene.cells[0].id]
        copy = mirror.copy
        assert copy is not None, "copy mode did not start"
        copy.search("module_3")
        copy.handle_key("v", "v")
        copy.move(lines=2, cols=5)
        app.view.refresh_cell(scene.cells[0].id)
        await settle(pilot)

    assert snap_compare(make_app(history_gateway()), terminal_size=SIZE, run_before=run_before)
