"""The same program in an `idea` cell and in a tmux pane, compared screen by screen.

One private idea daemon (`IdeaEnv`: its own IDEA_HOME, HOME and a `bash --norc --noprofile`
shell with a fixed prompt) and one private tmux server (`tmux -u -L NAME -f FILE`, with
`default-terminal xterm-256color`, no status line, `LANG=C.UTF-8`) run the same shell in the
same folder with the same environment, in a cell and a pane of the same size.

`Comparison.step(keys…)` types the same keys into both (`idea send-keys` and `tmux
send-keys`: the same tmux key names), polls both until each screen is stable (unchanged over
a few polls), and compares them as ARCHITECTURE.md ("Testing") defines equal: the text of
every row (`idea capture` against `tmux capture-pane -p`), then the attributes (`idea capture
--ansi` against `tmux capture-pane -p -e -N`, both decoded by the emulator tests' tmux
decoder, trailing blanks that show nothing dropped on both sides), then the cursor
(`idea capture --json` against `#{cursor_x} #{cursor_y}`). A mask (one function per case)
blanks what is expected to differ, such as top's clock; masks apply before the stability
check too, so a ticking clock does not keep a screen "unstable".

Normalised, because the formats differ and not the screens: tmux's plain capture prints DEC
line-drawing characters as the letters that select them; tmux reports the cursor at x ==
width after the last column was written (pending wrap), where it is shown on the last column.
"""

from __future__ import annotations

import contextlib
import difflib
import itertools
import os
import re
import shlex
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from idea_tui.control import CommandFailed, ControlClient
from tests.adapters.emulator.tmux_reference import _DEC as DEC_GRAPHICS
from tests.adapters.emulator.tmux_reference import DEFAULT, Cells, Style, decode_lines, trim
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until
from tests.helpers.tui import TuiClient

STABLE_POLLS = 3
STABLE_SECONDS = 0.25
"""A screen is stable once this many polls in a row, over this long, saw the same (masked)
picture."""
STEP_TIMEOUT = 15.0
"""How long one step may take to settle into equal screens before it fails."""
_names = itertools.count(1)


@dataclass(frozen=True)
class Screen:
    """One side's screen: text rows, decoded attribute rows and the cursor (x, y)."""

    text: list[str]
    cells: list[Cells]
    cursor: tuple[int, int]
    raw_ansi: str = field(default="", compare=False)


Mask = Callable[[Screen], Screen]


def no_mask(screen: Screen) -> Screen:
    return screen


# ─── masks ──────────────────────────────────────────────────────────────────────────────


def map_rows(screen: Screen, rows: Iterable[int], text_fn: Callable[[str], str],
             run_fn: Callable[[str], str] | None = None) -> Screen:
    """`screen` with `text_fn` applied to the text of `rows`, and `run_fn` (default
    `text_fn`) to each run of one style in their attribute rows (the style is kept)."""
    run_fn = run_fn or text_fn
    text, cells = list(screen.text), list(screen.cells)
    for y in rows:
        if y >= len(text):
            continue
        text[y] = text_fn(text[y])
        row: Cells = []
        for style, group in itertools.groupby(cells[y], key=lambda cell: cell[1]):
            row.extend((char, style) for char in run_fn("".join(char for char, _ in group)))
        cells[y] = row
    return replace(screen, text=text, cells=cells)


_NUMBER = re.compile(r" *\d[\d.:,]*")


def collapse_numbers(text: str) -> str:
    """Every number (with the blanks that pad it) as one `#`: `  2.3 us,  0.7 sy` → `# us,# sy`."""
    return _NUMBER.sub("#", text)


def blank_rows(screen: Screen, rows: Iterable[int]) -> Screen:
    """`screen` with `rows` emptied (text and attributes)."""
    return map_rows(screen, rows, lambda _: "")


# ─── the two sides ──────────────────────────────────────────────────────────────────────


def _decode(ansi: str, rows: int) -> list[Cells]:
    """Decoded SGR rows, without the trailing blanks that show nothing (default foreground,
    no attribute: tmux prints only cells a program wrote, and not the background of erased
    ones; idea prints erased cells with a background)."""
    lines = [trim(line) for line in decode_lines(ansi.removesuffix("\n"))] if ansi else []
    return (lines + [[] for _ in range(rows)])[:rows]


def _rows(text: str, rows: int) -> list[str]:
    lines = text.removesuffix("\n").split("\n") if text else []
    return ([line.rstrip(" ") for line in lines] + [""] * rows)[:rows]


