"""The same program in an `idea` cell and in a tmux pane, compared screen by screen.

One private idea daemon (`IdeaEnv`: its own IDEA_HOME, HOME and a `bash --norc --noprofile`
shell with a fixed prompt) and one private tmux server (`tmux -u -L NAME -f FILE`, with
`default-terminal xterm-256color`, no status line, `LANG=C.UTF-8`) run the same shell in the
same folder with the same environment, in a cell and a pane of the same size.

`Comparison.step(keys…)` types the same keys into both (`idea send-keys` and `tmux
send-keys`: the same tmux key names), polls both until each screen is stable (unchanged over
a few polls), and compares them as ARCHITECTURE.md ("Testing") defines equal: the text of
every row (`idea capture` against `tmux capture-pane -p`), then the attributes (`idea capture
--ansi` against `tmux capture-pane -p -e`, both decoded by the emulator tests' tmux decoder),
then the cursor. A mask (one function per case) blanks what is expected to differ, such as
top's clock; masks apply before the stability check too, so a ticking clock does not keep a
screen "unstable".
"""

from __future__ import annotations

import contextlib
import difflib
import itertools
import json
import os
import re
import shlex
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from tests.adapters.emulator.tmux_reference import DEFAULT, Cells, Style, decode_lines, trim
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

STABLE_POLLS = 3
"""A screen is stable once this many polls in a row saw the same (masked) picture."""
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


def _map_row(screen: Screen, y: int, text_fn: Callable[[str], str]) -> tuple[str, Cells]:
    """Apply `text_fn` to row `y`'s text and, run by run, to its cells (same style kept)."""
    text = text_fn(screen.text[y]) if y < len(screen.text) else ""
    cells: Cells = []
    row = screen.cells[y] if y < len(screen.cells) else []
    for style, group in itertools.groupby(row, key=lambda cell: cell[1]):
        chars = "".join(char for char, _ in group)
        cells.extend((char, style) for char in text_fn(chars))
    return text, cells


def map_rows(screen: Screen, rows: Iterable[int], text_fn: Callable[[str], str]) -> Screen:
    """`screen` with `text_fn` applied to the text (and each style run) of `rows`."""
    text, cells = list(screen.text), list(screen.cells)
    for y in rows:
        if y < len(text):
            text[y], cells[y] = _map_row(screen, y, text_fn)
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
    lines = [trim(line) for line in decode_lines(ansi.removesuffix("\n"))] if ansi else []
    return (lines + [[] for _ in range(rows)])[:rows]


def _rows(text: str, rows: int) -> list[str]:
    lines = text.removesuffix("\n").split("\n") if text else []
    return ([line.rstrip(" ") for line in lines] + [""] * rows)[:rows]


class IdeaCell:
    """A cell of the private daemon, read through the real `idea` binary."""

    def __init__(self, env: IdeaEnv, target: str) -> None:
        self.env = env
        self.target = target

    def size(self) -> tuple[int, int]:
        info = self.env.json("capture", "-t", self.target)
        return int(info["cols"]), int(info["rows"])

    def send_keys(self, *keys: str, literal: bool = False) -> None:
        args = ["send-keys", "-t", self.target] + (["-l"] if literal else [])
        self.env.run(*args, "--", *keys)

    def poll(self) -> tuple[str, tuple[int, int], int]:
        """(`capture --ansi` text, cursor, rows) in one call."""
        info = self.env.json("capture", "--ansi", "-t", self.target)
        x, y = info["cursor"]
        return str(info["text"]), (int(x), int(y)), int(info["rows"])

    def text(self) -> str:
        return self.env.run("capture", "-t", self.target).stdout


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

    def start(self, cols: int, rows: int, cwd: Path, shell: str) -> None:
        # The pane runs what an idea cell runs; tmux's own variables are dropped so that
        # no program can tell the two apart by its environment.
        command = f"exec env -u TMUX -u TMUX_PANE {shlex.quote(shell)}"
        self.tmux("new-session", "-d", "-s", "ref", "-x", str(cols), "-y", str(rows),
                  "-c", str(cwd), command)
        self.started = True

    def resize(self, cols: int, rows: int) -> None:
        self.tmux("resize-window", "-t", "ref", "-x", str(cols), "-y", str(rows))

    def send_keys(self, *keys: str, literal: bool = False) -> None:
        self.tmux("send-keys", "-t", self.target, *(["-l"] if literal else []), *keys)

    def poll(self) -> tuple[str, tuple[int, int], int]:
        out = self.tmux("capture-pane", "-p", "-e", "-t", self.target, ";",
                        "display", "-p", "-t", self.target,
                        "#{cursor_x} #{cursor_y} #{pane_height}")
        body, _, info = out.removesuffix("\n").rpartition("\n")
        x, y, rows = (int(part) for part in info.split())
        return body, (x, y), rows

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


