"""Real PTYs: spawn, size, input, output, exit status, cwd, foreground program."""

from __future__ import annotations

import os
import re
import select
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from adapters.pty import PtyProcess, PtySpawnError
from adapters.pty.environment import cell_environment, user_shell

ENV = {**os.environ, "PS1": "$ ", "TERM": "xterm-256color", "LANG": "C.UTF-8"}


def read_until(pty: PtyProcess, predicate: Callable[[bytes], bool],
               timeout: float = 10.0) -> bytes:
    """Read the PTY until `predicate(output)` holds (fails the test on timeout)."""
    output = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([pty.fd], [], [], 0.1)
        if not ready:
            continue
        data = pty.read()
        if data:
            output += data
            if predicate(output):
                return output
        elif data == b"":
            break
    raise AssertionError(f"condition not met; output so far: {output!r}")


@pytest.fixture
def bash(tmp_path: Path) -> Iterator[PtyProcess]:
    pty = PtyProcess.spawn(["bash", "--norc", "--noprofile", "-i"], cwd=str(tmp_path),
                           env=ENV, cols=77, rows=21)
    yield pty
    pty.kill()
    pty.wait(5)
    pty.close()


def test_spawned_shell_sees_its_size_and_a_controlling_tty(bash: PtyProcess) -> None:
    bash.write(b"stty size; tty; echo pid=$$\r")
    output = read_until(bash, lambda out: b"pid=" + str(bash.pid).encode() in out)
    assert b"21 77" in output
    assert b"/dev/pts/" in output


def test_resize_reaches_the_program(bash: PtyProcess) -> None:
    bash.resize(100, 30)
    bash.write(b"stty size\r")
    assert b"30 100" in read_until(bash, lambda out: b"30 100" in out)


def test_exit_status_is_reported(tmp_path: Path) -> None:
    pty = PtyProcess.spawn(["sh", "-c", "exit 7"], cwd=str(tmp_path), env=ENV, cols=80, rows=24)
    assert pty.wait(10) == 7
    pty.close()


def test_end_of_output_is_an_empty_read(tmp_path: Path) -> None:
    pty = PtyProcess.spawn(["sh", "-c", "echo bye"], cwd=str(tmp_path), env=ENV,
                           cols=80, rows=24)
    output = read_until(pty, lambda out: b"bye" in out)
    assert b"bye" in output
    pty.wait(10)
    deadline = time.monotonic() + 10
    while (data := pty.read()) is None and time.monotonic() < deadline:
        select.select([pty.fd], [], [], 0.1)
    assert data == b""
    pty.close()


def test_cwd_and_foreground_program(bash: PtyProcess, tmp_path: Path) -> None:
    assert bash.foreground_command() is None
    sub = tmp_path / "sub"
    sub.mkdir()
    # The shell computes the marker, so the echo of the typed line cannot match it.
    bash.write(f"cd {sub}; echo $((40+2))moved\r".encode())
    read_until(bash, lambda out: b"42moved" in out)
    assert bash.cwd() == str(sub)
    bash.write(b"sleep 30\r")
    deadline = time.monotonic() + 10
    while bash.foreground_command() != "sleep" and time.monotonic() < deadline:
        select.select([bash.fd], [], [], 0.05)
        bash.read()
    assert bash.foreground_command() == "sleep"


def test_missing_command_and_directory_give_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(PtySpawnError, match="command not found: no-such-program-xyz"):
        PtyProcess.spawn(["no-such-program-xyz"], cwd=str(tmp_path), env=ENV, cols=80, rows=24)
    with pytest.raises(PtySpawnError, match="working directory does not exist"):
        PtyProcess.spawn(["sh"], cwd=str(tmp_path / "missing"), env=ENV, cols=80, rows=24)


def test_large_input_is_written_without_blocking(bash: PtyProcess) -> None:
    # The kernel buffer of a PTY is small: a big write must return what it took, not block.
    written = bash.write(b"x" * 1_000_000)
    assert 0 < written < 1_000_000


def test_cell_environment_keeps_everything_and_refreshes_client_variables() -> None:
    base = {"PATH": "/usr/bin", "OPENAI_API_KEY": "k", "SSH_AUTH_SOCK": "/old", "TMUX": "x",
            "LANG": "fr_FR.UTF-8"}
    env = cell_environment(base, {"SSH_AUTH_SOCK": "/new", "UNRELATED": "no"},
                           cell_id="c1", socket_path="/s")
    assert env["PATH"] == "/usr/bin"
    assert env["OPENAI_API_KEY"] == "k"
    assert env["LANG"] == "fr_FR.UTF-8"
    assert env["SSH_AUTH_SOCK"] == "/new"
    assert "UNRELATED" not in env
    assert "TMUX" not in env
    assert env["TERM"] == "xterm-256color"
    assert env["IDEA_CELL"] == "c1"
    assert env["IDEA_SOCKET"] == "/s"


def test_user_shell_falls_back(tmp_path: Path) -> None:
    assert user_shell({"SHELL": "/bin/sh"}) == "/bin/sh"
    fallback = user_shell({"SHELL": str(tmp_path / "not-a-shell")})
    assert os.access(fallback, os.X_OK)



def _niceness_said(output: bytes, name: str) -> int | None:
    found = re.search(rb"%s= *(-?\d+)\s" % name.encode(), output)
    return int(found.group(1)) if found else None


def test_a_program_started_lower_runs_at_that_niceness_and_its_children_too(
        tmp_path: Path) -> None:
    expected = min(os.nice(0) + 5, 19)
    # ps(1) says a process's niceness on every Unix (procps: installed by .ci/run).
    script = "echo self=$(ps -o nice= -p $$); sh -c 'echo child=$(ps -o nice= -p $$)'"
    pty = PtyProcess.spawn(["sh", "-c", script], cwd=str(tmp_path), env=ENV, cols=80,
                           rows=24, nice=5)
    output = read_until(pty, lambda out: _niceness_said(out, "child") is not None)
    assert _niceness_said(output, "self") == expected
    assert _niceness_said(output, "child") == expected
    pty.wait(10)
    pty.close()


def test_a_program_started_at_niceness_zero_keeps_the_daemons(tmp_path: Path) -> None:
    pty = PtyProcess.spawn(["sh", "-c", "echo self=$(ps -o nice= -p $$)"],
                           cwd=str(tmp_path), env=ENV, cols=80, rows=24)
    output = read_until(pty, lambda out: _niceness_said(out, "self") is not None)
    assert _niceness_said(output, "self") == os.nice(0)
    pty.wait(10)
    pty.close()
