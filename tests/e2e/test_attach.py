"""Attach, split, type, detach and reattach through the real client in a terminal (tmux).

The first scenario of issue 2's test list: every step goes through keys typed into the
attached client, and every size is checked three ways — what the daemon reports
(`idea list-cells`), what the client drew, and what `stty size` says inside the cell.
"""

from __future__ import annotations

import os
import re
import signal

import pytest

from tests.helpers.idea import PROMPT_RE, IdeaEnv
from tests.helpers.retry import retry_until
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
    assert_sizes_agree(idea, first)

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
    assert f"0:{project.name}" in second.lines()[0]
    assert [cell["pid"] for cell in idea.cells()] == pids
    boxes = assert_sizes_agree(idea, second)
    assert boxes[0].cols + 1 + boxes[1].cols == 100
    assert boxes[0].rows == 30 - 3


def window_size(idea: IdeaEnv, name: str = "main") -> tuple[int, int]:
    window = next(w for w in idea.json("window", "list") if w["name"] == name)
    return window["width"], window["height"]


def test_two_clients_at_once_the_latest_active_size_wins(idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("proj")
    idea.run("split", "-h")
    idea.run("select", "-t", "0")
    big = tui(width=120, height=35)
    big.wait_cells(2)
    small = tui(width=90, height=25)
    small.wait_cells(2)
    # The client that attached last is the most recently active one.
    retry_until(lambda: window_size(idea) == (90, 23), describe=lambda: str(window_size(idea)))
    boxes = assert_sizes_agree(idea, small)
    assert boxes[0].cols + 1 + boxes[1].cols == 90
    # The bigger terminal shows the smaller window and marks the area outside it.
    retry_until(lambda: big.cells()[1].x + big.cells()[1].cols == 90, describe=big.screen)
    assert big.lines()[5][90:] == "·" * 30

    # Typing in the big client makes it the latest: the window takes its size.
    big.type("echo from-big-$((7*6))")
    big.send_keys("Enter")
    retry_until(lambda: window_size(idea) == (120, 33), describe=lambda: str(window_size(idea)))
    big.wait_for(r"^from-big-42")
    small.wait_for(r"^from-big-42")
    assert_sizes_agree(idea, big)
    # Output from elsewhere reaches both clients.
    idea.send_keys("1", "echo cli-$((5*5))", "Enter")
    big.wait_for(r"│cli-25")
    assert "cli-25" in idea.capture("1")
    small.wait_for(r"│cli-25")


def test_killing_the_client_leaves_the_shells_running(idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("proj")
    idea.run("split", "-h")
    pids = [cell["pid"] for cell in idea.cells()]
    client = tui()
    client.wait_cells(2)
    retry_until(lambda: idea.json("ls")["windows"][0]["clients"] == 1)
    os.kill(client.pid(), signal.SIGKILL)
    assert client.wait_exit() == 128 + signal.SIGKILL
    retry_until(lambda: idea.json("ls")["windows"][0]["clients"] == 0)
    cells = idea.cells()
    assert [cell["pid"] for cell in cells] == pids
    assert all(cell["running"] for cell in cells)
    idea.shell("1", "echo alive-$((2+2))", "alive-4")


def test_zoom_shows_one_cell_then_all_again(idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("proj")
    idea.run("split", "-h")
    client = tui(width=100, height=30)
    client.wait_cells(2)
    client.prefix("z")
    boxes = client.wait_cells(1)
    assert list(boxes) == [1]
    assert (boxes[1].cols, boxes[1].rows) == (100, 27)
    assert "[zoom]" in client.lines()[1]
    assert idea.stty_size("1") == (100, 27)
    client.prefix("z")
    boxes = client.wait_cells(2)
    assert "[zoom]" not in client.screen()
    assert idea.stty_size("1") == (boxes[1].cols, boxes[1].rows)
    assert boxes[1].cols < 100


def test_resize_keys_move_a_border(idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("proj")
    idea.run("split", "-h")
    client = tui(width=100, height=30)
    before = client.wait_cells(2)
    # The focused cell is the new one, on the right: grow it to the left by 1, then by 5.
    client.prefix("C-Left")
    after = retry_until(lambda: b if (b := client.cells())[1].cols == before[1].cols + 1
                        else None, describe=client.screen)
    assert after[0].cols == before[0].cols - 1
    assert after[1].x == before[1].x - 1
    assert idea.stty_size("1") == (after[1].cols, after[1].rows)
    assert idea.stty_size("0") == (after[0].cols, after[0].rows)
    client.prefix("M-Left")
    moved = retry_until(lambda: b if (b := client.cells())[1].cols == after[1].cols + 5
                        else None, describe=client.screen)
    assert idea.stty_size("1") == (moved[1].cols, moved[1].rows)


def test_shell_exit_status_in_the_title_and_enter_restarts(
        idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("proj")
    client = tui(width=100, height=30)
    client.wait_for("^" + PROMPT_RE)
    old_pid = idea.cells()[0]["pid"]
    client.type("exit 3")
    client.send_keys("Enter")
    title = client.wait_for(r"exited 3")
    assert "exited 3" in title.splitlines()[1]
    cell = idea.cells()[0]
    assert (cell["running"], cell["exitCode"]) == (False, 3)
    client.send_keys("Enter")
    client.wait_until_gone(r"exited 3")
    cell = retry_until(lambda: c if (c := idea.cells()[0])["running"] else None)
    assert cell["pid"] != old_pid
    client.type("echo back-$((1+1))")
    client.send_keys("Enter")
    client.wait_for(r"^back-2")


def test_kill_server_tells_attached_clients_why(idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("proj")
    client = tui()
    client.wait_cells(1)
    idea.run("kill-server", "-f")
    status = client.wait_exit()
    assert status == 0, client.transcript()
    assert "[the server was killed]" in client.transcript()


def test_detach_from_the_command_line(idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("proj")
    client = tui()
    client.wait_cells(1)
    retry_until(lambda: idea.json("ls")["windows"][0]["clients"] == 1)
    assert idea.run("detach").stdout.strip() == "detached 1 client(s)"
    assert client.wait_exit() == 0
    assert "[detached]" in client.transcript()
    assert idea.daemon_running()


def test_resizing_the_terminal_resizes_every_cell(idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("proj")
    idea.run("split", "-h")
    client = tui(width=120, height=35)
    client.wait_cells(2)
    for width, height in ((90, 25), (140, 40)):
        client.resize(width, height)
        expected = (width, height - 2)
        retry_until(lambda: window_size(idea) == expected,  # noqa: B023 - used at once
                    describe=lambda: str(window_size(idea)))
        boxes = assert_sizes_agree(idea, client)
        assert boxes[0].cols + 1 + boxes[1].cols == width
        assert boxes[0].rows == height - 3
        assert client.lines()[2][width - 1:] == ""  # nothing clipped, nothing outside


def test_reattach_shows_what_happened_meanwhile_scrollback_included(
        idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("proj")
    first = tui(width=100, height=30)
    first.wait_cells(1)
    first.prefix("d")
    assert first.wait_exit() == 0
    idea.shell("0", "for i in $(seq 1 80); do echo hist-$i; done; echo END=$((4*5))", "END=20")

    second = tui(width=100, height=30)
    second.wait_for(r"^END=20")
    assert not re.search(r"^hist-1$", second.screen(), re.MULTILINE)
    second.prefix("[")
    second.wait_for("COPY")
    second.send_keys("g")  # to the top of the history
    top = second.wait_for(r"^hist-1$").split("\n")
    # The cell's first rows, under the title line: the very first output of the shell.
    assert top[2].startswith("e2e$ for i in") and top[3] == "hist-1"
    assert "[copy " in top[1]
    second.send_keys("q")
    second.wait_until_gone(r"^hist-1$")
    second.wait_for(r"^END=20")
