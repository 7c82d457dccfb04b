"""The terminal engine end to end: idea vs tmux in the same run (issue 3, "Speed").

Run: `.venv/bin/python bench/bench_terminal.py [--runs 3] [--only cat,latency,cpu,memory]
[--emulator both|ghostty|pyte]`. With `both` (the default) every figure is measured for idea
on each emulator backend (D26), each time beside tmux, and printed in one table.
Not part of the test command: it takes a few minutes and its figures depend on the machine.

Both programs run with a real client attached in a PTY of 160×48 whose output a thread
reads and discards all the time (as a terminal emulator would: a client that is not read
blocks). Each figure is measured for idea and for tmux in the same run, alternating between
them so that the machine's noise (2 cores, shared) hits both alike:

1. cat: `cat` of a 20 MB log (deterministic lines with SGR colours) in a cell, until a marker
   line printed after it shows on the cell's screen. idea: `idea send-keys 'cat F; echo
   MARK-$((1+N))' Enter`, then `idea capture --wait '^MARK-N+1$'`; the clock starts when
   send-keys returned (the keys are in the shell then) and stops when capture returned.
   tmux: the same keys with `tmux wait-for -S` appended, `tmux wait-for`, then capture-pane
   polled until the marker shows. Median of `--runs`; target idea ≤ 1× tmux.
2. echo latency: `cat` (tty echo on) in the focused cell A; one character, a different
   non-ASCII letter each time (so neither a flood, an escape sequence nor a repaint of an
   older one can match), is written to the client's PTY as a user types it, and the time
   until its UTF-8 bytes are read from the client's output is taken; `--samples` per case
   with random gaps of 20–100 ms, split over `--runs` rounds that alternate idea and tmux.
   Idle (nothing else runs) and with the visible cell B beside A flooding (`while :; do cat
   LOG; done`). p50 and p99; targets: idle p50 ≤ 2 ms, flood p99 ≤ 10 ms. The CPU that
   daemon + client (tmux server + client) used meanwhile is printed beside them.
3. agents: 9 visible cells (`idea grid 3x3`; tmux 9 panes, `select-layout tiled`), the
   top-left one focused, each running an agent-style repainter at 20 frames/s: every frame
   wrapped in synchronized output (CSI ? 2026 h/l), cursor home, a region of min(30, rows)
   lines repainted with colours, box drawing, a spinner, a progress bar, a streaming line and
   a counter (like Claude Code's TUI).
   CPU (utime+stime from /proc) of daemon + client over `--cpu-seconds`, as % of one core;
   tmux server + client the same (tmux's client only relays: its server writes to the
   terminal itself). Median of `--runs`; target ≤ 10 %. Also printed: the bytes written to
   the terminal per second and the frames the agents managed to draw (180/s when no one
   lags).
4. memory: daemon (tmux server) RSS before and after filling `--mem-cells` cells (idea: one
   page each, `idea layout new`; tmux: one window each, history-limit 10000) with 12,000 lines
   of 120-column SGR-rich text, each word in its own style, divided by the number of cells.
   The judged figure uses a fixed theme of 68 colours (as editors, `bat` and agents print;
   the same as bench_emulator's scrollback figure); then as many more cells are filled with a
   random colour per word (15 % truecolor), the worst case for a table of distinct styles.
   Fresh servers each run; median of `--runs`; target ≤ 4 MB per cell.

Everything runs in a temporary directory: private HOME and IDEA_HOME per test, tmux on its
own `-L` socket with `-f /dev/null`, `bash --norc --noprofile` with a fixed PS1 for both.
Every daemon, server and client started here is ended at the end, also on errors.
"""

from __future__ import annotations

import abc
import argparse
import contextlib
import itertools
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType

from _harness import (
    COLS,
    PROMPT,
    ROWS,
    BenchError,
    Drain,
    PtyClient,
    cpu_seconds,
    cpu_ticks,
    default_idea,
    format_table,
    make_environment,
    median,
    ratio,
    rss_mb,
    verdict,
)

PROJECT = "termbench"
TMUX_SESSION = "bench"
CALL_TIMEOUT = 60.0
CAT_TIMEOUT = 180.0

# Issue 11's targets (the libghostty-vt backend); the pyte backend is judged by them too.
TARGET_CAT_RATIO = 1.0
TARGET_IDLE_P50_MS = 2.0
TARGET_FLOOD_P99_MS = 10.0
TARGET_CPU = 10.0
TARGET_MEM_MB = 4.0

FILL_LINES = 12_000
FILL_COLS = 120
AGENT_FPS = 20
ECHO_TIMEOUT = 2.0
TESTS = ("cat", "latency", "cpu", "memory")

Log = Callable[[str], None]


# ─── inputs, generated deterministically ────────────────────────────────────────────────

_WORD_TEXT = (
    "request worker cache miss hit build compile test passed failed retry upstream latency "
    "queue commit branch merge rebase token parse render layout agent tool call result "
    "stream socket daemon client frame buffer scroll cursor"
)
_WORDS = _WORD_TEXT.split()
_LEVELS = (("32", "INFO "), ("33", "WARN "), ("31", "ERROR"), ("36", "DEBUG"))


