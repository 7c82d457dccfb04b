"""`IdeaEnv`: the real `idea` binary run against a private daemon under one IDEA_HOME.

Every test that starts a daemon gets its own `IDEA_HOME` (data, state, sockets under one
folder), a private HOME and a plain bash (`--norc`, fixed prompt) as the user's shell, so
what a cell shows does not depend on the machine's dotfiles. Commands run as a user would run
them: a subprocess with no TTY on stdin. `stop()` ends the daemon (`idea kill-server -f`,
then SIGKILL through the pid file) and is always called by the fixture's teardown.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from adapters.locations import Locations, locate
from idea_tui.control import CommandFailed, ControlClient
from tests.helpers.retry import retry_until

IDEA_BIN = str(Path(sys.executable).with_name("idea"))
PROMPT = "e2e$ "
PROMPT_RE = re.escape(PROMPT.strip())
"""The prompt as a regex (captures drop the trailing blank)."""
# Variables of the machine running the tests that must not leak into the daemon under test
# (a test run from inside an idea cell or a tmux pane would otherwise target the wrong one).
_SCRUBBED = ("IDEA_HOME", "IDEA_CELL", "IDEA_SOCKET", "IDEA_DEBUG", "TMUX", "TMUX_PANE",
             "COLUMNS", "LINES", "PROMPT_COMMAND", "LC_ALL")
COMMAND_TIMEOUT = 30.0
_markers = itertools.count(1)


class IdeaFailed(AssertionError):
    """An `idea` command exited with an unexpected status."""


def process_alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def write_shell(path: Path) -> Path:
    """A login shell for tests: bash without rc files, so the prompt is `PROMPT`."""
    path.write_text('#!/bin/sh\nexec /bin/bash --norc --noprofile "$@"\n')
    path.chmod(0o755)
    return path


class IdeaEnv:
    """A private `idea` installation: IDEA_HOME, HOME and shell under `root`."""

    def __init__(self, root: Path, shell: Path, extra_env: Mapping[str, str] | None = None):
        self.root = root
        self.home = root / "h"
        self.user_home = root / "u"
        self.user_home.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
        env.update(
            IDEA_HOME=str(self.home),
            HOME=str(self.user_home),
            SHELL=str(shell),
            PS1=PROMPT,
            LANG="C.UTF-8",
            HISTFILE="/dev/null",
            PATH=f"{Path(IDEA_BIN).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        )
        env.update(extra_env or {})
        self.env = env

    # ─── running idea ────────────────────────────────────────────────────────────────

    @property
    def locations(self) -> Locations:
        return locate(self.env)

    def run(self, *args: str, check: bool = True, cwd: Path | str | None = None,
            timeout: float = COMMAND_TIMEOUT) -> subprocess.CompletedProcess[str]:
        """Run `idea ARGS…` with no TTY; `check` fails the test on a non-zero status."""
        result = subprocess.run(
            [IDEA_BIN, *args], env=self.env, cwd=cwd or self.root, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=timeout, check=False,
        )
        if check and result.returncode != 0:
            raise IdeaFailed(
                f"idea {' '.join(args)} exited {result.returncode}\n"
                f"stdout: {result.stdout}\nstderr: {result.stderr}"
            )
        return result

    def json(self, *args: str, cwd: Path | str | None = None) -> Any:
        """The parsed `--json` output of `idea ARGS… --json`."""
        return json.loads(self.run(*args, "--json", cwd=cwd).stdout)

    def capture(self, target: str | None = None, *, wait: str | None = None,
                timeout: float = 30.0, history: int = 0) -> str:
        """The cell's screen as text (`idea capture`), first waiting for `wait` if given."""
        args = ["capture"]
        if target is not None:
            args += ["-t", target]
        if wait is not None:
            args += ["--wait", wait, "--timeout", str(timeout)]
        if history:
            args += ["-S", str(history)]
        return self.run(*args, timeout=timeout + COMMAND_TIMEOUT).stdout

    def screen_rows(self, target: str | None = None, *, wait: str | None = None,
                    timeout: float = 30.0) -> list[str]:
        """The cell's screen as one string per row (exactly its height)."""
        return self.capture(target, wait=wait, timeout=timeout).removesuffix("\n").split("\n")

    def send_keys(self, target: str | None, *keys: str) -> None:
        args = ["send-keys"] + (["-t", target] if target is not None else [])
        self.run(*args, "--", *keys)

    def shell(self, target: str | None, command: str, expect: str,
              timeout: float = 30.0) -> str:
        """Type `command` + Enter in a cell and wait until `expect` (a regex) is on screen."""
        self.send_keys(target, command, "Enter")
        return self.capture(target, wait=expect, timeout=timeout)

    def cells(self, *args: str) -> list[dict[str, Any]]:
        """`idea list-cells --json` (of the current page unless args say otherwise)."""
        cells: list[dict[str, Any]] = self.json("list-cells", *args)
        return cells

    def stty_size(self, target: str) -> tuple[int, int]:
        """(cols, rows) as `stty size` reports them inside the cell."""
        marker = f"SZ{next(_markers)}"
        text = self.shell(target, f"echo {marker}=$(stty size)=", rf"{marker}=(\d+) (\d+)=")
        found = re.findall(rf"{marker}=(\d+) (\d+)=", text)
        rows, cols = (int(part) for part in found[-1])
        return cols, rows

    def in_directory(self, target: str, path: Path) -> bool:
        """Whether the cell's shell is in `path` (the shell compares: long paths wrap)."""
        text = self.shell(
            target, f'[ "$PWD" = "{path}" ] && echo CWD=ok$((1)) || echo CWD=no$((1))',
            "CWD=(ok|no)1")
        return "CWD=ok1" in text

    def new_project(self, name: str, *args: str) -> Path:
        """Make a folder under the test's root and `idea new` it."""
        path = self.root / name
        path.mkdir(parents=True, exist_ok=True)
        self.run("new", str(path), *args)
        return path

    def skip_first_run(self) -> None:
        """Record "no AI profiles" as the first-run wizard's Skip would, so that attached
        clients of these tests show the workspace, not the wizard (a running daemon only)."""
        if not self.daemon_running():
            return
        with ControlClient.connect(self.locations) as client:
            try:
                info = client.call("profile_list")
                if isinstance(info, dict) and info.get("configured") is False:
                    client.call("profile_save", profiles=[])
            except CommandFailed as exc:
                if exc.code != "unknown_command":  # a daemon without agents has no wizard
                    raise

    # ─── the daemon process ──────────────────────────────────────────────────────────

    def daemon_pid(self) -> int | None:
        try:
            return int(self.locations.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def daemon_running(self) -> bool:
        pid = self.daemon_pid()
        return pid is not None and process_alive(pid)

    def kill_daemon_hard(self) -> int:
        """SIGKILL the daemon (a crash): its socket and pid file stay behind."""
        pid = self.daemon_pid()
        assert pid is not None, "no daemon pid file"
        os.kill(pid, signal.SIGKILL)
        retry_until(lambda: not process_alive(pid), 10, describe=f"daemon {pid} still alive")
        return pid

    def stop(self) -> None:
        """End the daemon however it is: politely, then by SIGKILL; remove its socket."""
        pid = self.daemon_pid()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.run("kill-server", "-f", check=False, timeout=15)
        if pid is not None and process_alive(pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(AssertionError):
                retry_until(lambda: not process_alive(pid), 5)
        socket = self.locations.socket
        if not str(socket).startswith(str(self.home)):
            socket.unlink(missing_ok=True)
