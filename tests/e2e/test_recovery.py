"""Faults around the daemon process: `kill -9`, a stale socket and pid file, a dead socket,
and commands the client does not know."""

from __future__ import annotations

import socket
from typing import Any

import pytest

from tests.helpers.idea import PROMPT_RE, IdeaEnv, process_alive
from tests.helpers.tui import TuiFactory

pytestmark = pytest.mark.e2e


def layout_of(idea: IdeaEnv) -> list[tuple[str, str, int]]:
    """(project, cell id, index) of every cell of every project: what must be restored."""
    cells: list[dict[str, Any]] = idea.json("list-cells", "--all")
    return [(cell["project"], cell["id"], cell["index"]) for cell in cells]


def build_two_projects(idea: IdeaEnv) -> None:
    idea.new_project("alpha")
    idea.run("grid", "2x2")
    idea.run("merge", "-t", "0", "-s", "1")
    idea.new_project("beta")
    idea.run("split", "-v")


def test_kill_9_then_idea_open_starts_a_fresh_daemon_that_restores_everything(
        idea: IdeaEnv) -> None:
    build_two_projects(idea)
    before = layout_of(idea)
    old_pids = {cell["pid"] for cell in idea.json("list-cells", "--all")}
    killed = idea.kill_daemon_hard()
    locations = idea.locations
    assert locations.socket.exists() and locations.pid_file.exists()  # left behind

    result = idea.run("ls", check=False)
    assert result.returncode == 1
    assert "no idea daemon is running" in result.stderr

    idea.run("open", str(idea.root / "alpha"))
    pid = idea.daemon_pid()
    assert pid is not None and pid != killed and process_alive(pid)
    assert layout_of(idea) == before
    cells = idea.json("list-cells", "--all")
    assert all(cell["running"] for cell in cells)
    assert old_pids.isdisjoint(cell["pid"] for cell in cells)
    # The restored shells work.
    idea.shell("beta:1", "echo again-$((4*4))", "again-16")


def test_kill_9_then_idea_attaches_to_a_fresh_daemon(idea: IdeaEnv, tui: TuiFactory) -> None:
    build_two_projects(idea)
    idea.skip_first_run()
    before = layout_of(idea)
    killed = idea.kill_daemon_hard()
    client = tui(args=())  # plain `idea`
    client.wait_for(r"^ main +0:alpha +1:beta")
    assert len(client.wait_cells(2)) == 2  # beta (the active tab): two cells
    client.wait_for("^" + PROMPT_RE)
    assert idea.daemon_pid() not in (None, killed)
    assert layout_of(idea) == before


def test_a_dead_socket_gives_a_clear_message_and_is_replaced(idea: IdeaEnv) -> None:
    locations = idea.locations
    locations.runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
    # A socket file nobody listens on, as a crashed daemon leaves it.
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(locations.socket))
    dead.close()
    assert locations.socket.is_socket()
    for command in (["ls"], ["capture"], ["split"], ["kill-server", "-f"]):
        result = idea.run(*command, check=False)
        if command[0] == "kill-server":
            assert (result.returncode, result.stdout.strip()) == (0, "no idea daemon is running")
            continue
        assert result.returncode == 1, command
        assert result.stderr.startswith("idea: no idea daemon is running"), result.stderr
        assert str(locations.socket) in result.stderr
        assert "Traceback" not in result.stderr
    # A command that starts the daemon takes the path over.
    assert idea.json("project", "list") == []
    assert idea.daemon_running()


def test_unknown_subcommand_is_a_usage_error(idea: IdeaEnv) -> None:
    result = idea.run("frobnicate", check=False)
    assert result.returncode == 2
    assert "invalid choice: 'frobnicate'" in result.stderr
    assert result.stderr.startswith("usage: idea")
    assert not idea.daemon_running()


def test_version_and_help_need_no_daemon(idea: IdeaEnv) -> None:
    version = idea.run("--version").stdout
    assert version.startswith("idea ")
    assert idea.run("version").stdout == version
    help_text = idea.run("--help").stdout
    for command in ("attach", "ls", "kill-server", "new", "open", "split", "capture"):
        assert command in help_text
    assert not idea.daemon_running()


def test_attaching_needs_a_terminal_and_refuses_to_nest(idea: IdeaEnv) -> None:
    result = idea.run("attach", check=False)  # stdin is not a TTY here
    assert result.returncode == 1
    assert "attaching needs a terminal" in result.stderr
    idea.env["IDEA_CELL"] = "0123abcd"
    nested = idea.run(check=False)
    assert nested.returncode == 1
    assert "refusing to attach inside an idea cell" in nested.stderr
    assert "-f" in nested.stderr
    assert not idea.daemon_running()


def test_a_restarted_daemon_starts_shells_at_the_last_window_size(
        idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("alpha")
    idea.run("split", "-h")
    client = tui(width=140, height=40)
    client.wait_cells(2)
    attached = {cell["id"]: (cell["cols"], cell["rows"]) for cell in idea.cells()}
    assert attached != {cell_id: (80, 22) for cell_id in attached}
    client.prefix("d")
    client.wait_exit()
    idea.run("kill-server", "-f")
    idea.run("open", str(idea.root / "alpha"))
    # No client is attached: the shells start at the size the window last had.
    cells = idea.cells()
    restarted = {cell["id"]: (cell["cols"], cell["rows"]) for cell in cells}
    assert restarted == attached
    assert idea.stty_size("0") == attached[cells[0]["id"]]