class IdeaCell:
    """A cell of the private daemon. Compared screens are read through the real `idea`
    binary; the many reads that only watch for the screen to hold still send the same
    `capture` request over one open control connection (a CLI call costs ~0.15 s)."""

    def __init__(self, env: IdeaEnv, target: str) -> None:
        self.env = env
        self.target = target
        self._control: ControlClient | None = None

    def size(self) -> tuple[int, int]:
        info = self.env.json("capture", "-t", self.target)
        return int(info["cols"]), int(info["rows"])

    def send_keys(self, *keys: str, literal: bool = False) -> None:
        args = ["send-keys", "-t", self.target] + (["-l"] if literal else [])
        self.env.run(*args, "--", *keys)

    def poll(self, *, fast: bool = False) -> tuple[str, tuple[int, int], int]:
        """(`capture --ansi` text, cursor, rows)."""
        if fast:
            if self._control is None:
                self._control = ControlClient.connect(self.env.locations)
            info = self._control.call("capture", target=self.target, ansi=True)
        else:
            info = self.env.json("capture", "--ansi", "-t", self.target)
        x, y = info["cursor"]
        return str(info["text"]), (int(x), int(y)), int(info["rows"])

    def text(self) -> str:
        return self.env.run("capture", "-t", self.target).stdout

    def close(self) -> None:
        if self._control is not None:
            self._control.close()
            self._control = None


class TmuxPane:
    """A pane of a private tmux server running the same shell as the idea cells."""

    def __init__(self, env: IdeaEnv, workdir: Path) -> None:
        self.env = dict(env.env)
        self.socket = f"idea-conf-{os.getpid()}-{next(_names)}"
        self.config = workdir / f"{self.socket}.conf"
        self.config.write_text(
            "set -g default-terminal xterm-256color\n"
            "set -g status off\n"
            "set -g escape-time 0\n"
            "set -g history-limit 10000\n"
            "set -g exit-empty off\n"
        )
        self.target = "ref:0.0"
        self.started = False

    def tmux(self, *args: str, check: bool = True) -> str:
        result = subprocess.run(
            ["tmux", "-u", "-L", self.socket, "-f", str(self.config), *args],
            env=self.env, capture_output=True, text=True, timeout=20, check=False,
            stdin=subprocess.DEVNULL,
        )
        if check and result.returncode != 0:
            raise AssertionError(f"tmux {shlex.join(args)}: {result.stderr.strip()}")
        return result.stdout

    def start(self, cols: int, rows: int, cwd: Path) -> None:
        """The pane runs `$SHELL` with exactly the environment an idea cell gets (tmux would
        drop PS1, set SHELL to its default-shell and add TMUX, TMUX_PANE, TERM_PROGRAM)."""
        env = {**self.env, "TERM": "xterm-256color"}
        env.setdefault("COLORTERM", "truecolor")
        launcher = self.config.with_suffix(".sh")
        assignments = " ".join(shlex.quote(f"{k}={v}") for k, v in sorted(env.items()))
        launcher.write_text(f"#!/bin/sh\nexec env -i {assignments} {shlex.quote(env['SHELL'])}\n")
        launcher.chmod(0o755)
        self.tmux("new-session", "-d", "-s", "ref", "-x", str(cols), "-y", str(rows),
                  "-c", str(cwd), str(launcher))
        self.started = True

    def resize(self, cols: int, rows: int) -> None:
        self.tmux("resize-window", "-t", "ref", "-x", str(cols), "-y", str(rows))

    def send_keys(self, *keys: str, literal: bool = False) -> None:
        self.tmux("send-keys", "-t", self.target, *(["-l"] if literal else []), *keys)

    def poll(self, *, fast: bool = False) -> tuple[str, tuple[int, int], int]:
        # -N: keep trailing blanks a program wrote (a reverse-video blank is visible); the
        # comparison then drops, on both sides, the blanks that show nothing.
        out = self.tmux("capture-pane", "-p", "-e", "-N", "-t", self.target, ";",
                        "display", "-p", "-t", self.target,
                        "#{cursor_x} #{cursor_y} #{pane_height} #{pane_width}")
        body, _, info = out.removesuffix("\n").rpartition("\n")
        x, y, rows, cols = (int(part) for part in info.split())
        # After the last column is written (pending wrap) tmux reports x == width; the
        # cursor is shown on the last column, where idea reports it.
        return body, (min(x, cols - 1), y), rows

    def text(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.target)

    def kill(self) -> None:
        if self.started:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.tmux("kill-server", check=False)
            self.started = False
        directory = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (directory / self.socket).unlink(missing_ok=True)


