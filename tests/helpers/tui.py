"""`TuiClient`: the real attached client (`idea attach`) running in a private tmux server.

tmux plays the user's terminal: a server on its own `-L` socket, no config (`-f /dev/null`),
UTF-8, `xterm-256color`, a fixed window size. Keys go in with `send-keys`, the screen comes
back with `capture-pane`. The pane stays after the client exits (`remain-on-exit`) so a test
can read what it printed last and its exit status. `kill()` ends the tmux server, which
hangs up the client like closing a terminal window would.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import shlex
import signal
import subprocess
from dataclasses import dataclass
from typing import Protocol

from tests.helpers.idea import IDEA_BIN, IdeaEnv, process_alive
from tests.helpers.retry import retry_until

_names = itertools.count(1)
SESSION = "idea"


@dataclass(frozen=True, slots=True)
class Box:
    """A cell as drawn: top-left corner of its title line, and its content size."""

    index: int
    x: int
    y: int
    cols: int
    rows: int


_TITLE = re.compile(r"(?:^|(?<=│)) (\d+) [^│·]*?─+(?=│|·|$)")
OUTSIDE = "·"
"""What the client draws where its terminal is larger than the window's size."""


def drawn_cells(lines: list[str]) -> dict[int, Box]:
    """Cells as the client drew them, found from their title lines and the borders.

    A title line starts a cell at column 0 or right after a `│` border and ends with the
    `─` fill; the cell's width runs to the next border, its height down to the next title
    line over the same columns, the area outside the window (`·`), or the status line (the
    last line of the screen).
    """
    status_row = len(lines) - 1
    titles: list[tuple[int, int, int, int]] = []  # index, x, y, width
    for y, line in enumerate(lines[:status_row]):
        for match in _TITLE.finditer(line):
            titles.append((int(match.group(1)), match.start(), y, match.end() - match.start()))
    boxes: dict[int, Box] = {}
    for index, x, y, width in titles:
        below = [ty for _, tx, ty, tw in titles if ty > y and tx < x + width and x < tx + tw]
        outside = [row for row in range(y + 1, status_row)
                   if lines[row][x:x + 1] == OUTSIDE]
        bottom = min(below + outside, default=status_row)
        boxes[index] = Box(index, x, y, width, bottom - y - 1)
    return boxes


