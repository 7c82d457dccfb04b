"""Attach, split, type, detach and reattach through the real client in a terminal (tmux).

The first scenario of issue 2's test list: every step goes through keys typed into the
attached client, and every size is checked three ways — what the daemon reports
(`idea list-cells`), what the client drew, and what `stty size` says inside the cell.
"""

from __future__ import annotations

import pytest

from tests.helpers.idea import PROMPT_RE, IdeaEnv
from tests.helpers.tui import Box, TuiClient, TuiFactory

pytestmark = pytest.mark.e2e


def assert_sizes_agree(idea: IdeaEnv, client: TuiClient) -> dict[int, Box]:
    """Daemon, drawing and the shells agree on every cell's size; returns the drawing."""
    cells = idea.cells()
    drawn = client.wait_cells(len(cells))
    for cell in cells:
        box = drawn[cell["index"]]
        assert (cell["cols"], cell["rows"]) == (box.cols, box.rows), (cell, box)
        assert idea.stty_size(str(cell["index"])) == (box.cols, box.rows), box
    return drawn


def test_split_type_detach_and_reattach_from_a_second_client(
        idea: IdeaEnv, tui: TuiFactory) -> None:
    project = idea.new_project("proj")
    first = tui(width=120, height=35)
    first.wait_cells(1)
    first.prefix("%")
    boxes = first.wait_cells(2)
    # Side by side, filling the 120 columns less one border; rows: 35 less tab bar,
    # status line and the title line.
    assert boxes[0].y == boxes[1].y == 1
    assert boxes[0].cols + 1 + boxes[1].cols == 120
    assert boxes[0].rows == boxes[1].rows == 32

    # The new cell (right) has the focus: type there, then in the left one.
    first.wait_for("│" + PROMPT_RE)
    first.type("echo right-$((40+2))")
    first.send_keys("Enter")
    first.wait_for(r"│right-42")
    first.prefix("Left")
    first.type("echo left-$((50+5))")
    first.send_keys("Enter")
    first.wait_for(r"^left-55")
    assert "right-42" in idea.capture("1") and "left-55" in idea.capture("0")

    first.prefix("d")
    assert first.wait_exit() == 0
    assert "[detached]" in first.transcript()
    listing = idea.json("ls")
    assert listing["windows"][0]["clients"] == 0
    cells = idea.cells()
    assert all(cell["running"] for cell in cells), cells
    pids = [cell["pid"] for cell in cells]

    # Output produced while nobody is attached is there on reattach.
    idea.shell("0", "echo while-away-$((3*3))", "while-away-9")
    second = tui(width=100, height=30)
    screen = second.wait_for(r"while-away-9")
    assert "left-55" in screen and "right-42" in screen
    assert f"1:{project.name}" in second.lines()[0]
    assert [cell["pid"] for cell in idea.cells()] == pids
    boxes = assert_sizes_agree(idea, second)
    assert boxes[0].cols + 1 + boxes[1].cols == 100
    assert boxes[0].rows == 30 - 3
