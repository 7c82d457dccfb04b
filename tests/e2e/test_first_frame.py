"""The first frame of an attach is painted before Textual loads, and is the app's own frame.

`idea attach` reads the daemon's first scene and frames on a blocking socket and draws them
itself (`idea_tui.early_attach`, `idea_tui.first_paint`); the app then paints on top. These
tests run the real client in a real PTY and read what it wrote with pyte: the part before
the app started (the second switch to the alternate screen) must already show the
workspace, and must be, cell for cell and colour for colour, what the app paints once it
runs; keys typed right after it reach the shell.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
from collections.abc import Iterator
from dataclasses import dataclass, field

import pyte
import pytest

from tests.helpers.idea import IDEA_BIN, IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e

COLS, ROWS = 100, 20
ALT_SCREEN = b"\x1b[?1049h"
ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.")


@dataclass
class PtyAttach:
    """`idea attach` on a PTY of COLS×ROWS, its output collected."""

    pid: int
    fd: int
    output: bytearray = field(default_factory=bytearray)

    def pump(self) -> bytes:
        while select.select([self.fd], [], [], 0.05)[0]:
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError as exc:
                if exc.errno != errno.EIO:
                    raise
                break
            if not data:
                break
            self.output += data
        return bytes(self.output)

    def early_part(self) -> bytes | None:
        """What was written before the app switched to the alternate screen (None until
        the app did)."""
        data = self.pump()
        first = data.find(ALT_SCREEN)
        second = data.find(ALT_SCREEN, first + 1) if first >= 0 else -1
        return data[:second] if second > 0 else None


@contextlib.contextmanager
def attached(idea: IdeaEnv, env_extra: dict[str, str], cwd: str) -> Iterator[PtyAttach]:
    env = {**idea.env, "TERM": "xterm-256color", **env_extra}
    if "COLORTERM" not in env_extra:
        env.pop("COLORTERM", None)
    pid, fd = pty.fork()
    if pid == 0:
        try:
            fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
            os.chdir(cwd)
            os.execve(IDEA_BIN, [IDEA_BIN, "attach"], env)
        finally:
            os._exit(127)
    client = PtyAttach(pid, fd)
    try:
        yield client
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


Cell = tuple[str, str, str, bool, bool, bool]


def screen_of(data: bytes) -> list[list[Cell]]:
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    stream.feed(data)
    return [[(c.data, c.fg, c.bg, c.bold, c.reverse, c.italics)
             for c in (screen.buffer[y][x] for x in range(COLS))] for y in range(ROWS)]


def plain(data: bytes) -> str:
    """The text of terminal output, escape sequences left out."""
    return ESCAPES.sub(b"", data).decode(errors="replace")


def text_of(screen: list[list[Cell]]) -> list[str]:
    return ["".join(cell[0] for cell in row).rstrip() for row in screen]


def differences(early: list[list[Cell]], late: list[list[Cell]]) -> str:
    lines = []
    for y, (a, b) in enumerate(zip(early, late, strict=True)):
        for x, (one, two) in enumerate(zip(a, b, strict=True)):
            if one != two:
                lines.append(f"({x},{y}) early {one} app {two}")
    return "\n".join(lines[:40])


def prepare(idea: IdeaEnv) -> str:
    """Two cells: colours, a wide title and wide text on the left, a prompt on the right."""
    project = idea.new_project("firstframe")
    idea.skip_first_run()
    idea.shell("0", r"printf '\e]2;título 日本\a\e[31mred\e[0m \e[1;32mbold\e[0m "
               r"\e[38;5;208morange\e[0m \e[38;2;10;200;30mrgb\e[0m 日本 \e[7mrev\e[0m\n'",
               r"red bold orange")
    idea.run("split", "-h")
    idea.capture("1", wait=r"\$")
    return str(project)


@pytest.mark.parametrize("colours", ["truecolor", "256"])
def test_the_early_frame_is_the_frame_the_app_then_paints(idea: IdeaEnv, colours: str) -> None:
    cwd = prepare(idea)
    env = {"COLORTERM": "truecolor"} if colours == "truecolor" else {}
    with attached(idea, env, cwd) as client:
        early_bytes = retry_until(client.early_part, describe=lambda: repr(client.output[-500:]))
        early = screen_of(early_bytes)
        text = text_of(early)
        # The workspace itself, before the app ran: tabs, both titles, both cells' text.
        assert "0:firstframe" in text[0], text
        assert "título 日本" in text[1] and "1 bash" in text[1], text
        assert any(line.startswith("red bold orange rgb 日本 rev") for line in text), text
        assert "ctrl+b ? help" in text[-1], text
        # Then the app's frame: once the app itself has drawn the tabs and both cells (on
        # its own screen, cleared of the early one), everything equals the early frame.
        retry_until(lambda: all(marker in plain(client.pump()[len(early_bytes):])
                                for marker in ("0:firstframe", "red bold", "título", "help")),
                    describe=lambda: repr(client.output[len(early_bytes):][-500:]))
        retry_until(lambda: screen_of(b"\x1b[2J" + client.pump()[len(early_bytes):]) == early,
                    describe=lambda: differences(early, screen_of(
                        b"\x1b[2J" + bytes(client.output[len(early_bytes):]))))


def test_keys_typed_once_the_early_frame_shows_reach_the_shell(idea: IdeaEnv) -> None:
    cwd = prepare(idea)
    with attached(idea, {"COLORTERM": "truecolor"}, cwd) as client:
        retry_until(lambda: b"0:firstframe" in client.pump(),
                    describe=lambda: repr(client.output[-500:]))
        os.write(client.fd, b"echo early-$((6*7))\r")
        idea.capture("1", wait=r"^early-42")
        # And the app shows it too (it took the connection over and runs).
        retry_until(lambda: "early-42" in "".join(text_of(screen_of(client.pump()))),
                    describe=lambda: "\n".join(text_of(screen_of(bytes(client.output)))))


def test_an_old_terminal_gets_no_early_frame_and_still_the_app(idea: IdeaEnv) -> None:
    """TERM=xterm (8 colours): nothing is drawn before the app, which draws as before."""
    cwd = prepare(idea)
    with attached(idea, {"TERM": "xterm"}, cwd) as client:
        retry_until(lambda: "0:firstframe" in "".join(text_of(screen_of(client.pump()))),
                    describe=lambda: repr(client.output[-500:]))
        assert client.pump().count(ALT_SCREEN) == 1