def write_log(path: Path, size: int, seed: int = 3) -> None:
    """Log lines with SGR colours (level, component, numbers), about `size` bytes."""
    rng = random.Random(seed)
    lines: list[str] = []
    written = 0
    n = 0
    while written < size:
        colour, level = _LEVELS[rng.randrange(len(_LEVELS))]
        words = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(4, 14)))
        line = (
            f"2024-05-{1 + n % 28:02d}T{n % 24:02d}:{n % 60:02d}:{(n * 7) % 60:02d}."
            f"{n % 1000:03d}Z \x1b[{colour}m{level}\x1b[0m \x1b[1;34mworker-{n % 16}\x1b[0m "
            f"{words} \x1b[38;5;{16 + n % 216}m{rng.randint(1, 99999)}ms\x1b[0m id={n:08x}\n"
        )
        lines.append(line)
        written += len(line)
        n += 1
    path.write_text("".join(lines))


# A fixed theme, as editors, `bat`, `delta` and agents print (the same as bench_emulator's
# scrollback figure): 16 ANSI colours, 40 palette colours, 12 truecolor colours.
_THEME = (
    [f"3{n}" for n in range(8)]
    + [f"9{n}" for n in range(8)]
    + [f"38;5;{16 + 5 * n}" for n in range(40)]
    + [f"38;2;{40 + 17 * n};{200 - 13 * n};{90 + 11 * n}" for n in range(12)]
)


def _fill_style(rng: random.Random, theme: bool) -> str:
    attr = rng.choice(("", "1;", "2;", "3;", "4;"))
    if theme:
        return f"{attr}{rng.choice(_THEME)}"
    pick = rng.random()  # the worst case: a random colour per word, 15 % truecolor
    if pick < 0.5:
        return f"{attr}3{rng.randrange(8)};4{rng.randrange(8)}"
    if pick < 0.85:
        return f"{attr}38;5;{rng.randrange(256)}"
    return f"{attr}38;2;{rng.randrange(256)};{rng.randrange(256)};{rng.randrange(256)}"


def write_fill(
    path: Path, theme: bool, lines: int = FILL_LINES, cols: int = FILL_COLS, seed: int = 4
) -> None:
    """`lines` lines of exactly `cols` columns, each word in its own style."""
    rng = random.Random(seed)
    out: list[str] = []
    for _ in range(lines):
        parts: list[str] = []
        width = 0
        while width < cols:
            word = rng.choice(_WORDS)[: cols - width]
            parts.append(f"\x1b[{_fill_style(rng, theme)}m{word}\x1b[0m")
            width += len(word)
            if width < cols:
                parts.append(" ")
                width += 1
        out.append(f"{''.join(parts)}\n")
    path.write_text("".join(out))


AGENT_SCRIPT = r'''
"""An agent-style TUI: repaints a boxed region AGENT_FPS times a second, Claude Code style."""
import os
import sys
import time

go_file, stats_file, fps = sys.argv[1], sys.argv[2], float(sys.argv[3])
SPIN = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
WORDS = ("reading src/app.py planning the edit applying patch running tests 12 passed "
         "checking types refactoring module updating docs").split()
STYLES = ("38;5;250", "2;38;5;244", "38;2;120;200;255", "1;38;5;114", "38;5;180", "3;38;5;147")
cols, rows = os.get_terminal_size(1)
height = min(30, rows)
width = max(12, cols - 1)
inner = width - 4
out = sys.stdout.buffer
out.write(b"\x1b[?25l\x1b[2J")
out.flush()


def row(y, n):
    edge = "\x1b[38;5;173m"
    if y == 0:
        return f"{edge}╭─ ✻ agent {'─' * (width - 12)}╮"
    if y == height - 1:
        return f"{edge}╰{'─' * (width - 2)}╯"
    if y == height - 2:
        text = f"{SPIN[n % len(SPIN)]} Thinking… {n / fps:6.1f}s · {n * 7} tokens · esc"
        style = "1;38;2;215;119;87"
    elif y == height - 3:
        done = n % (inner + 1)
        text = "█" * done + "░" * (inner - done)
        style = "38;5;75"
    elif y == 1 + (n // 4) % max(1, height - 4):
        text = "⎿ " + " ".join(WORDS[(n + j) % len(WORDS)] for j in range(n % 9 + 1))
        style = "1;37"
    else:
        text = f"{y:2d} " + " ".join(WORDS[(y * 3 + j) % len(WORDS)] for j in range(12))
        style = STYLES[y % len(STYLES)]
    text = text[:inner].ljust(inner)
    half = inner // 2
    return (f"{edge}│\x1b[0m \x1b[{style}m{text[:half]}\x1b[0;{STYLES[(y + 1) % 6]}m"
            f"{text[half:]}\x1b[0m {edge}│")


frames = 0
drawing = False
due = time.monotonic()
while True:
    if not os.path.exists(go_file):
        if drawing:
            with open(stats_file, "w") as f:
                f.write(str(frames))
            drawing = False
        time.sleep(0.05)
        due = time.monotonic()
        continue
    drawing = True
    parts = ["\x1b[?2026h\x1b[H"]
    for y in range(height):
        parts.append(f"\x1b[{y + 1};1H{row(y, frames)}\x1b[0m")
    parts.append("\x1b[?2026l")
    out.write("".join(parts).encode())
    out.flush()
    frames += 1
    due += 1.0 / fps
    delay = due - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    else:
        due = time.monotonic()
'''


def echo_letters() -> Iterator[str]:
    """Single-width letters that appear nowhere else in either program's output."""
    for low, high in ((0x00C0, 0x024F), (0x0391, 0x04FF), (0x1E00, 0x1EFF)):
        for code in range(low, high + 1):
            char = chr(code)
            if unicodedata.category(char) in ("Lu", "Ll") and not unicodedata.combining(char):
                yield char