Side = IdeaCell | TmuxPane


def _line_drawing(text: str, cells: Cells) -> str:
    """tmux's plain capture prints DEC line-drawing characters as the letters that select
    them (`lqk` for `┌─┐`); its `-e` capture marks them (SO/SI) and decodes to the glyphs
    shown. Use the glyphs where that is the only difference."""
    shown = "".join(char for char, _ in cells).rstrip(" ")
    if len(shown) != len(text) or shown == text:
        return text
    if all(a == b or DEC_GRAPHICS.get(a) == b for a, b in zip(text, shown, strict=True)):
        return shown
    return text


def read_screen(side: Side, *, final: bool = False) -> Screen:
    """A side's screen; `final` reads the text with a capture of its own, as a user would
    (else the text is that of the attribute capture)."""
    if final:
        # The two captures run side by side (a CLI call is mostly interpreter start-up).
        with ThreadPoolExecutor(max_workers=2) as pool:
            polled = pool.submit(side.poll)
            plain = pool.submit(side.text)
            ansi, cursor, rows = polled.result()
            plain_text = plain.result()
    else:
        ansi, cursor, rows = side.poll(fast=True)
    cells = _decode(ansi, rows)
    if final:
        text = _rows(plain_text, rows)
        if isinstance(side, TmuxPane):
            text = [_line_drawing(row, cell_row) for row, cell_row in zip(text, cells,
                                                                           strict=True)]
    else:
        text = ["".join(char for char, _ in row).rstrip(" ") for row in cells]
    return Screen(text=text, cells=cells, cursor=cursor, raw_ansi=ansi)


def wait_screen(side: Side, pattern: str, timeout: float = 10.0) -> Screen:
    """Wait until the side's screen shows `pattern` (a regex, multiline); return it."""
    regex = re.compile(pattern, re.MULTILINE)
    seen: list[Screen] = []

    def shown() -> Screen | None:
        seen[:] = [read_screen(side)]
        return seen[0] if regex.search("\n".join(seen[0].text)) else None

    def describe() -> str:
        name = "idea" if isinstance(side, IdeaCell) else "tmux"
        return f"{name} never showed {pattern!r}:\n" + "\n".join(seen[0].text if seen else [])

    return retry_until(shown, timeout, describe=describe)


# ─── comparing ──────────────────────────────────────────────────────────────────────────


def _style_name(style: Style) -> str:
    return "default" if style == DEFAULT else f"fg={style[0]} bg={style[1]} attrs={style[2]:#x}"


def differences(idea: Screen, tmux: Screen) -> str:
    """Why two screens differ ("" when they are equal): text, then attributes, then cursor."""
    if idea.text != tmux.text:
        width = max(len(row) for row in idea.text + tmux.text + [""])
        lines = ["text differs (idea | tmux):"]
        for y, (mine, theirs) in enumerate(itertools.zip_longest(idea.text, tmux.text)):
            mark = " " if mine == theirs else "!"
            lines.append(f"{mark}{y:3d} {mine or '':<{width}} | {theirs or ''}")
        lines.extend(difflib.unified_diff(tmux.text, idea.text, "tmux", "idea", lineterm=""))
        return "\n".join(lines)
    if idea.cells != tmux.cells:
        lines = ["attributes differ (first difference of each row):"]
        for y, (mine, theirs) in enumerate(itertools.zip_longest(idea.cells, tmux.cells)):
            mine, theirs = mine or [], theirs or []
            if mine == theirs:
                continue
            x = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
                     min(len(mine), len(theirs)))
            a = mine[x] if x < len(mine) else ("<end>", DEFAULT)
            b = theirs[x] if x < len(theirs) else ("<end>", DEFAULT)
            lines.append(f"row {y} col {x}: idea {a[0]!r} {_style_name(a[1])}; "
                         f"tmux {b[0]!r} {_style_name(b[1])}  | {idea.text[y]!r}")
        return "\n".join(lines)
    if idea.cursor != tmux.cursor:
        return f"cursor differs: idea {idea.cursor}, tmux {tmux.cursor}"
    return ""


