"""Cells driven from the command line: closing, undo, keys, environment and working directory."""

from __future__ import annotations

import re

import pytest

from tests.helpers.idea import IdeaEnv, process_alive
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e


def foreground(idea: IdeaEnv, index: int) -> str | None:
    cell = next(c for c in idea.cells() if c["index"] == index)
    value: str | None = cell.get("foreground")
    return value


def start_sleep(idea: IdeaEnv, target: str) -> None:
    idea.send_keys(target, "sleep 1000", "Enter")
    retry_until(lambda: foreground(idea, int(target)) == "sleep",
                describe=lambda: str(idea.cells()))


def test_close_asks_before_ending_a_program_and_force_closes(idea: IdeaEnv) -> None:
    idea.new_project("proj")
    idea.run("split", "-h")
    start_sleep(idea, "1")
    ids = [cell["id"] for cell in idea.cells()]
    busy = idea.cells()[1]

    refused = idea.run("close", "-t", "1", check=False)
    assert refused.returncode == 1
    assert "sleep" in refused.stderr and "add -f to force" in refused.stderr
    assert [cell["id"] for cell in idea.cells()] == ids
    assert foreground(idea, 1) == "sleep"

    # kill-server asks the same way.
    refused = idea.run("kill-server", check=False)
    assert refused.returncode == 1 and "sleep" in refused.stderr
    assert idea.daemon_running()

    idea.run("close", "-t", "1", "-f")
    assert [cell["id"] for cell in idea.cells()] == ids[:1]
    retry_until(lambda: not process_alive(busy["pid"]))


def test_an_idle_shell_closes_without_asking_and_undo_brings_the_slot_back(
        idea: IdeaEnv) -> None:
    idea.new_project("proj")
    idea.run("split", "-h")
    idea.run("split", "-v", "-t", "1")
    before = idea.cells()
    closed = before[1]
    idea.run("close", "-t", "1")
    assert [c["id"] for c in idea.cells()] == [before[0]["id"], before[2]["id"]]
    idea.run("undo")
    after = idea.cells()
    assert [(c["id"], c["cols"], c["rows"]) for c in after] == \
        [(c["id"], c["cols"], c["rows"]) for c in before]
    # The slot is back with a new shell in it.
    restored = after[1]
    assert restored["running"] and restored["pid"] != closed["pid"]
    idea.shell("1", "echo back-$((6+6))", "back-12")
    # Redo closes it again; with nothing left to redo, the command says so.
    idea.run("redo")
    assert [c["id"] for c in idea.cells()] == [before[0]["id"], before[2]["id"]]
    assert idea.run("redo").stderr == "nothing to redo\n"


def test_send_keys_ctrl_c_interrupts_a_program(idea: IdeaEnv) -> None:
    idea.new_project("proj")
    start_sleep(idea, "0")
    idea.send_keys("0", "C-c")
    retry_until(lambda: foreground(idea, 0) is None, describe=lambda: str(idea.cells()))
    idea.shell("0", "echo after-$((1+1))", "after-2")


def test_a_cell_gets_the_daemon_environment_and_its_own_variables(
        idea: IdeaEnv) -> None:
    # Exported before the daemon starts: never stripped on the way into a cell.
    idea.env["IDEA_E2E_SECRET"] = "kept-1234"
    # ...except that a cell is not inside the tmux the daemon may have been started from.
    idea.env["TMUX"] = "/tmp/tmux-0/default,1,0"
    idea.new_project("proj")
    cell = idea.cells()[0]
    text = idea.shell("0", "echo V=$IDEA_CELL,$TERM,$IDEA_E2E_SECRET=", "V=.*=")
    assert f"V={cell['id']},xterm-256color,kept-1234=" in text
    socket = idea.locations.socket
    assert idea.shell("0", f'[ "$IDEA_SOCKET" = "{socket}" ] && echo S=ok$((1))', "S=ok1")
    assert "T=unset." in idea.shell("0", "echo T=${TMUX-unset}.", r"T=\S+\.")


def test_a_split_starts_in_the_focused_cells_directory(idea: IdeaEnv) -> None:
    project = idea.new_project("proj")
    elsewhere = idea.root / "elsewhere"
    elsewhere.mkdir()
    idea.shell("0", f"cd {elsewhere} && echo CD=$((9*9))", "CD=81")
    idea.run("split", "-h", "-t", "0")
    assert idea.in_directory("1", elsewhere)
    # A new page starts in the project root.
    idea.run("layout", "new", "Other")
    assert idea.in_directory("0", project)


def test_capture_with_scrollback_and_attributes(idea: IdeaEnv) -> None:
    idea.new_project("proj")
    idea.shell("0", "for i in $(seq 1 60); do echo line-$i; done; echo DONE=$((2*3))", "DONE=6")
    screen = idea.capture("0")
    assert "line-1\n" not in screen  # scrolled off the 22-row screen
    history = idea.capture("0", history=100)
    assert "line-1\n" in history and history.index("line-1\n") < history.index("line-60")
    idea.shell("0", r"printf '\033[1;31mRED\033[0m=%d\n' $((3*3))", "RED=9")
    ansi = idea.run("capture", "-t", "0", "--ansi").stdout
    styled = re.search(r"\x1b\[([0-9;]*)mRED\x1b\[0?m=9", ansi)
    assert styled is not None, ansi
    assert {"1", "31"} <= set(styled.group(1).split(";"))


def test_capture_wait_times_out_with_a_clear_message(idea: IdeaEnv) -> None:
    idea.new_project("proj")
    result = idea.run("capture", "-t", "0", "--wait", "never-there", "--timeout", "0.3",
                      check=False)
    assert result.returncode == 1
    assert "'never-there' did not appear within 0.3 s" in result.stderr
