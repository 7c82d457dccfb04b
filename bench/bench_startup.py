"""Startup, memory and idle cost of idea, side by side with tmux (issue 2's budgets).

Run: `.venv/bin/python bench/bench_startup.py [--runs 7] [--idle 10] [--no-tmux] [--attach-only]`
(`--attach-only`: only the attach figure, for quick comparisons while working on it).
Not part of the test command: it takes about a minute and its figures depend on the machine.

What is measured, for idea and for tmux 3.x alike, with the client driven in a real PTY of
160×48 (opened here, the client is its session leader, as in a terminal emulator):

- first frame, cold: from spawning `idea attach` with no daemon running (`idea kill-server
  -f` before each run) until the project's name, shown in the tab bar, has been written to
  the PTY. For tmux: `tmux new-session -s bench` with no server, until the status line shows
  `[bench]`. A second column says when the shell prompt in the cell became visible too.
- first frame, attach: the same with the daemon (tmux server) already running, idle, with
  no client attached (`tmux attach -t bench`).
- RSS with 8 idle shells: VmRSS from /proc of the daemon (tmux server) and of the attached
  client, after `idea grid 2x4` (tmux: 7 × `split-window` and `select-layout tiled`) and once
  all eight prompts show.
- idle CPU: utime+stime of daemon and client (tmux server and client) over `--idle`
  seconds with those eight shells idle, as a percentage of one core. The client's output is
  drained meanwhile, as a terminal would.

Medians of `--runs` runs; min and max are printed beside them. Everything runs in a
temporary IDEA_HOME and HOME (so no ~/.bashrc changes the prompt) with `bash` and a fixed PS1;
tmux runs on its own socket with `-f /dev/null`. Compare ratios, not absolutes: these
machines are noisy.
"""

from __future__ import annotations

import abc
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from _harness import (
    COLS,
    DEADLINE,
    PROMPT,
    ROWS,
    BenchError,
    PtyClient,
    cpu_seconds,
    cpu_ticks,
    format_table,
    rss_mb,
)
from _harness import default_idea as _default_idea
from _harness import make_environment as _environment
from _harness import median as _median
from _harness import ratio as _ratio
from _harness import verdict as _verdict

PROJECT = "benchproj"
TMUX_SESSION = "bench"
PREFIX_DETACH = b"\x02d"  # ctrl+b d: the default prefix of idea and tmux, then detach

TARGET_COLD = 1.0
TARGET_ATTACH = 0.2  # issue 7: median of 7, process start in a PTY to the first painted cell
TARGET_CPU = 1.0
TARGET_RSS_MB = 80.0


def idle_cpu_percent(pids: Sequence[int], client: PtyClient, seconds: float) -> float:
    """CPU used by `pids` together over `seconds`, as % of one core."""
    before = sum(cpu_ticks(pid) for pid in pids)
    start = time.perf_counter()
    client.drain(seconds)
    elapsed = time.perf_counter() - start
    used = sum(cpu_ticks(pid) for pid in pids) - before
    return 100.0 * used / os.sysconf("SC_CLK_TCK") / elapsed


# ─── the two programs ───────────────────────────────────────────────────────────────────


@dataclass
class Figures:
    cold: list[float] = field(default_factory=list)
    cold_prompt: list[float] = field(default_factory=list)
    attach: list[float] = field(default_factory=list)
    attach_prompt: list[float] = field(default_factory=list)
    attach_cpu: list[float] = field(default_factory=list)
    """CPU seconds the client had used when its first frame showed (less sensitive than the
    wall clock to a loaded machine)."""
    server_rss: float = 0.0
    client_rss: float = 0.0
    idle_cpu: float = 0.0


