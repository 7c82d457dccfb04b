"""SVG snapshots of the git screens at a fixed 100x30: the git panel (branch with ahead and
behind, staged/unstaged/untracked files, the selected file's coloured diff, the recent log),
a commit's diff (syntax colours, a binary file), and the Git Graph page (lanes, refs,
messages, authors, dates) drawn through the real page code from a fake daemon's answers.
Stored under `snapshots/test_git_snapshots/`; see snapshots/README.md to update them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Input

from idea_tui.screens.git_diff import CommitDiffScreen
from idea_tui.screens.git_panel import GitScreen
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import SIZE, make_app, settle, show
from tests.helpers.scenes import grid_scene
from tests.tui.git_data import APP_DIFF, COMMIT_FILES, HISTORY, STATUS
from tests.tui.test_snapshots import with_workspace

SnapCompare = Callable[..., bool]


def _panel() -> GitScreen:
    return GitScreen(None, status=STATUS, log=HISTORY, diffs={"unstaged:src/app.py": APP_DIFF})


def showing(make: Callable[[], Any], *keys: str) -> Callable[[Pilot[str]], Any]:
    async def run_before(pilot: Pilot[str]) -> None:
        await with_workspace(pilot)
        pilot.app.push_screen(make())
        await settle(pilot)
        await pilot.press(*keys)
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False
        await settle(pilot)

    return run_before


def test_git_panel(snap_compare: SnapCompare) -> None:
    """The first unstaged file selected (down past the staged section and its header); its
    diff on the right with the second hunk selected (`]`)."""
    assert snap_compare(make_app(FakeGateway()), terminal_size=SIZE,
                        run_before=showing(_panel, "down", "down", "down", "right_square_bracket"))


def test_commit_diff_viewer(snap_compare: SnapCompare) -> None:
    assert snap_compare(make_app(FakeGateway()), terminal_size=SIZE, run_before=showing(
        lambda: CommitDiffScreen(None, HISTORY[1], COMMIT_FILES)))


GRAPH_SCENE = grid_scene(100, 28, 1, 1, commands=("git graph",), pages=("Default", "Git Graph"))
GRAPH_SCENE.cells[0].kind = "gitGraph"
GRAPH_SCENE.cells[0].running = False
GRAPH_SCENE.pages[0].active = False
GRAPH_SCENE.pages[1].active = True
GRAPH_SCENE.pages[1].kind = "gitGraph"


def graph_gateway() -> FakeGateway:
    return FakeGateway(results={
        "git_watch": {"root": "/home/user/web", "watching": True},
        "git_log": {"entries": HISTORY, "lanes": [], "more": False},
    })


async def graph_page(pilot: Pilot[str]) -> None:
    await show(pilot, GRAPH_SCENE)
    await settle(pilot)
    await pilot.press("down", "down")
    await settle(pilot)


def test_git_graph_page(snap_compare: SnapCompare) -> None:
    """Lanes for a merged branch and an open one, refs and a tag, the third commit
    selected."""
    assert snap_compare(make_app(graph_gateway()), terminal_size=SIZE, run_before=graph_page)