class Comparison:
    """An idea cell and a tmux pane of the same size, driven with the same keys."""

    def __init__(self, env: IdeaEnv, cell: IdeaCell, pane: TmuxPane) -> None:
        self.env = env
        self.cell = cell
        self.pane = pane
        self.steps = 0

    def send(self, *keys: str, literal: bool = False) -> None:
        with ThreadPoolExecutor(max_workers=2) as pool:
            sent = [pool.submit(side.send_keys, *keys, literal=literal)
                    for side in (self.cell, self.pane)]
            for future in sent:
                future.result()

    def paste(self, text: str) -> None:
        """Paste `text` into both: `idea paste`, and tmux's `paste-buffer -p` (bracketed when
        the program asked for it; line ends sent as CR by both)."""
        self.env.run("paste", "-t", self.cell.target, text)
        self.pane.tmux("set-buffer", "--", text)
        self.pane.tmux("paste-buffer", "-p", "-d", "-t", self.pane.target)

    def type(self, text: str) -> None:
        """Type `text` as it is (no key names)."""
        self.send(text, literal=True)

    def wait_both(self, pattern: str, timeout: float = 10.0) -> None:
        """Wait until both screens (unmasked) show `pattern` (a regex, multiline)."""
        wait_screen(self.cell, pattern, timeout)
        wait_screen(self.pane, pattern, timeout)

    def step(self, *keys: str, literal: bool = False, wait: str | None = None,
             mask: Mask = no_mask, timeout: float = STEP_TIMEOUT) -> Screen:
        """Send `keys` to both, optionally wait for `wait` on both, then settle and compare."""
        if keys:
            self.send(*keys, literal=literal)
        if wait is not None:
            self.wait_both(wait, timeout)
        return self.settle(mask=mask, timeout=timeout)

    def settle(self, *, mask: Mask = no_mask, timeout: float = STEP_TIMEOUT) -> Screen:
        """Poll both until each is stable and they are equal; fail with the differences.

        A side is stable once its (masked) screen has not changed for `STABLE_POLLS` polls
        and `STABLE_SECONDS`. Then both are read again the way a user reads them (`idea
        capture` and `idea capture --ansi`, `tmux capture-pane -p` and `-p -e`) and
        compared; polling goes on until they are equal or `timeout` has passed.
        """
        self.steps += 1
        since: dict[str, tuple[Screen, float, int]] = {}
        last: list[tuple[Screen, Screen]] = []

        def still(name: str, screen: Screen) -> bool:
            now = time.monotonic()
            previous = since.get(name)
            if previous is None or previous[0] != screen:
                since[name] = (screen, now, 1)
                return False
            _, start, polls = previous
            since[name] = (screen, start, polls + 1)
            return polls + 1 >= STABLE_POLLS and now - start >= STABLE_SECONDS

        def attempt() -> Screen | None:
            mine = still("idea", mask(read_screen(self.cell)))
            theirs = still("tmux", mask(read_screen(self.pane)))
            if not (mine and theirs):
                return None
            with ThreadPoolExecutor(max_workers=2) as pool:
                reads = [pool.submit(read_screen, side, final=True)
                         for side in (self.cell, self.pane)]
                pair = (mask(reads[0].result()), mask(reads[1].result()))
            last[:] = [pair]
            if differences(*pair):
                since.clear()
                return None
            return pair[0]

        def describe() -> str:
            if not last:
                return "the screens never held still:\n" + "\n".join(
                    f"{name}:\n" + "\n".join(screen.text)
                    for name, (screen, _, _) in since.items())
            return f"step {self.steps}: " + differences(*last[0])

        return retry_until(attempt, timeout, interval=0.03, describe=describe)

    def shell_ready(self) -> Screen:
        """Both shells at their first prompt, compared."""
        return self.step(wait=r"^e2e\$")


def sized_like(cell: IdeaCell, pane: TmuxPane) -> tuple[int, int]:
    """Resize the tmux window to the idea cell's size; return that size."""
    cols, rows = cell.size()
    pane.resize(cols, rows)
    retry_until(lambda: pane.poll()[2] == rows and
                pane.tmux("display", "-p", "-t", pane.target, "#{pane_width}").strip()
                == str(cols), describe="the tmux pane did not take the size")
    return cols, rows


def attach_client(env: IdeaEnv, width: int, height: int) -> TuiClient:
    """An attached client (`idea attach` in its own tmux server) of `width` x `height`.

    The first-run wizard (shown while no profiles.json exists) is skipped first, as the
    wizard's "Skip" does (an empty profile list), so that it does not cover the cells."""
    with ControlClient.connect(env.locations) as control, \
            contextlib.suppress(CommandFailed):
        control.call("profile_save", profiles=[])
    return TuiClient(env, width=width, height=height).start()


def write_lines(path: Path, lines: Sequence[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines))
    return path