class Subject(abc.ABC):
    """One of the programs compared: how to start, attach, fill and find its server."""

    name = ""
    title_marker = b""

    def __init__(self, work: Path, env: dict[str, str], project: Path) -> None:
        self.work = work
        self.env = env
        self.project = project

    def prepare(self) -> None:  # noqa: B027 - optional hook, nothing to do by default
        """Set up before the first run (idea: create the project)."""

    @abc.abstractmethod
    def stop_server(self) -> None:
        """End the daemon (server) and everything in it; no error if none runs."""

    @abc.abstractmethod
    def cold_client(self) -> PtyClient:
        """Stop the server, then start a client that starts it."""

    @abc.abstractmethod
    def attach_client(self) -> PtyClient:
        """Start a client attaching to the running server."""

    @abc.abstractmethod
    def make_eight(self) -> None:
        """Turn the shown page into eight cells, and wait for their prompts."""

    @abc.abstractmethod
    def server_pid(self) -> int:
        """The daemon's (server's) process id."""


def compile_sources() -> None:
    """Byte-compile idea's packages, as installing a wheel does: a checkout run with
    PYTHONDONTWRITEBYTECODE=1 would otherwise compile every module at every start, which is
    not what a user's idea does."""
    root = Path(__file__).resolve().parent.parent
    packages = [str(root / name) for name in ("core", "adapters", "idea_daemon", "idea_tui")]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], check=True,
                   stdout=subprocess.DEVNULL)


