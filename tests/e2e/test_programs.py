"""Full-screen programs in a cell display correctly: vim and less, read through the daemon's
screen (`idea capture`) and through the attached client's drawing."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.helpers.idea import PROMPT_RE, IdeaEnv
from tests.helpers.programs import require_program
from tests.helpers.retry import retry_until
from tests.helpers.tui import TuiFactory

pytestmark = pytest.mark.e2e

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]


def write_text(folder: Path, lines: int) -> Path:
    path = folder / "notes.txt"
    path.write_text("".join(f"{WORDS[i % len(WORDS)]}-{i:03d} text\n" for i in range(lines)))
    return path


def test_vim_shows_the_file_at_the_right_place_and_quits_cleanly(
        idea: IdeaEnv, tui: TuiFactory) -> None:
    require_program("vim")
    project = idea.new_project("proj")
    notes = write_text(project, 5)
    idea.run("split", "-h")
    client = tui(width=120, height=30)
    boxes = client.wait_cells(2)
    client.wait_for("│" + PROMPT_RE)
    idea.shell("1", "echo before-vim-$((1+2))", "before-vim-3")

    idea.send_keys("1", f"vim -n -u NONE -c 'set laststatus=2' {notes.name}", "Enter")
    rows = idea.screen_rows("1", wait=r"^~")
    assert rows[:5] == [f"{WORDS[i]}-{i:03d} text" for i in range(5)]
    assert all(row == "~" for row in rows[5:-2]), rows
    status, message = rows[-2], rows[-1]
    assert status.startswith("notes.txt"), rows[-3:]
    size = notes.stat().st_size
    assert message.startswith(f'"notes.txt" 5 lines, {size} bytes'), message
    # The client draws the same rows inside the right cell, right after its title line.
    box = boxes[1]
    drawn = client.wait_for(r"│alpha-000 text").split("\n")
    for i in range(5):
        assert drawn[box.y + 1 + i][box.x:].rstrip() == f"{WORDS[i]}-{i:03d} text"
    assert drawn[box.y + 1 + 5][box.x:].rstrip() == "~"
    assert drawn[box.y + box.rows - 1][box.x:].startswith("notes.txt")
    # The left cell is untouched by the full-screen program next to it.
    assert drawn[box.y + 1][: box.x - 1].rstrip() == "e2e$"

    idea.send_keys("1", "Escape", ":q", "Enter")
    after = idea.capture("1", wait=r"before-vim-3")
    assert "alpha-000" not in after  # the alternate screen is gone, the shell's is back
    retry_until(lambda: "alpha-000" not in client.screen(), describe=client.screen)


def test_less_pages_through_a_long_file(idea: IdeaEnv, tui: TuiFactory) -> None:
    require_program("less")
    project = idea.new_project("proj")
    write_text(project, 200)
    client = tui(width=100, height=30)
    client.wait_for("^" + PROMPT_RE)
    idea.send_keys("0", "less notes.txt", "Enter")
    rows = idea.screen_rows("0", wait=r"^alpha-000 text")
    height = len(rows)
    assert rows[: height - 1] == [f"{WORDS[i % 8]}-{i:03d} text" for i in range(height - 1)]
    assert rows[-1].startswith("notes.txt")
    client.wait_for(r"^alpha-000 text")
    # A page down shows the next screenful, the last line of the first at the top.
    idea.send_keys("0", "Space")
    first = height - 1
    rows = idea.screen_rows("0", wait=rf"^{WORDS[(2 * first - 1) % 8]}-{2 * first - 1:03d}")
    assert rows[0] == f"{WORDS[first % 8]}-{first:03d} text"
    client.wait_for(rf"^{WORDS[first % 8]}-{first:03d} text")
    idea.send_keys("0", "q")
    idea.capture("0", wait=PROMPT_RE + r"\s*$")


def test_text_a_program_copies_reaches_the_users_terminal(idea: IdeaEnv, tui: TuiFactory) -> None:
    """OSC 52 from a program in a cell → the client → the outer terminal's clipboard
    (here tmux, playing the user's terminal, keeps it as a paste buffer)."""
    idea.new_project("proj")
    client = tui()
    client.wait_cells(1)
    client.tmux("set-option", "-g", "set-clipboard", "on")
    payload = base64.b64encode(b"copied from a cell").decode()
    idea.send_keys("0", f"printf '\\033]52;c;{payload}\\a'", "Enter")

    def buffer() -> str | None:
        shown = client.tmux("show-buffer", check=False).stdout
        return shown if "copied from a cell" in shown else None

    assert retry_until(buffer) == "copied from a cell"


def test_a_program_notification_shows_on_the_status_line(
        idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("proj")
    client = tui()
    client.wait_cells(1)
    idea.send_keys("0", "printf '\\033]777;notify;Tests;all green\\a'", "Enter")
    client.wait_for(r"proj:Default\.0: Tests: all green")
