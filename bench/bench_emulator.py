"""Emulator throughput: raw pyte vs idea's two backends (pyte, ghostty) vs tmux 3.3, at 120×40.

Run: `.venv/bin/python bench/bench_emulator.py [--size-mb 4] [--runs 3] [--no-tmux]`.

Four synthetic streams are generated deterministically (seeded): plain log lines,
SGR-heavy log lines, full-screen cursor-addressed repaints, and agent-style output (a TUI
repainting a boxed region with colours, box drawing and emoji inside synchronized-output
frames while log lines scroll above it). Each is fed in 16 KiB chunks, the way the daemon
reads a PTY, and idea's backends are driven as the daemon drives them: after every read its
replies and dirty rows are taken, and the dirty rows are rendered once per frame interval of
a focused cell (`FRAME_INTERVAL`, 12 ms) — a faster emulator then renders fewer frames per
megabyte, as it does in the daemon. `--render-every-kib N` renders every N KiB instead (the
figures earlier sessions printed used 64).
tmux is timed from `cat FILE` in a detached 120×40 pane until a marker printed after the file
shows in `capture-pane`. Figures are medians of `--runs` runs; compare ratios, not absolutes:
these machines are noisy. The scrollback figure is tracemalloc's count for 10,000 lines of
120-column SGR-rich text held in history (pyte), and the process's resident-memory growth
for the same (ghostty keeps its pages in native memory tracemalloc does not see).
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pyte

from adapters.emulator import PyteEmulator
from adapters.emulator.ghostty_lib import available
from core.terminal import TerminalEmulator
from idea_daemon.frames import FRAME_INTERVAL

Factory = Callable[..., TerminalEmulator]


def _backends() -> dict[str, Factory]:
    backends: dict[str, Factory] = {"pyte": PyteEmulator}
    if available() is None:
        from adapters.emulator.ghostty import GhosttyEmulator

        backends["ghostty"] = GhosttyEmulator
    return backends

COLS, ROWS = 120, 40
CHUNK = 16 * 1024
RENDER_EVERY: int | None = None
"""Bytes between two renders, or None for the daemon's frame interval (`--render-every-kib`)."""
WORDS = [
    "request",
    "worker",
    "cache",
    "miss",
    "hit",
    "build",
    "compile",
    "test",
    "passed",
    "failed",
    "retry",
    "upstream",
    "latency",
    "queue",
    "commit",
    "branch",
    "merge",
    "rebase",
    "token",
    "parse",
    "render",
    "layout",
    "agent",
    "tool",
    "call",
    "result",
    "stream",
    "socket",
    "daemon",
    "client",
    "frame",
    "buffer",
    "scroll",
    "cursor",
]


def _sgr(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.5:
        return f"\x1b[{rng.choice((1, 2, 3, 4))};{rng.randint(31, 37)}m"
    if pick < 0.85:
        return f"\x1b[38;5;{rng.randint(16, 231)}m"
    return f"\x1b[38;2;{rng.randint(0, 255)};{rng.randint(0, 255)};{rng.randint(0, 255)}m"


def plain_stream(size: int, seed: int = 1) -> bytes:
    """Log lines of 40–130 characters, CRLF as a PTY delivers them."""
    rng = random.Random(seed)
    out: list[str] = []
    total = 0
    n = 0
    while total < size:
        n += 1
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 16)))
        line = f"2025-06-{n % 28 + 1:02d} 12:{n % 60:02d}:{n % 59:02d}.{n % 1000:03d} INFO {words}"
        line = line[: rng.randint(40, 130)] + "\r\n"
        out.append(line)
        total += len(line)
    return "".join(out).encode()