class Idea(Subject):
    name = "idea"
    title_marker = PROJECT.encode()

    def __init__(self, work: Path, env: dict[str, str], project: Path, binary: str) -> None:
        super().__init__(work, env, project)
        self.binary = binary

    def run(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            [self.binary, *args],
            env=self.env,
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if check and done.returncode != 0:
            raise BenchError(f"idea {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def stop_server(self) -> None:
        self.run("kill-server", "-f", check=False)

    def prepare(self) -> None:
        self.stop_server()
        compile_sources()
        self.run("new", str(self.project))
        # The first-run wizard is not what these figures are about (a user answers it
        # once): "no AI profiles", as its Skip records.
        data = Path(self.env["IDEA_HOME"]) / "data"
        data.mkdir(parents=True, exist_ok=True)
        (data / "profiles.json").write_text("[]\n")

    def cold_client(self) -> PtyClient:
        self.stop_server()
        return PtyClient.spawn([self.binary, "attach"], self.env, str(self.project))

    def attach_client(self) -> PtyClient:
        self.run("ls")  # starts nothing: fails if no daemon runs
        return PtyClient.spawn([self.binary, "attach"], self.env, str(self.project))

    def make_eight(self) -> None:
        self.run("grid", "2x4")
        cells = json.loads(self.run("list-cells", "--json"))
        if len(cells) != 8:
            raise BenchError(f"expected 8 cells after `idea grid 2x4`, found {len(cells)}")
        for index in range(8):
            self.run("capture", "-t", str(index), "--wait", re.escape(PROMPT.strip()))

    def server_pid(self) -> int:
        pid_file = Path(self.env["IDEA_HOME"]) / "run" / "daemon.pid"
        return int(pid_file.read_text().strip())


class Tmux(Subject):
    name = "tmux"
    title_marker = f"[{TMUX_SESSION}]".encode()

    def __init__(self, work: Path, env: dict[str, str], project: Path, binary: str) -> None:
        super().__init__(work, env, project)
        self.base = [binary, "-u", "-L", f"idea-bench-{os.getpid()}", "-f", os.devnull]

    def run(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(
            [*self.base, *args],
            env=self.env,
            cwd=self.project,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if check and done.returncode != 0:
            raise BenchError(f"tmux {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def stop_server(self) -> None:
        self.run("kill-server", check=False)
        time.sleep(0.1)  # the server removes its socket on the way out

    def cold_client(self) -> PtyClient:
        self.stop_server()
        return PtyClient.spawn(
            [*self.base, "new-session", "-s", TMUX_SESSION, "-c", str(self.project)],
            self.env,
            str(self.project),
        )

    def attach_client(self) -> PtyClient:
        self.run("has-session", "-t", TMUX_SESSION)
        return PtyClient.spawn(
            [*self.base, "attach", "-t", TMUX_SESSION], self.env, str(self.project)
        )

    def make_eight(self) -> None:
        for _ in range(7):
            self.run("split-window", "-t", TMUX_SESSION, "-c", str(self.project))
            self.run("select-layout", "-t", TMUX_SESSION, "tiled")
        panes = self.run("list-panes", "-t", TMUX_SESSION, "-F", "#{pane_id}").split()
        if len(panes) != 8:
            raise BenchError(f"expected 8 tmux panes, found {len(panes)}")
        end = time.perf_counter() + DEADLINE
        for pane in panes:
            while PROMPT.strip() not in self.run("capture-pane", "-p", "-t", pane):
                if time.perf_counter() > end:
                    raise BenchError(f"no prompt in tmux pane {pane}")
                time.sleep(0.05)

    def server_pid(self) -> int:
        return int(self.run("display-message", "-p", "-t", TMUX_SESSION, "#{pid}").strip())


def measure(subject: Subject, runs: int, idle: float, log: Callable[[str], None],
            attach_only: bool = False) -> Figures:
    figures = Figures()
    prompt = PROMPT.strip().encode()
    subject.prepare()
    if attach_only:
        # A server for the attach runs to find (the cold runs start it otherwise).
        client = subject.cold_client()
        client.wait_for(subject.title_marker, prompt)
        client.drain(0.3)
        client.write(PREFIX_DETACH)
        client.finish()
    for i in range(0 if attach_only else runs):
        client = subject.cold_client()
        first, shown = client.wait_for(subject.title_marker, prompt)
        figures.cold.append(first)
        figures.cold_prompt.append(shown)
        client.drain(0.3)
        client.write(PREFIX_DETACH)
        client.finish()
        log(f"{subject.name} cold run {i + 1}: frame {first:.3f} s, prompt {shown:.3f} s")
    for i in range(runs):
        client = subject.attach_client()
        first, shown = client.wait_for(subject.title_marker, prompt)
        figures.attach_cpu.append(cpu_seconds(client.pid))
        figures.attach.append(first)
        figures.attach_prompt.append(shown)
        client.drain(0.3)
        client.write(PREFIX_DETACH)
        client.finish()
        log(f"{subject.name} attach run {i + 1}: frame {first:.3f} s, prompt {shown:.3f} s")
    if attach_only:
        subject.stop_server()
        return figures
    client = subject.attach_client()
    try:
        client.wait_for(subject.title_marker, prompt)
        subject.make_eight()
        client.drain(1.5)  # let the last frames and title polls settle
        server = subject.server_pid()
        figures.server_rss = rss_mb(server)
        figures.client_rss = rss_mb(client.pid)
        figures.idle_cpu = idle_cpu_percent([server, client.pid], client, idle)
        log(
            f"{subject.name}: RSS server {figures.server_rss:.1f} MB, client "
            f"{figures.client_rss:.1f} MB, idle CPU {figures.idle_cpu:.2f} %"
        )
    finally:
        client.write(PREFIX_DETACH)
        client.finish()
        subject.stop_server()
    return figures


# ─── report ─────────────────────────────────────────────────────────────────────────────


def _seconds(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{_median(values):.3f} s ({min(values):.3f}–{max(values):.3f})"


def report(idea: Figures, tmux: Figures | None, runs: int, idle: float,
           attach_only: bool = False) -> str:
    rows: list[tuple[str, str, str, str, str, str]] = []

    def add(
        label: str,
        mine: float,
        mine_text: str,
        theirs: float | None,
        theirs_text: str,
        target: float | None,
        target_text: str,
    ) -> None:
        rows.append(
            (
                label,
                mine_text,
                theirs_text if tmux else "-",
                _ratio(mine, theirs),
                target_text,
                _verdict(mine, target),
            )
        )

    t = tmux
    add(
        f"first frame, cold daemon (median of {runs})",
        _median(idea.cold),
        _seconds(idea.cold),
        _median(t.cold) if t else None,
        _seconds(t.cold) if t else "-",
        TARGET_COLD,
        f"≤ {TARGET_COLD} s",
    )
    add(
        "  prompt in the cell, cold",
        _median(idea.cold_prompt),
        _seconds(idea.cold_prompt),
        _median(t.cold_prompt) if t else None,
        _seconds(t.cold_prompt) if t else "-",
        None,
        "",
    )
    add(
        f"first frame, attach to running (median of {runs})",
        _median(idea.attach),
        _seconds(idea.attach),
        _median(t.attach) if t else None,
        _seconds(t.attach) if t else "-",
        TARGET_ATTACH,
        f"≤ {TARGET_ATTACH} s",
    )
    add(
        "  client CPU until that frame",
        _median(idea.attach_cpu),
        _seconds(idea.attach_cpu),
        _median(t.attach_cpu) if t else None,
        _seconds(t.attach_cpu) if t else "-",
        None,
        "",
    )
    add(
        "  prompt in the cell, attach",
        _median(idea.attach_prompt),
        _seconds(idea.attach_prompt),
        _median(t.attach_prompt) if t else None,
        _seconds(t.attach_prompt) if t else "-",
        None,
        "",
    )
    add(
        "daemon (tmux server) RSS, 8 idle shells",
        idea.server_rss,
        f"{idea.server_rss:.1f} MB",
        t.server_rss if t else None,
        f"{t.server_rss:.1f} MB" if t else "-",
        TARGET_RSS_MB,
        f"≤ {TARGET_RSS_MB:g} MB",
    )
    add(
        "client RSS, 8 idle shells",
        idea.client_rss,
        f"{idea.client_rss:.1f} MB",
        t.client_rss if t else None,
        f"{t.client_rss:.1f} MB" if t else "-",
        None,
        "",
    )
    add(
        f"idle CPU daemon+client, {idle:g} s, 8 shells",
        idea.idle_cpu,
        f"{idea.idle_cpu:.2f} % core",
        t.idle_cpu if t else None,
        f"{t.idle_cpu:.2f} % core" if t else "-",
        TARGET_CPU,
        f"≤ {TARGET_CPU:g} %",
    )

    if attach_only:  # the other figures were not measured
        rows = [row for row in rows if "attach" in row[0] or "that frame" in row[0]]
    headers = ("figure", "idea", "tmux", "idea/tmux", "target", "")
    return format_table(headers, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7, help="runs per startup figure")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds of idle measured")
    parser.add_argument("--idea", default=_default_idea(), help="the idea binary")
    parser.add_argument("--no-tmux", action="store_true", help="measure idea only")
    parser.add_argument("-q", "--quiet", action="store_true", help="only the table")
    parser.add_argument("--attach-only", action="store_true",
                        help="only the first frame when attaching to a running daemon")
    args = parser.parse_args(argv)

    def log(text: str) -> None:
        if not args.quiet:
            print(text, file=sys.stderr, flush=True)

    tmux_binary = None if args.no_tmux else shutil.which("tmux")
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="idea-bench-") as tmp:
        work = Path(tmp)
        env = _environment(work)
        project = work / PROJECT
        project.mkdir()
        idea = Idea(work, env, project, args.idea)
        try:
            idea_figures = measure(idea, args.runs, args.idle, log, args.attach_only)
        finally:
            idea.stop_server()
        tmux_figures = None
        if tmux_binary is not None:
            tmux = Tmux(work, env, project, tmux_binary)
            try:
                tmux_figures = measure(tmux, args.runs, args.idle, log, args.attach_only)
            finally:
                tmux.stop_server()
        version = subprocess.run([args.idea, "--version"], capture_output=True, text=True)
        tmux_version = (
            subprocess.run([tmux_binary, "-V"], capture_output=True, text=True).stdout.strip()
            if tmux_binary
            else "not measured"
        )
        print(
            f"{version.stdout.strip()} vs {tmux_version}; PTY {COLS}x{ROWS}; "
            f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}; "
            f"load average {load_before:.2f} at the start, {os.getloadavg()[0]:.2f} at the end"
        )
        print(report(idea_figures, tmux_figures, args.runs, args.idle, args.attach_only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