def read_screen(side: Side, *, with_text: bool) -> Screen:
    ansi, cursor, rows = side.poll()
    cells = _decode(ansi, rows)
    if with_text:
        text = _rows(side.text(), rows)
    else:
        text = ["".join(char for char, _ in row).rstrip(" ") for row in cells]
    return Screen(text=text, cells=cells, cursor=cursor, raw_ansi=ansi)


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


@dataclass
class _Settle:
    """Polling state of one `Comparison.settle`."""

    seen: dict[str, list[Screen]] = field(default_factory=lambda: {"idea": [], "tmux": []})
    last: tuple[Screen, Screen] | None = None


class Comparison:
    """An idea cell and a tmux pane of the same size, driven with the same keys."""

    def __init__(self, env: IdeaEnv, cell: IdeaCell, pane: TmuxPane) -> None:
        self.env = env
        self.cell = cell
        self.pane = pane
        self.steps = 0

    def send(self, *keys: str, literal: bool = False) -> None:
        self.cell.send_keys(*keys, literal=literal)
        self.pane.send_keys(*keys, literal=literal)

    def type(self, text: str) -> None:
        """Type `text` as it is (no key names)."""
        self.send(text, literal=True)

    def wait_both(self, pattern: str, timeout: float = 10.0, mask: Mask = no_mask) -> None:
        """Wait until both screens show `pattern` (a regex, multiline)."""
        regex = re.compile(pattern, re.MULTILINE)
        for name, side in (("idea", self.cell), ("tmux", self.pane)):
            def shown(side: Side = side) -> Screen | None:
                screen = mask(read_screen(side, with_text=False))
                return screen if regex.search("\n".join(screen.text)) else None

            def last(side: Side = side) -> str:
                return "\n".join(read_screen(side, with_text=False).text)

            retry_until(shown, timeout, describe=lambda n=name, f=last: f"{n}:\n{f()}")

    def step(self, *keys: str, literal: bool = False, wait: str | None = None,
             mask: Mask = no_mask, timeout: float = STEP_TIMEOUT) -> Screen:
        """Send `keys` to both, optionally wait for `wait` on both, then settle and compare."""
        if keys:
            self.send(*keys, literal=literal)
        if wait is not None:
            self.wait_both(wait, timeout, mask)
        return self.settle(mask=mask, timeout=timeout)

    def settle(self, *, mask: Mask = no_mask, timeout: float = STEP_TIMEOUT) -> Screen:
        """Poll both until each is stable and they are equal; fail with the differences."""
        self.steps += 1
        state = _Settle()

        def stable(name: str, screen: Screen) -> bool:
            history = state.seen[name]
            history.append(screen)
            del history[:-STABLE_POLLS]
            return len(history) == STABLE_POLLS and all(s == screen for s in history)

        def attempt() -> Screen | None:
            mine = mask(read_screen(self.cell, with_text=False))
            theirs = mask(read_screen(self.pane, with_text=False))
            if not (stable("idea", mine) and stable("tmux", theirs)):
                return None
            # Both are still: compare with the plain-text captures too.
            mine = mask(read_screen(self.cell, with_text=True))
            theirs = mask(read_screen(self.pane, with_text=True))
            state.last = (mine, theirs)
            return None if differences(mine, theirs) else mine

        def describe() -> str:
            if state.last is None:
                return "the screens never stopped changing:\n" + "\n".join(
                    f"{name}:\n" + "\n".join(history[-1].text if history else [])
                    for name, history in state.seen.items())
            return f"step {self.steps}: " + differences(*state.last)

        return retry_until(attempt, timeout, describe=describe)

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


def write_lines(path: Path, lines: Sequence[str]) -> Path:
    path.write_text("".join(f"{line}\n" for line in lines))
    return path


def cell_json(env: IdeaEnv, target: str) -> dict[str, object]:
    for cell in env.cells("-a"):
        if cell["target"].endswith(target) or cell["id"].startswith(target.lstrip("%")):
            return dict(cell)
    raise AssertionError(f"no cell {target}: {json.dumps(env.cells('-a'))}")