def sgr_stream(size: int, seed: int = 2) -> bytes:
    """Coloured log lines: every word or field carries its own SGR, as compilers and
    `ls --color` produce."""
    rng = random.Random(seed)
    out: list[str] = []
    total = 0
    while total < size:
        parts = [f"\x1b[2m12:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}\x1b[0m "]
        parts.append(
            rng.choice(
                ("\x1b[1;32mINFO\x1b[0m ", "\x1b[1;33mWARN\x1b[0m ", "\x1b[1;31mERROR\x1b[0m ")
            )
        )
        for _ in range(rng.randint(3, 9)):
            parts.append(f"{_sgr(rng)}{rng.choice(WORDS)}\x1b[0m={rng.randint(0, 9999)} ")
        line = "".join(parts) + "\r\n"
        out.append(line)
        total += len(line)
    return "".join(out).encode()


def redraw_stream(size: int, seed: int = 3) -> bytes:
    """Full-screen repaints (htop-like): every row cursor-addressed, several colour spans."""
    rng = random.Random(seed)
    out: list[str] = []
    total = 0
    while total < size:
        frame = ["\x1b[H"]
        for row in range(1, ROWS + 1):
            frame.append(f"\x1b[{row};1H")
            used = 0
            while used < COLS - 20:
                text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
                text = text[: COLS - used]
                frame.append(f"{_sgr(rng)}\x1b[48;5;{rng.randint(232, 255)}m{text}\x1b[0m ")
                used += len(text) + 1
            frame.append("\x1b[K")
        chunk = "".join(frame)
        out.append(chunk)
        total += len(chunk)
    return "".join(out).encode()


def agent_stream(size: int, seed: int = 4) -> bytes:
    """An agent CLI: log lines scroll above a boxed, coloured status region (rows 28–40)
    repainted about ten times a second inside mode-2026 frames, with emoji and spinners."""
    rng = random.Random(seed)
    spinner = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
    out: list[str] = ["\x1b[1;27r"]
    total = 0
    tick = 0
    while total < size:
        tick += 1
        parts: list[str] = ["\x1b[27;1H"]
        for _ in range(rng.randint(0, 3)):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12)))
            parts.append(f"\r\n\x1b[38;5;{rng.randint(16, 231)}m⏺\x1b[0m {words}")
        parts.append("\x1b[?2026h\x1b[28;1H")
        parts.append("\x1b[38;5;244m╭" + "─" * (COLS - 2) + "╮\x1b[0m")
        for row in range(29, 40):
            body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 10)))
            icon = rng.choice(("🤖", "✓", "✗", "⚡", " "))
            line = f"{icon} \x1b[1m{body}\x1b[22m"
            parts.append(
                f"\x1b[{row};1H\x1b[38;5;244m│\x1b[0m {line}\x1b[K\x1b[{row};{COLS}H"
                "\x1b[38;5;244m│\x1b[0m"
            )
        parts.append(f"\x1b[40;1H\x1b[38;5;244m╰{'─' * (COLS - 2)}╯\x1b[0m")
        parts.append(f"\x1b[39;3H\x1b[38;2;215;119;87m{spinner[tick % 10]} Thinking…\x1b[0m")
        parts.append("\x1b[?2026l")
        chunk = "".join(parts)
        out.append(chunk)
        total += len(chunk.encode())
    return "".join(out).encode()


STREAMS: dict[str, Callable[[int], bytes]] = {
    "plain": plain_stream,
    "sgr-heavy": sgr_stream,
    "full-redraw": redraw_stream,
    "agent": agent_stream,
}


def _timed(run: Callable[[], None]) -> float:
    gc.collect()
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def time_pyte(data: bytes) -> float:
    def run() -> None:
        screen = pyte.Screen(COLS, ROWS)
        stream = pyte.ByteStream(screen)
        for offset in range(0, len(data), CHUNK):
            stream.feed(data[offset : offset + CHUNK])

    return _timed(run)