# ─── the two programs ───────────────────────────────────────────────────────────────────


class Side(abc.ABC):
    """idea or tmux: a server, a client on a PTY drained by a thread, its cells."""

    name = ""

    def __init__(self, env: dict[str, str], root: Path) -> None:
        self.env = env
        self.root = root
        self.project = root / PROJECT
        self.project.mkdir(parents=True, exist_ok=True)
        self.client: PtyClient | None = None
        self.drain: Drain | None = None

    @abc.abstractmethod
    def _call(self, args: Sequence[str], timeout: float) -> subprocess.CompletedProcess[str]:
        """Run one command of the program's CLI."""

    @abc.abstractmethod
    def start(self) -> None:
        """Start the server with one cell, attach a drained client, wait for the prompt."""

    @abc.abstractmethod
    def stop_server(self) -> None:
        """End the server and everything in it; no error if none runs."""

    @abc.abstractmethod
    def server_pid(self) -> int:
        """The daemon's (server's) process id."""

    @abc.abstractmethod
    def cells(self) -> list[str]:
        """The ids of the cells shown, in reading order."""

    @abc.abstractmethod
    def screen(self, cell: str) -> str:
        """The cell's screen as text."""

    @abc.abstractmethod
    def wait_screen(self, cell: str, regex: str, timeout: float = 30.0) -> None:
        """Wait until the cell's screen matches `regex` (multiline)."""

    @abc.abstractmethod
    def send(self, cell: str, *keys: str) -> None:
        """Type keys (tmux-style key names) into a cell."""

    @abc.abstractmethod
    def focus(self, cell: str) -> None:
        """Make the cell the focused one (where the client's keys go)."""

    @abc.abstractmethod
    def cat_until_marker(self, cell: str, path: Path, n: int) -> float:
        """Seconds from `cat path` typed in the cell until the marker after it shows."""

    @abc.abstractmethod
    def history_lines(self, cell: str) -> int:
        """Lines of scrollback the cell holds."""

    # shared
    def run(self, *args: str, check: bool = True, timeout: float = CALL_TIMEOUT) -> str:
        done = self._call(args, timeout)
        if check and done.returncode != 0:
            raise BenchError(f"{self.name} {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def attach(self, argv: Sequence[str], marker: bytes) -> None:
        self.client = PtyClient.spawn(argv, self.env, str(self.project), COLS, ROWS)
        self.drain = Drain(self.client).__enter__()
        self.drain.wait_for(marker)

    def type(self, data: bytes) -> None:
        assert self.client is not None
        self.client.write(data)

    def quiet(self, still: float = 0.3, limit: float = 15.0) -> None:
        """Wait until the client wrote nothing for `still` seconds (it caught up)."""
        assert self.drain is not None
        end = time.perf_counter() + limit
        last = -1
        while time.perf_counter() < end:
            total = self.drain.total
            if total == last:
                return
            last = total
            time.sleep(still)

    def pids(self) -> list[int]:
        assert self.client is not None
        return [self.server_pid(), self.client.pid]

    def stop(self) -> None:
        """End the server, the client and the reader; no error if already gone."""
        with contextlib.suppress(Exception):
            self.stop_server()
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.finish(timeout=5.0)
        if self.drain is not None:
            self.drain.stop()
        self.client = self.drain = None


class Idea(Side):
    name = "idea"

    def __init__(self, env: dict[str, str], root: Path, binary: str) -> None:
        super().__init__({**env, "IDEA_HOME": str(root / "idea-home")}, root)
        self.binary = binary

    def _call(self, args: Sequence[str], timeout: float) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [self.binary, *args],
            env=self.env,
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def start(self) -> None:
        # The first-run wizard (agent profiles) would take the keyboard from the cells: record
        # "skipped", as a user who dismissed it once (an empty list is the wizard's skip).
        profiles = Path(self.env["IDEA_HOME"]) / "data" / "profiles.json"
        if not profiles.exists():
            profiles.parent.mkdir(parents=True, exist_ok=True)
            profiles.write_text('{"version": 1, "profiles": []}\n')
        config = Path(self.env["IDEA_HOME"]) / "config" / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(f'emulator = "{EMULATOR}"\n')
        self.run("new", str(self.project))
        if EMULATOR != "auto" and not self.emulator().startswith(EMULATOR):
            raise BenchError(f"idea runs {self.emulator()!r}, not the {EMULATOR} asked for")
        self.attach([self.binary, "attach"], PROJECT.encode())
        for cell in self.cells():
            self.wait_screen(cell, re.escape(PROMPT.strip()))

    def emulator(self) -> str:
        return str(json.loads(self.run("ls", "--json"))["emulator"])

    def stop_server(self) -> None:
        self.run("kill-server", "-f", check=False)

    def server_pid(self) -> int:
        return int((Path(self.env["IDEA_HOME"]) / "run" / "daemon.pid").read_text().strip())

    def cell_info(self, all_pages: bool = False) -> list[dict[str, object]]:
        cells: list[dict[str, object]] = json.loads(
            self.run("list-cells", *(["-a"] if all_pages else []), "--json")
        )
        return cells

    def cells(self) -> list[str]:
        return [str(cell["id"]) for cell in self.cell_info()]

    def screen(self, cell: str) -> str:
        return self.run("capture", "-t", cell)

    def wait_screen(self, cell: str, regex: str, timeout: float = 30.0) -> None:
        self.run(
            "capture", "-t", cell, "--wait", regex, "--timeout", str(timeout),
            timeout=timeout + CALL_TIMEOUT,
        )  # fmt: skip

    def send(self, cell: str, *keys: str) -> None:
        self.run("send-keys", "-t", cell, *keys)

    def focus(self, cell: str) -> None:
        self.run("select", "-t", cell)

    def cat_until_marker(self, cell: str, path: Path, n: int) -> float:
        self.send(cell, f"cat {path}; echo MARK-$((1+{n}))", "Enter")
        start = time.perf_counter()
        self.wait_screen(cell, f"^MARK-{n + 1} *$", CAT_TIMEOUT)
        return time.perf_counter() - start

    def history_lines(self, cell: str) -> int:
        """Lines of scrollback the cell holds (capture's lines minus the screen's)."""
        info = json.loads(self.run("capture", "-t", cell, "-S", "1000000", "--json"))
        return len(str(info["text"]).split("\n")) - int(info["rows"])


class Tmux(Side):
    name = "tmux"

    def __init__(self, env: dict[str, str], root: Path, binary: str) -> None:
        super().__init__(env, root)
        self.socket = f"idea-bench-{os.getpid()}-{root.name}"
        self.base = [binary, "-u", "-L", self.socket, "-f", os.devnull]
        self.socket_path = ""

    def _call(self, args: Sequence[str], timeout: float) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.base, *args],
            env=self.env,
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def start(self) -> None:
        session = TMUX_SESSION
        self.run("new-session", "-d", "-s", session, "-c", str(self.project))
        self.run("set-option", "-g", "default-terminal", "xterm-256color")
        self.run("set-option", "-g", "history-limit", "10000")
        # A first pane made after the options, so that it has them too.
        self.run("new-window", "-t", f"{session}:", "-c", str(self.project))
        self.run("kill-window", "-t", f"{session}:0")
        self.socket_path = self.run("display-message", "-p", "#{socket_path}").strip()
        self.attach([*self.base, "attach", "-t", session], f"[{session}]".encode())
        for cell in self.cells():
            self.wait_screen(cell, re.escape(PROMPT.strip()))

    def stop_server(self) -> None:
        self.run("kill-server", check=False)
        if self.socket_path:  # tmux leaves its socket file behind
            with contextlib.suppress(OSError):
                os.unlink(self.socket_path)

    def server_pid(self) -> int:
        return int(self.run("display-message", "-p", "-t", TMUX_SESSION, "#{pid}").strip())

    def cells(self) -> list[str]:
        return self.run("list-panes", "-t", TMUX_SESSION, "-F", "#{pane_id}").split()

    def screen(self, cell: str) -> str:
        return self.run("capture-pane", "-p", "-t", cell)

    def wait_screen(self, cell: str, regex: str, timeout: float = 30.0) -> None:
        pattern = re.compile(regex, re.MULTILINE)
        end = time.perf_counter() + timeout
        while not pattern.search("\n".join(s.rstrip() for s in self.screen(cell).split("\n"))):
            if time.perf_counter() > end:
                raise BenchError(f"tmux pane {cell}: {regex!r} did not appear in {timeout} s")
            time.sleep(0.01)

    def send(self, cell: str, *keys: str) -> None:
        self.run("send-keys", "-t", cell, *keys)

    def focus(self, cell: str) -> None:
        self.run("select-pane", "-t", cell)

    def cat_until_marker(self, cell: str, path: Path, n: int) -> float:
        channel = f"bench-{n}"
        self.send(cell, f"cat {path}; echo MARK-$((1+{n})); tmux wait-for -S {channel}", "Enter")
        start = time.perf_counter()
        self.run("wait-for", channel, timeout=CAT_TIMEOUT)  # the shell is past `echo`
        self.wait_screen(cell, f"^MARK-{n + 1} *$", CAT_TIMEOUT)  # and the pane shows it
        return time.perf_counter() - start

    def history_lines(self, cell: str) -> int:
        return int(self.run("display-message", "-p", "-t", cell, "#{history_size}").strip())


