"""A grid with merged spans, built from the keys and from the command line, outlives the daemon.

After `idea kill-server -f` and a fresh start, every page comes back with the same cells (ids,
places, sizes) and new shells in them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.idea import PROMPT_RE, IdeaEnv
from tests.helpers.retry import retry_until
from tests.helpers.tui import TuiFactory

pytestmark = pytest.mark.e2e


def page_cells(idea: IdeaEnv, page: str) -> list[dict[str, Any]]:
    return idea.cells("--page", page)


def without_sessions(path: Path) -> Any:
    """layouts.json minus the ids of the shells' sessions (new shells get new ones)."""
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items() if key != "session"}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    return strip(json.loads(path.read_text()))


def shape(cells: list[dict[str, Any]]) -> list[tuple[str, int, int, int]]:
    return [(cell["id"], cell["index"], cell["cols"], cell["rows"]) for cell in cells]


def test_grid_with_spans_from_keys_and_cli_survives_a_restart(
        idea: IdeaEnv, tui: TuiFactory) -> None:
    project = idea.new_project("proj")
    client = tui(width=120, height=35)
    client.wait_cells(1)

    # From the keys: a 2x2 grid, then the top-left cell absorbs its right neighbour.
    client.prefix("g")
    client.wait_for("Grid size")
    client.type("2x2")
    client.send_keys("Enter")
    client.wait_cells(4)
    idea.run("select", "-t", "0")
    client.prefix("m")
    client.wait_for("MERGE")
    client.send_keys("Right")
    keys_boxes = client.wait_cells(3)
    assert keys_boxes[0].cols == 120, keys_boxes            # spans both columns
    assert keys_boxes[1].cols + 1 + keys_boxes[2].cols == 120
    assert keys_boxes[1].y == keys_boxes[2].y > keys_boxes[0].y

    # From the command line, on a second page: the left column spans both rows.
    idea.run("layout", "new", "Built")
    idea.run("grid", "2x2")
    idea.run("merge", "-t", "0", "-s", "2")
    cli_boxes = retry_until(lambda: b if len(b := client.cells()) == 3 and b[0].rows > 20
                            else None, describe=client.screen)
    assert cli_boxes[0].rows == 32, cli_boxes                # spans both rows
    assert cli_boxes[1].x == cli_boxes[2].x > cli_boxes[0].x

    before = {page: page_cells(idea, page) for page in ("Default", "Built")}
    layouts = project / ".ideai" / "layouts.json"
    saved = without_sessions(layouts)

    idea.run("kill-server", "-f")
    assert client.wait_exit() == 0
    assert not idea.daemon_running()
    assert without_sessions(layouts) == saved

    idea.run("project", "list")  # starts a fresh daemon, which reopens everything
    again = tui(width=120, height=35)
    assert again.wait_cells(3) == cli_boxes           # the page shown last
    for page, cells in before.items():
        after = page_cells(idea, page)
        assert shape(after) == shape(cells), page
        assert all(cell["running"] for cell in after)
        assert {c["pid"] for c in after}.isdisjoint({c["pid"] for c in cells})
    idea.run("layout", "switch", "Default")
    assert retry_until(lambda: b if (b := again.cells()) == keys_boxes else None,
                       describe=again.screen) == keys_boxes
    # New shells start in the project root.
    again.wait_for("^" + PROMPT_RE)
    assert idea.in_directory("0", project)


def test_layouts_file_round_trips_through_a_restart(idea: IdeaEnv) -> None:
    project: Path = idea.new_project("proj")
    idea.run("grid", "2x3")
    idea.run("merge", "-t", "4", "-s", "5")
    idea.run("layout", "rename", "Work")
    before = shape(idea.cells())
    layouts = project / ".ideai" / "layouts.json"
    saved = without_sessions(layouts)
    idea.run("kill-server", "-f")
    idea.run("open", str(project))
    assert shape(idea.cells()) == before
    assert [page["name"] for page in idea.json("layout", "list")] == ["Work"]
    assert without_sessions(layouts) == saved
