"""tmux as the reference terminal: feed it bytes, read back its screen.

Each `tmux_capture` starts a private tmux server (own socket, `-f` config, status line off),
runs `cat FILE` in a raw tty so the bytes reach tmux unchanged, and knows tmux has parsed all
of them when the pane title becomes a marker sent after the file. It then reads the screen with
`capture-pane -e` and decodes tmux's SGR output here, independently of the emulator under test
(tmux writes overline as `5:3` and the underline styles as `4:n`; its style state carries over
from one line to the next). The server is killed on exit.

Tests call `require_tmux()` first: without tmux they are skipped, except under CI=true where a
missing reference is a failure rather than a silent pass.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

Style = tuple[int, int, int]
Cells = list[tuple[str, Style]]
DEFAULT: Style = (-1, -1, 0)
_DEADLINE_S = 20.0

_ATTR_BITS = {1: 1, 2: 2, 3: 4, 4: 8, 5: 16, 7: 32, 8: 64, 9: 128}
_COLON_ATTRS = {"4:2": 256, "4:3": 512, "4:4": 1024, "4:5": 2048, "5:3": 4096}
_DEC = dict(zip("`abcdefghijklmnopqrstuvwxyz{|}~", "◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·", strict=True))
_SEQ = re.compile(r"\x1b\[([0-9;:]*)m|([\x0e\x0f])")


def require_tmux() -> None:
    if shutil.which("tmux") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("tmux is required as the reference terminal under CI")
        pytest.skip("tmux not installed: reference comparison skipped")


@dataclass(frozen=True)
class Capture:
    lines: list[Cells]
    history: list[Cells]
    cursor: tuple[int, int]
    cursor_visible: bool
    alternate: bool
    raw: str
    """The screen as `capture-pane -e` printed it (kept in fixture expectations)."""
    raw_history: str

    def text(self) -> list[str]:
        return ["".join(char for char, _ in line) for line in self.lines]


def _apply(style: Style, params: str) -> Style:
    fg, bg, attrs = style
    codes = params.split(";") if params else ["0"]
    i = 0
    while i < len(codes):
        code = codes[i]
        i += 1
        if code in _COLON_ATTRS:
            attrs |= _COLON_ATTRS[code]
            continue
        value = int(code or "0")
        if value == 0:
            fg, bg, attrs = DEFAULT
        elif value in _ATTR_BITS:
            attrs |= _ATTR_BITS[value]
        elif 30 <= value <= 37 or 90 <= value <= 97:
            fg = value - 30 if value < 90 else value - 82
        elif 40 <= value <= 47 or 100 <= value <= 107:
            bg = value - 40 if value < 100 else value - 92
        elif value in (39, 49):
            fg, bg = (-1, bg) if value == 39 else (fg, -1)
        elif value in (38, 48):
            if codes[i] == "5":
                colour = int(codes[i + 1])
                i += 2
            else:
                red, green, blue = (int(v) for v in codes[i + 1 : i + 4])
                colour = (1 << 24) | (red << 16) | (green << 8) | blue
                i += 4
            fg, bg = (colour, bg) if value == 38 else (fg, colour)
    return (fg, bg, attrs)


def decode_lines(text: str) -> list[Cells]:
    """tmux `capture-pane -e` output to per-character cells (style carried across lines)."""
    style = DEFAULT
    shifted = False
    result: list[Cells] = []
    for raw in text.split("\n"):
        cells: Cells = []
        pos = 0
        for match in _SEQ.finditer(raw):
            for char in raw[pos : match.start()]:
                cells.append((_DEC.get(char, char) if shifted else char, style))
            pos = match.end()
            if match.group(2):
                shifted = match.group(2) == "\x0e"
            else:
                style = _apply(style, match.group(1))
        for char in raw[pos:]:
            cells.append((_DEC.get(char, char) if shifted else char, style))
        result.append(cells)
    return result


def normalize(cells: Cells) -> Cells:
    """Trailing default blanks carry no information (tmux does not print unused cells)."""
    end = len(cells)
    while end and cells[end - 1] == (" ", DEFAULT):
        end -= 1
    return cells[:end]


def trim(cells: Cells) -> Cells:
    """Drop trailing blanks that carry nothing tmux prints: tmux prints only cells a program
    wrote, so erased cells with the default foreground and no attribute are blanks to both
    sides whatever their background."""
    end = len(cells)
    while end and cells[end - 1][0] == " " and cells[end - 1][1][0::2] == (-1, 0):
        end -= 1
    return cells[:end]


def row_cells(row: tuple[tuple[str, int, int, int], ...]) -> Cells:
    """An emulator `Row` as per-character cells, for comparison with `decode_lines`."""
    return [(char, (fg, bg, attrs)) for text, fg, bg, attrs in row for char in text]


def _lines(output: str, count: int) -> list[Cells]:
    if output.endswith("\n"):
        output = output[:-1]
    lines = [normalize(line) for line in decode_lines(output)] if count else []
    return (lines + [[] for _ in range(count)])[:count]


def _remove_socket(name: str) -> None:
    """tmux leaves its socket file behind after kill-server; one per capture adds up."""
    directory = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
    (directory / name).unlink(missing_ok=True)


def _tmux(socket: str, *args: str) -> str:
    done = subprocess.run(
        ["tmux", "-u", "-L", socket, *args],
        capture_output=True,
        text=True,
        check=True,
        timeout=_DEADLINE_S,
        env={**os.environ, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"},
    )
    return done.stdout


def tmux_capture(data: bytes, cols: int, rows: int, workdir: Path) -> Capture:
    """Feed `data` to a fresh tmux pane of `cols`×`rows` and capture what it shows."""
    marker = f"idea-done-{uuid.uuid4().hex}"
    socket = f"idea-test-{uuid.uuid4().hex[:12]}"
    stream = workdir / f"{socket}.bin"
    stream.write_bytes(data)
    config = workdir / f"{socket}.conf"
    config.write_text(
        "set -g status off\nset -g history-limit 10000\nset -g escape-time 0\n"
        "set -g default-terminal xterm-256color\n"
    )
    command = (
        f"stty raw -echo; cat {shlex.quote(str(stream))}; "
        f"printf '\\033]2;{marker}\\033\\\\'; tmux wait-for -S {marker}; exec sleep 100000"
    )
    _tmux(
        socket,
        "-f",
        str(config),
        "new-session",
        "-d",
        "-x",
        str(cols),
        "-y",
        str(rows),
        "-s",
        "ref",
        command,
    )
    try:
        # The pane signals once `cat` is done; the title check then proves tmux has parsed
        # everything written before the signal (pane output and commands race otherwise).
        _tmux(socket, "wait-for", marker)
        deadline = time.monotonic() + _DEADLINE_S
        while _tmux(socket, "display", "-p", "-t", "ref", "#{pane_title}").strip() != marker:
            if time.monotonic() > deadline:
                raise AssertionError("tmux did not finish reading the stream")
        info = (
            _tmux(
                socket,
                "display",
                "-p",
                "-t",
                "ref",
                "#{cursor_x},#{cursor_y},#{cursor_flag},#{alternate_on},#{history_size}",
            )
            .strip()
            .split(",")
        )
        screen = _tmux(socket, "capture-pane", "-p", "-e", "-N", "-t", "ref")
        history_size = int(info[4])
        history = ""
        if history_size:
            history = _tmux(
                socket,
                "capture-pane",
                "-p",
                "-e",
                "-N",
                "-t",
                "ref",
                "-S",
                f"-{history_size}",
                "-E",
                "-1",
            )
        return Capture(
            lines=_lines(screen, rows),
            history=_lines(history, history_size),
            cursor=(int(info[0]), int(info[1])),
            cursor_visible=info[2] == "1",
            alternate=info[3] == "1",
            raw=screen,
            raw_history=history,
        )
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, check=False)
        _remove_socket(socket)