EMULATOR = "auto"
"""The idea daemon's emulator backend for the runs in progress (`emulator` in config.toml)."""


# ─── the figures ────────────────────────────────────────────────────────────────────────


@dataclass
class Pair:
    idea: list[float] = field(default_factory=list)
    tmux: list[float] = field(default_factory=list)

    def of(self, side: Side) -> list[float]:
        return self.idea if side.name == "idea" else self.tmux


@dataclass
class Results:
    cat: Pair = field(default_factory=Pair)
    cat_mb: float = 0.0
    echo: dict[str, Pair] = field(default_factory=dict)
    echo_missed: dict[str, int] = field(default_factory=dict)
    echo_cpu: dict[str, Pair] = field(default_factory=dict)
    cpu: Pair = field(default_factory=Pair)
    cpu_server: Pair = field(default_factory=Pair)
    cpu_client: Pair = field(default_factory=Pair)
    fps: Pair = field(default_factory=Pair)
    drawn_kb: Pair = field(default_factory=Pair)
    mem: dict[str, Pair] = field(default_factory=lambda: {"theme": Pair(), "random": Pair()})
    history: Pair = field(default_factory=Pair)
    done: set[str] = field(default_factory=set)


@contextlib.contextmanager
def both(
    env: dict[str, str], work: Path, name: str, idea_binary: str, tmux_binary: str
) -> Iterator[tuple[Idea, Tmux]]:
    """A fresh idea daemon and tmux server, each with a client attached and drained."""
    root = work / f"{name}-{EMULATOR}"
    idea = Idea(env, root / "idea", idea_binary)
    tmux = Tmux(env, root / "tmux", tmux_binary)
    try:
        idea.start()
        tmux.start()
        yield idea, tmux
    finally:
        idea.stop()
        tmux.stop()