class TuiClient:
    """`idea attach [-w WINDOW]` in its own tmux server, sized `width` x `height`."""

    def __init__(self, env: IdeaEnv, *, width: int = 120, height: int = 35,
                 window: str | None = None, args: tuple[str, ...] | None = None,
                 cwd: str | None = None) -> None:
        self.env = env
        self.cwd = cwd
        self.socket = f"idea-t{os.getpid()}-{next(_names)}"
        self.width = width
        self.height = height
        if args is None:
            args = ("attach",) + (("-w", window) if window else ())
        self.argv = [IDEA_BIN, *args]
        self.started = False

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            ["tmux", "-u", "-L", self.socket, *args], env=self.env.env,
            capture_output=True, text=True, timeout=15, check=False,
            stdin=subprocess.DEVNULL,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)}: {result.stderr.strip()}")
        return result

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run a tmux command against the terminal playing the user's (options, buffers)."""
        return self._tmux(*args, check=check)

    def start(self) -> TuiClient:
        command = "exec " + shlex.join(self.argv)
        self._tmux(
            "-f", "/dev/null", "start-server", ";",
            "set", "-g", "exit-empty", "off", ";",
            "set", "-g", "default-terminal", "xterm-256color", ";",
            # /bin/sh runs the command: bash (the tests' SHELL) drops PS1 when not
            # interactive, and a daemon the client starts would pass that on to its cells.
            "set", "-g", "default-shell", "/bin/sh", ";",
            "set", "-g", "remain-on-exit", "on", ";",
            "set", "-g", "status", "off", ";",
            "new-session", "-d", "-s", SESSION, "-x", str(self.width), "-y", str(self.height),
            *(("-c", self.cwd) if self.cwd else ()),
            command,
        )
        self.started = True
        return self

    # ─── input ───────────────────────────────────────────────────────────────────────

    def send_keys(self, *keys: str) -> None:
        """tmux key names (`C-b`, `Enter`, `Left`, `C-Right`) or plain words."""
        self._tmux("send-keys", "-t", SESSION, *keys)

    def type(self, text: str) -> None:
        """Type `text` literally (no key names)."""
        self._tmux("send-keys", "-t", SESSION, "-l", text)

    def prefix(self, key: str) -> None:
        """The prefix key (ctrl+b), then `key`."""
        self.send_keys("C-b")
        self.send_keys(key)

    # ─── output ──────────────────────────────────────────────────────────────────────

    def lines(self) -> list[str]:
        """The screen, one string per row (trailing blanks removed)."""
        out = self._tmux("capture-pane", "-p", "-t", SESSION).stdout
        rows = out.split("\n")[: self.height]
        return rows + [""] * (self.height - len(rows))

    def screen(self) -> str:
        return "\n".join(self.lines())

    def transcript(self) -> str:
        """Everything the pane showed, scrollback included (what a client printed last)."""
        return self._tmux("capture-pane", "-p", "-S", "-", "-t", SESSION).stdout

    def wait_for(self, pattern: str, timeout: float = 30.0) -> str:
        """Wait until the screen matches `pattern` (a regex, multiline); return the screen."""
        regex = re.compile(pattern, re.MULTILINE)

        def matched() -> str | None:
            screen = self.screen()
            return screen if regex.search(screen) else None

        return retry_until(matched, timeout, describe=self.screen)

    def wait_until_gone(self, pattern: str, timeout: float = 30.0) -> str:
        regex = re.compile(pattern, re.MULTILINE)

        def gone() -> str | None:
            screen = self.screen()
            return screen if not regex.search(screen) else None

        return retry_until(gone, timeout, describe=self.screen)

    def cells(self) -> dict[int, Box]:
        return drawn_cells(self.lines())

    def wait_cells(self, count: int, timeout: float = 30.0) -> dict[int, Box]:
        """Wait until exactly `count` cells are drawn; return them."""
        def drawn() -> dict[int, Box] | None:
            boxes = self.cells()
            return boxes if len(boxes) == count else None

        return retry_until(drawn, timeout, describe=self.screen)

    # ─── the client process ──────────────────────────────────────────────────────────

    def resize(self, width: int, height: int) -> None:
        self._tmux("resize-window", "-t", SESSION, "-x", str(width), "-y", str(height))
        self.width, self.height = width, height

    def exit_status(self) -> int | None:
        """The client's exit status once it has exited (128 + N after signal N), else None."""
        out = self._tmux("display-message", "-p", "-t", SESSION,
                         "#{pane_dead} #{pane_pid} #{pid} "
                         "s#{pane_dead_status} k#{pane_dead_signal}").stdout.split()
        dead, pane_pid, server_pid = out[0] == "1", int(out[1]), int(out[2])
        status, signum = out[3][1:], out[4][1:]
        if dead and status:
            return int(status)
        if dead and signum:
            return 128 + int(signum)
        if not process_alive(pane_pid):
            # Seen here: tmux 3.3 now and then misses the SIGCHLD of its pane's program and
            # keeps the zombie (the pane shows dead, with no status); a nudge makes it reap.
            os.kill(server_pid, signal.SIGCHLD)
        return None

    def wait_exit(self, timeout: float = 30.0) -> int:
        return retry_until(self.exit_status, timeout, describe=self.screen)

    def pid(self) -> int:
        """The pid of the `idea attach` process (the pane's program)."""
        out = self._tmux("display-message", "-p", "-t", SESSION, "#{pane_pid}").stdout
        return int(out.strip())

    def kill(self) -> None:
        """End the tmux server (the client is hung up, as when a terminal closes)."""
        if self.started:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._tmux("kill-server", check=False)
            self.started = False


class TuiFactory(Protocol):
    """The `tui` fixture: starts a client; every client is killed at teardown."""

    def __call__(self, *, width: int = 120, height: int = 35, window: str | None = None,
                 args: tuple[str, ...] | None = None, cwd: str | None = None) -> TuiClient: ...