def time_idea(data: bytes, factory: Factory = PyteEmulator) -> float:
    def by_bytes(every: int) -> None:
        emulator = factory(COLS, ROWS)
        since_render = 0
        for offset in range(0, len(data), CHUNK):
            emulator.feed(data[offset : offset + CHUNK])
            emulator.take_replies()
            since_render += CHUNK
            if since_render >= every:
                since_render = 0
                for y in emulator.take_dirty():
                    emulator.render_row(y)
        for y in emulator.take_dirty():
            emulator.render_row(y)

    def as_the_daemon() -> None:
        emulator = factory(COLS, ROWS)
        clock = time.perf_counter
        rendered = clock()
        dirty: set[int] = set()
        for offset in range(0, len(data), CHUNK):
            emulator.feed(data[offset : offset + CHUNK])
            emulator.take_replies()
            dirty |= emulator.take_dirty()
            if clock() - rendered >= FRAME_INTERVAL:
                for y in dirty:
                    emulator.render_row(y)
                dirty.clear()
                rendered = clock()
        for y in dirty | emulator.take_dirty():
            emulator.render_row(y)

    every = RENDER_EVERY
    return _timed(as_the_daemon if every is None else lambda: by_bytes(every))


def time_tmux(data: bytes, workdir: Path) -> float:
    """Seconds for tmux to consume `data` (`cat` in a pane, poll until the end marker shows)."""
    marker = f"END-{uuid.uuid4().hex[:16]}"
    path = workdir / "stream.bin"
    path.write_bytes(data + b"\x1b[0m\x1b[r\x1b[?1049l\r\n" + marker.encode() + b"\r\n")
    socket = f"bench-{uuid.uuid4().hex[:10]}"
    base = ["tmux", "-u", "-L", socket, "-f", "/dev/null"]
    env = {**os.environ, "LANG": "C.UTF-8"}
    subprocess.run(
        [
            *base,
            "new-session",
            "-d",
            "-x",
            str(COLS),
            "-y",
            str(ROWS),
            "-s",
            "bench",
            "exec sleep 100000",
        ],
        check=True,
        env=env,
    )
    try:
        subprocess.run([*base, "set", "-g", "status", "off"], check=True, env=env)
        start = time.perf_counter()
        subprocess.run(
            [
                *base,
                "respawn-pane",
                "-k",
                "-t",
                "bench",
                f"stty raw -echo; cat {path}; exec sleep 100000",
            ],
            check=True,
            env=env,
        )
        while True:
            shown = subprocess.run(
                [*base, "capture-pane", "-p", "-t", "bench"],
                capture_output=True,
                text=True,
                env=env,
            ).stdout
            if marker in shown:
                return time.perf_counter() - start
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True)
        # tmux leaves the socket file behind after kill-server.
        tmpdir = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        (tmpdir / socket).unlink(missing_ok=True)


def _theme_sgr(rng: random.Random) -> str:
    """A colour from a fixed theme (as editors, `bat`, `delta`, agents print): 16 ANSI colours,
    40 palette colours, 12 truecolor colours, with or without an attribute."""
    theme = [f"3{n}" for n in range(8)] + [f"9{n}" for n in range(8)]
    theme += [f"38;5;{16 + 5 * n}" for n in range(40)]
    theme += [f"38;2;{40 + 17 * n};{200 - 13 * n};{90 + 11 * n}" for n in range(12)]
    attr = rng.choice(("", "1;", "2;", "3;", "4;"))
    return f"\x1b[{attr}{rng.choice(theme)}m"


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def scrollback_bytes(lines: int = 10_000, theme: bool = True,
                     factory: Factory = PyteEmulator) -> tuple[int, int]:
    """The memory an emulator uses for `lines` SGR-rich 120-column lines of history, and
    how many it holds: tracemalloc's count for pyte, the RSS growth for a native backend.
    Ghostty bounds its history by bytes (from the lines asked for, in whole pages), so it
    may hold a little fewer lines than asked: the figure says how many.

    `theme=False` gives each word a random colour (15 % of them random truecolor): the worst
    case, where the table of distinct styles rather than the lines dominates.
    """
    rng = random.Random(5)
    rows: list[str] = []
    for _ in range(lines + ROWS):
        parts: list[str] = []
        used = 0
        while used < COLS - 12:
            word = rng.choice(WORDS)[: COLS - used - 1]
            parts.append(f"{_theme_sgr(rng) if theme else _sgr(rng)}{word}\x1b[0m ")
            used += len(word) + 1
        rows.append("".join(parts) + " " * (COLS - used))
    data = "\r\n".join(rows).encode()
    gc.collect()
    if factory is not PyteEmulator:
        before = _rss()
        emulator = factory(COLS, ROWS, scrollback_lines=lines)
        emulator.feed(data)
        used = _rss() - before
        return used, emulator.history_size()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    emulator = factory(COLS, ROWS, scrollback_lines=lines)
    emulator.feed(data)
    gc.collect()
    used_bytes = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return used_bytes, emulator.history_size()