def bench_cat(sides: Sequence[Side], log_file: Path, runs: int, res: Results, log: Log) -> None:
    cells = {side.name: side.cells()[0] for side in sides}
    for run in range(runs):
        order = sides if run % 2 == 0 else list(reversed(sides))
        for side in order:
            side.quiet()
            seconds = side.cat_until_marker(cells[side.name], log_file, 100 + run)
            res.cat.of(side).append(seconds)
            log(f"cat {res.cat_mb:.0f} MB, {side.name} run {run + 1}: {seconds:.2f} s")


def _echo_samples(
    side: Side, letters: Iterator[str], count: int, rng: random.Random
) -> tuple[list[float], int]:
    assert side.drain is not None
    samples: list[float] = []
    missed = 0
    for _ in range(count):
        data = next(letters).encode()
        side.drain.expect(data)
        start = time.perf_counter()
        side.type(data)
        seen = side.drain.hit(ECHO_TIMEOUT)
        if seen is None:
            missed += 1
            if missed == 5 and not samples:  # the keys do not reach the cell: stop waiting
                return samples, count
        else:
            samples.append((seen - start) * 1000)
        time.sleep(rng.uniform(0.02, 0.1))
    return samples, missed


def bench_latency(
    sides: Sequence[Side], log_file: Path, samples: int, runs: int, res: Results, log: Log
) -> None:
    rng = random.Random(7)
    pairs: dict[str, tuple[str, str]] = {}
    letters: dict[str, Iterator[str]] = {}
    for side in sides:
        (typing,) = side.cells()
        if isinstance(side, Idea):
            side.run("split", "-h", "-t", typing)
        else:
            side.run("split-window", "-h", "-t", typing, "-c", str(side.project))
        flooding = next(cell for cell in side.cells() if cell != typing)
        side.wait_screen(flooding, re.escape(PROMPT.strip()))
        side.send(typing, "cat", "Enter")
        side.focus(typing)
        side.wait_screen(typing, r"\$ cat *$")
        pairs[side.name] = (typing, flooding)
        letters[side.name] = echo_letters()
    per_round = max(1, -(-samples // runs))
    for case in ("idle", "flood"):
        res.echo[case] = Pair()
        res.echo_cpu[case] = Pair()
        res.echo_missed[case] = 0
    for run in range(runs):
        for case in ("idle", "flood"):
            for side in sides:
                typing, flooding = pairs[side.name]
                if case == "flood":
                    side.send(flooding, f"while :; do cat {log_file}; done", "Enter")
                    time.sleep(1.5)  # the flood under way, the client busy drawing it
                else:
                    side.quiet()
                pids = side.pids()
                before = [cpu_seconds(pid) for pid in pids]
                start = time.perf_counter()
                got, missed = _echo_samples(side, letters[side.name], per_round, rng)
                elapsed = time.perf_counter() - start
                used = sum(cpu_seconds(pid) - b for pid, b in zip(pids, before, strict=True))
                res.echo_cpu[case].of(side).append(100.0 * used / elapsed)
                if case == "flood":
                    side.send(flooding, "C-c")
                    side.wait_screen(flooding, re.escape(PROMPT.strip()) + " *$", 60.0)
                res.echo[case].of(side).extend(got)
                res.echo_missed[case] += missed
                log(
                    f"echo {case}, {side.name} round {run + 1}: p50 {percentile(got, 50):.1f} ms"
                    f", p99 {percentile(got, 99):.1f} ms, max {max(got, default=0):.1f} ms"
                    + (f", {missed} not echoed within {ECHO_TIMEOUT:g} s" if missed else "")
                )
    for side in sides:  # sanity: the letters timed are the ones the cell shows
        typing, _flooding = pairs[side.name]
        shown = set(side.screen(typing))
        typed = list(itertools.islice(echo_letters(), per_round * runs * 2))
        log(f"echo check, {side.name}: {sum(c in shown for c in typed)} of {len(typed)} on screen")


def bench_cpu(
    sides: Sequence[Side], agent: Path, seconds: float, runs: int, res: Results, log: Log
) -> None:
    control = agent.parent
    for side in sides:
        (first,) = side.cells()
        if isinstance(side, Idea):
            side.run("grid", "3x3", "-t", first)
        else:
            for _ in range(8):
                side.run("split-window", "-t", TMUX_SESSION, "-c", str(side.project))
                side.run("select-layout", "-t", TMUX_SESSION, "tiled")
        cells = side.cells()
        if len(cells) != 9:
            raise BenchError(f"{side.name}: expected 9 cells, found {len(cells)}")
        for index, cell in enumerate(cells):
            side.wait_screen(cell, re.escape(PROMPT.strip()))
            go = control / f"go-{side.name}"
            stats = control / f"frames-{side.name}-{index}"
            side.send(cell, f"clear; {sys.executable} {agent} {go} {stats} {AGENT_FPS}", "Enter")
        side.focus(cells[0])
    for run in range(runs):
        order = sides if run % 2 == 0 else list(reversed(sides))
        for side in order:
            go = control / f"go-{side.name}"
            frames_before = _frames(control, side.name)
            assert side.drain is not None
            side.quiet(0.3, 5.0)
            go.touch()
            time.sleep(1.0)  # warm up: all nine agents drawing
            pids = side.pids()
            before = [cpu_seconds(pid) for pid in pids]
            start = time.perf_counter()
            written = side.drain.total
            time.sleep(seconds)
            written = side.drain.total - written
            used = [cpu_seconds(pid) - b for pid, b in zip(pids, before, strict=True)]
            elapsed = time.perf_counter() - start
            go.unlink()
            time.sleep(0.3)  # the agents write their frame counts
            drawn = _frames(control, side.name) - frames_before
            server, client = (100.0 * u / elapsed for u in used)
            res.cpu.of(side).append(server + client)
            res.cpu_server.of(side).append(server)
            res.cpu_client.of(side).append(client)
            res.fps.of(side).append(drawn / (elapsed + 1.0))
            res.drawn_kb.of(side).append(written / 1000 / elapsed)
            log(
                f"agents, {side.name} run {run + 1}: {server + client:.1f} % core "
                f"(server {server:.1f}, client {client:.1f}); {drawn / (elapsed + 1.0):.0f} "
                f"frames/s drawn by the nine agents"
            )


def _frames(control: Path, name: str) -> int:
    total = 0
    for path in control.glob(f"frames-{name}-*"):
        with contextlib.suppress(ValueError, OSError):
            total += int(path.read_text() or 0)
    return total


MEMORY_SETTLE = 5.0
"""Seconds after the cells go quiet before their memory is read, at least."""
MEMORY_SETTLE_MAX = 60.0
"""At most this long for the server to come to rest (idea compacts the history of quiet
cells a step at a time, a second or so of CPU for 10,000 lines: memory is read once the
server has stopped working, not while it still compacts)."""


def rss_at_rest(pid: int) -> tuple[float, float]:
    """The server's RSS once it has been quiet `MEMORY_SETTLE` seconds and its CPU use over
    the last second is under 2 % of a core; and how long that took."""
    started = time.monotonic()
    time.sleep(MEMORY_SETTLE)
    tick = os.sysconf("SC_CLK_TCK")
    while time.monotonic() - started < MEMORY_SETTLE_MAX:
        before = cpu_ticks(pid)
        time.sleep(1.0)
        if (cpu_ticks(pid) - before) / tick < 0.02:
            break
    return rss_mb(pid), time.monotonic() - started


def bench_memory(
    env: dict[str, str],
    work: Path,
    binaries: tuple[str, str],
    inputs: Path,
    cells: int,
    runs: int,
    res: Results,
    log: Log,
) -> None:
    """Fresh servers each run; `cells` cells filled with the theme fill, then as many more
    with the random-colour fill, each group measured by the RSS it added."""
    fills = (("theme", inputs / "fill-theme.txt"), ("random", inputs / "fill-random.txt"))
    for run in range(runs):
        with both(env, work, f"memory-{run}", *binaries) as (idea, tmux):
            targets: dict[str, list[str]] = {}
            for _ in range(cells * len(fills)):
                idea.run("layout", "new")
                tmux.run("new-window", "-t", f"{TMUX_SESSION}:", "-c", str(tmux.project))
            pages = idea.cell_info(all_pages=True)
            targets["idea"] = [str(c["id"]) for c in pages if c.get("page") != "Default"]
            windows = tmux.run("list-panes", "-s", "-t", TMUX_SESSION, "-F", "#{pane_id}")
            targets["tmux"] = windows.split()[1:]
            sides: list[Side] = [idea, tmux]
            for side in sides:
                if len(targets[side.name]) != cells * len(fills):
                    raise BenchError(f"{side.name}: {len(targets[side.name])} cells to fill")
                for cell in targets[side.name]:
                    side.wait_screen(cell, re.escape(PROMPT.strip()))
            for side in sides:
                pid = side.server_pid()
                for index, (kind, fill) in enumerate(fills):
                    group = targets[side.name][index * cells : (index + 1) * cells]
                    side.quiet()
                    time.sleep(1.0)
                    before = rss_mb(pid)
                    for cell in group:
                        side.cat_until_marker(cell, fill, 200 + run)
                    side.quiet()
                    # Memory at rest: idea compacts a cell's history after 2 s of quiet
                    # (idea_daemon/history_compaction.py); the same wait for tmux.
                    after, waited = rss_at_rest(pid)
                    per_cell = (after - before) / cells
                    res.mem[kind].of(side).append(per_cell)
                    log(
                        f"memory ({kind} colours), {side.name} run {run + 1}: RSS {before:.1f}"
                        f" → {after:.1f} MB, {per_cell:.2f} MB per cell (at rest after"
                        f" {waited:.0f} s)"
                    )
                # Last: a capture of the whole history allocates (and keeps) memory itself.
                history = median([side.history_lines(c) for c in targets[side.name]])
                res.history.of(side).append(history)
                log(f"memory, {side.name}: {history:.0f} lines of history per cell")


# ─── report ─────────────────────────────────────────────────────────────────────────────


def percentile(values: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (p99 of 200 samples is the second largest)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[min(len(ordered), int(rank)) - 1]


def _spread(values: Sequence[float], fmt: str, unit: str) -> str:
    if not values:
        return "-"
    text = f"{median(values):{fmt}} {unit}"
    if len(values) > 1:
        text += f" ({min(values):{fmt}}–{max(values):{fmt}})"
    return text


Rows = list[tuple[str, str, str, str, str, str]]


def report(res: Results, runs: int, args: argparse.Namespace) -> str:
    return format_table(("figure", "idea", "tmux", "idea/tmux", "target", "ok?"),
                        report_rows(res, runs, args))


def report_backends(results: dict[str, Results], runs: int, args: argparse.Namespace) -> str:
    """One table: each backend's figure beside tmux's (tmux measured in each backend's run,
    alternating with it), the ratio and verdict per backend."""
    tables = {name: report_rows(res, runs, args) for name, res in results.items()}
    names = list(tables)
    headers = ["figure", *(f"idea {n}" for n in names), "tmux", *(f"{n}/tmux" for n in names),
               "target", *(f"ok? {n}" for n in names)]
    rows: list[list[str]] = []
    for index, first in enumerate(tables[names[0]]):
        lines = [tables[n][index] if index < len(tables[n]) else first for n in names]
        rows.append([first[0], *(line[1] for line in lines), first[2],
                     *(line[3] for line in lines), first[4], *(line[5] for line in lines)])
    return format_table(headers, rows)


def report_rows(res: Results, runs: int, args: argparse.Namespace) -> Rows:
    rows: Rows = []

    def add(
        label: str,
        mine: float,
        mine_text: str,
        theirs: float | None,
        theirs_text: str,
        target: float | None = None,
        target_text: str = "",
        judged: float | None = None,
    ) -> None:
        value = mine if judged is None else judged
        rows.append(
            (
                label,
                mine_text,
                theirs_text,
                ratio(mine, theirs),
                target_text,
                verdict(value, target) if value == value else "",
            )
        )

    r = res
    if "cat" in r.done:
        mi, mt = median(r.cat.idea), median(r.cat.tmux)
        add(
            f"cat {r.cat_mb:.0f} MB SGR log until marker (median of {runs})",
            mi,
            _spread(r.cat.idea, ".2f", "s"),
            mt,
            _spread(r.cat.tmux, ".2f", "s"),
            TARGET_CAT_RATIO,
            f"≤ {TARGET_CAT_RATIO:g}× tmux",
            judged=mi / mt if mt else float("nan"),
        )
        add(
            "  throughput",
            r.cat_mb / mi,
            f"{r.cat_mb / mi:.1f} MB/s",
            r.cat_mb / mt,
            f"{r.cat_mb / mt:.1f} MB/s",
        )
    if "latency" in r.done:
        for case, pct, target in (
            ("idle", 50, TARGET_IDLE_P50_MS),
            ("idle", 99, None),
            ("flood", 50, None),
            ("flood", 99, TARGET_FLOOD_P99_MS),
        ):
            pair = r.echo[case]
            mi, mt = percentile(pair.idea, pct), percentile(pair.tmux, pct)
            label = "other cell idle" if case == "idle" else "other visible cell flooding"
            add(
                f"echo latency p{pct}, {label} (n={len(pair.idea)}/{len(pair.tmux)})",
                mi,
                f"{mi:.1f} ms" if pair.idea else "no echo",
                mt,
                f"{mt:.1f} ms" if pair.tmux else "no echo",
                target,
                f"≤ {target:g} ms" if target else "",
                judged=mi if pair.idea else float("inf"),
            )
        for case in ("idle", "flood"):
            pair = r.echo_cpu[case]
            add(
                f"  CPU daemon+client while timing, {case} (% of one core)",
                median(pair.idea),
                _spread(pair.idea, ".0f", "%"),
                median(pair.tmux),
                _spread(pair.tmux, ".0f", "%"),
            )
        missed = sum(r.echo_missed.values())
        if missed:
            rows.append((f"  keystrokes not echoed within {ECHO_TIMEOUT:g} s", str(missed),
                         "", "", "", "OVER"))  # fmt: skip
    if "cpu" in r.done:
        label = f"9 agent cells at {AGENT_FPS} fps: daemon+client CPU ({args.cpu_seconds:g} s)"
        add(
            label,
            median(r.cpu.idea),
            _spread(r.cpu.idea, ".1f", "%"),
            median(r.cpu.tmux),
            _spread(r.cpu.tmux, ".1f", "%"),
            TARGET_CPU,
            f"≤ {TARGET_CPU:g} % core",
        )
        for name, pair in (("  daemon / server", r.cpu_server), ("  client", r.cpu_client)):
            add(
                name,
                median(pair.idea),
                _spread(pair.idea, ".1f", "%"),
                median(pair.tmux),
                _spread(pair.tmux, ".1f", "%"),
            )
        add(
            "  written to the terminal",
            median(r.drawn_kb.idea),
            f"{median(r.drawn_kb.idea):.0f} kB/s",
            median(r.drawn_kb.tmux),
            f"{median(r.drawn_kb.tmux):.0f} kB/s",
        )
        add(
            "  frames/s the nine agents drew",
            median(r.fps.idea),
            f"{median(r.fps.idea):.0f}",
            median(r.fps.tmux),
            f"{median(r.fps.tmux):.0f}",
        )
    if "memory" in r.done:
        for kind, label, target in (
            ("theme", "theme colours", TARGET_MEM_MB),
            ("random", "worst case, a random colour per word", None),
        ):
            pair = r.mem[kind]
            add(
                f"memory per cell, 10,000 lines of history ({label})" if target else f"  {label}",
                median(pair.idea),
                _spread(pair.idea, ".2f", "MB"),
                median(pair.tmux),
                _spread(pair.tmux, ".2f", "MB"),
                target,
                f"≤ {target:g} MB" if target else "",
            )
        add(
            f"  history lines held per cell ({args.mem_cells} cells filled with "
            f"{FILL_LINES:,} lines × {FILL_COLS} cols)",
            median(r.history.idea),
            f"{median(r.history.idea):,.0f}",
            median(r.history.tmux),
            f"{median(r.history.tmux):,.0f}",
        )
    return rows


# ─── main ───────────────────────────────────────────────────────────────────────────────


def _sweep(work: Path) -> None:
    """Kill any process still running with our private directory in its environment."""
    mark = str(work).encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        with contextlib.suppress(OSError):
            if mark in (entry / "environ").read_bytes():
                os.kill(int(entry.name), signal.SIGKILL)


def _on_term(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def run_test(
    test: str,
    env: dict[str, str],
    work: Path,
    binaries: tuple[str, str],
    res: Results,
    args: argparse.Namespace,
    log: Log,
) -> None:
    inputs = work / "inputs"
    if test == "memory":
        bench_memory(env, work, binaries, inputs, args.mem_cells, args.runs, res, log)
        return
    with both(env, work, test, *binaries) as (idea, tmux):
        sides: list[Side] = [idea, tmux]
        if test == "cat":
            bench_cat(sides, inputs / "log.txt", args.runs, res, log)
        elif test == "latency":
            bench_latency(sides, inputs / "log.txt", args.samples, args.runs, res, log)
        else:
            bench_cpu(sides, inputs / "agent.py", args.cpu_seconds, args.runs, res, log)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3, help="runs (rounds) per figure, ≥ 3")
    parser.add_argument("--size-mb", type=float, default=20.0, help="size of the cat'ed log")
    parser.add_argument("--samples", type=int, default=200, help="keystrokes per echo case")
    parser.add_argument("--cpu-seconds", type=float, default=10.0, help="CPU sampling time")
    parser.add_argument("--mem-cells", type=int, default=4, help="cells filled for memory")
    parser.add_argument(
        "--only", default=",".join(TESTS), help="comma-separated: " + ", ".join(TESTS)
    )
    parser.add_argument("--idea", default=default_idea(), help="the idea binary")
    parser.add_argument(
        "--emulator", default="both", choices=("both", "ghostty", "pyte", "auto"),
        help="idea's emulator backend; `both` runs everything once per backend (one table)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="only the table")
    args = parser.parse_args(argv)
    wanted = [t.strip() for t in args.only.split(",") if t.strip()]
    unknown = set(wanted) - set(TESTS)
    if unknown:
        parser.error(f"unknown tests: {', '.join(sorted(unknown))}")
    if args.runs < 1 or args.samples * 2 > len(list(echo_letters())) - 2 * args.runs:
        parser.error("--runs must be ≥ 1 and --samples at most 490")
    tmux_binary = shutil.which("tmux")
    if tmux_binary is None:
        parser.error("tmux is not installed: every figure is compared with tmux's")

    def log(text: str) -> None:
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    signal.signal(signal.SIGTERM, _on_term)
    signal.signal(signal.SIGHUP, _on_term)
    global EMULATOR
    backends = ["ghostty", "pyte"] if args.emulator == "both" else [args.emulator]
    results = {backend: Results() for backend in backends}
    failed: list[str] = []
    binaries = (args.idea, tmux_binary)
    with tempfile.TemporaryDirectory(prefix="idea-tbench-") as tmp:
        work = Path(tmp)
        try:
            env = make_environment(work)
            inputs = work / "inputs"
            inputs.mkdir()
            log_file = inputs / "log.txt"
            write_log(log_file, int(args.size_mb * 1_000_000))
            for res in results.values():
                res.cat_mb = log_file.stat().st_size / 1e6
            write_fill(inputs / "fill-theme.txt", theme=True)
            write_fill(inputs / "fill-random.txt", theme=False)
            (inputs / "agent.py").write_text(AGENT_SCRIPT)
            log(f"inputs: log {log_file.stat().st_size / 1e6:.1f} MB")
            for test in TESTS:
                if test not in wanted:
                    continue
                for backend, res in results.items():
                    EMULATOR = backend
                    started = time.perf_counter()
                    try:
                        run_test(test, env, work, binaries, res, args, log)
                    except (BenchError, subprocess.TimeoutExpired, OSError) as exc:
                        failed.append(f"{test} ({backend})")
                        print(f"{test} ({backend}): failed: {exc}", file=sys.stderr, flush=True)
                        continue
                    res.done.add(test)
                    log(f"{test} ({backend}): done in {time.perf_counter() - started:.0f} s")
        finally:
            _sweep(work)
        version = subprocess.run([args.idea, "--version"], capture_output=True, text=True)
        tmux_version = subprocess.run([tmux_binary, "-V"], capture_output=True, text=True)
        print(
            f"{' '.join(version.stdout.split())} vs {tmux_version.stdout.strip()}; client PTY "
            f"{COLS}x{ROWS}; {os.cpu_count()} CPUs; load {os.getloadavg()[0]:.2f}; "
            f"Python {sys.version.split()[0]}"
        )
        if len(results) == 1:
            print(report(next(iter(results.values())), args.runs, args))
        else:
            print(report_backends(results, args.runs, args))
        if failed:
            print(f"not measured (see the errors above): {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