def resize_milliseconds(theme: bool, factory: Factory = PyteEmulator) -> float:
    """Median time of a width change (as one step of a border drag) of a cell holding
    10,000 lines of scrollback, every line longer than the new width (all re-wrapped)."""
    rng = random.Random(6)
    rows: list[str] = []
    for number in range(10_000 + ROWS):
        words = " ".join(rng.choice(WORDS) for _ in range(20))[:150]
        rows.append(f"{_theme_sgr(rng)}{number:05d}\x1b[0m {words}" if theme else
                    f"{number:05d} {words}")
    emulator = factory(COLS, ROWS, scrollback_lines=10_000)
    emulator.feed("\r\n".join(rows).encode())
    times: list[float] = []
    for width in (119, 80, 121, 60, 118, 100, 120):
        start = time.perf_counter()
        emulator.resize(width, ROWS)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=4.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-tmux", action="store_true")
    parser.add_argument("--only", choices=sorted(STREAMS))
    parser.add_argument("--render-every-kib", type=int, default=0,
                        help="render every N KiB instead of once per frame interval")
    args = parser.parse_args()
    global RENDER_EVERY
    RENDER_EVERY = args.render_every_kib * 1024 or None
    size = int(args.size_mb * 1024 * 1024)
    use_tmux = not args.no_tmux and shutil.which("tmux") is not None
    backends = _backends()
    print(f"{COLS}x{ROWS}, {args.size_mb:g} MB per stream, median of {args.runs} runs, MB/s")
    print("raw pyte = pyte.Screen alone; the other columns are idea's backends behind the port, "
          + ("rendered once per frame interval (12 ms) as the daemon does" if RENDER_EVERY is None
             else f"rendered every {RENDER_EVERY // 1024} KiB"))
    heads = "".join(f"{name:>9}" for name in backends)
    ratios = "".join(f"{name + '/tmux':>14}" for name in backends)
    print(f"{'stream':<12} {'raw pyte':>9}{heads} {'tmux':>8}{ratios}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in STREAMS.items():
            if args.only and name != args.only:
                continue
            data = make(size)
            megabytes = len(data) / 1e6
            pyte_rate = megabytes / statistics.median(time_pyte(data) for _ in range(args.runs))
            rates = [megabytes / statistics.median(time_idea(data, factory)
                                                   for _ in range(args.runs))
                     for factory in backends.values()]
            tmux_rate = (
                megabytes / statistics.median(time_tmux(data, Path(tmp)) for _ in range(args.runs))
                if use_tmux
                else float("nan")
            )
            cells = "".join(f"{rate:9.2f}" for rate in rates)
            ratio_cells = "".join(f"{rate / tmux_rate:14.2f}" for rate in rates)
            print(f"{name:<12} {pyte_rate:9.2f}{cells} {tmux_rate:8.2f}{ratio_cells}")
    for backend, factory in backends.items():
        themed, held = scrollback_bytes(factory=factory)
        random_colours, held_random = scrollback_bytes(theme=False, factory=factory)
        print(
            f"{backend}: scrollback, 10,000 lines of 120-col SGR-rich text: "
            f"{themed / 1e6:.2f} MB with theme colours ({held:,} lines held), "
            f"{random_colours / 1e6:.2f} MB with a random colour per word ({held_random:,} "
            "held) (target <= 4 MB)"
        )
        print(
            f"{backend}: width change re-wrapping 10,000 lines of scrollback: "
            f"{resize_milliseconds(False, factory):.1f} ms plain, "
            f"{resize_milliseconds(True, factory):.1f} ms coloured (median of 7 widths)"
        )


if __name__ == "__main__":
    main()
