"""Echo latency in an unrelated cell while delegations run (bench_delegation.py, part 3).

idea: a real `idea attach` client on a PTY of COLS×ROWS, drained all the time, `cat` in its
focused cell (the project's first cell; the agents run in the background of the same
daemon). tmux: its own server on a private `-L` socket with an attached, drained client and a
pane running `cat`. One letter at a time (a different one each time, see bench_terminal's
`echo_letters`) is written to the client's PTY and timed until its bytes come back. Idle
first (no asks), then while `callers` threads keep asking the agents; rounds alternate
between idea and tmux so the machine's noise hits both alike.

Not part of the test command; imported by bench_delegation.py.
"""

from __future__ import annotations

import json
import random
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from _harness import PROMPT, BenchError, Drain, PtyClient, cpu_seconds, format_table, mcp_workers
from bench_terminal import ECHO_TIMEOUT, Tmux, echo_letters

ROUNDS = 4
TARGET_IDLE_P50 = 2.0
TARGET_BUSY_P99 = 10.0


class Caller(Protocol):
    def stop(self) -> int: ...


@dataclass
class Typist:
    """A drained client whose focused cell runs `cat`."""

    name: str
    client: PtyClient
    drain: Drain
    server_pid: int
    letters: Iterator[str] = field(default_factory=echo_letters)

    def sample(self, count: int, rng: random.Random) -> tuple[list[float], int]:
        got: list[float] = []
        missed = 0
        for _ in range(count):
            data = next(self.letters).encode()
            self.drain.expect(data)
            start = time.perf_counter()
            self.client.write(data)
            seen = self.drain.hit(ECHO_TIMEOUT)
            if seen is None:
                missed += 1
                if missed == 5 and not got:
                    raise BenchError(f"{self.name}: the typed letters never came back")
            else:
                got.append((seen - start) * 1000)
            time.sleep(rng.uniform(0.02, 0.1))
        return got, missed

    def close(self) -> None:
        self.drain.stop()
        self.client.finish(timeout=5.0)


def _idea_typist(env: dict[str, str], idea: str, project: Path) -> Typist:
    def run(*args: str) -> str:
        done = subprocess.run([idea, *args], env=env, cwd=project, capture_output=True,
                              text=True, timeout=60, check=False)
        if done.returncode != 0:
            raise BenchError(f"idea {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    client = PtyClient.spawn([idea, "attach"], env, str(project))
    drain = Drain(client).__enter__()
    drain.wait_for(project.name.encode())
    cell = str(json.loads(run("list-cells", "--json"))[0]["id"])
    run("capture", "-t", cell, "--wait", re.escape(PROMPT.strip()), "--timeout", "30")
    run("send-keys", "-t", cell, "cat", "Enter")
    run("select", "-t", cell)
    run("capture", "-t", cell, "--wait", r"\$ cat *$", "--timeout", "30")
    pid = int((Path(env["IDEA_HOME"]) / "run" / "daemon.pid").read_text().strip())
    return Typist("idea", client, drain, pid)


def _tmux_typist(env: dict[str, str], work: Path, binary: str) -> tuple[Tmux, Typist]:
    tmux = Tmux(env, work / "tmux", binary)
    tmux.start()
    (pane,) = tmux.cells()
    tmux.send(pane, "cat", "Enter")
    tmux.wait_screen(pane, r"\$ cat *$")
    assert tmux.client is not None and tmux.drain is not None
    return tmux, Typist("tmux", tmux.client, tmux.drain, tmux.server_pid())


@dataclass
class EchoResults:
    samples: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    missed: dict[tuple[str, str], int] = field(default_factory=dict)
    cpu: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    """(CPU seconds, elapsed seconds) of the server and its client while sampling, summed."""
    asks_per_second: float = 0.0
    callers: int = 0

    def _cpu(self, key: tuple[str, str]) -> str:
        used, elapsed = self.cpu.get(key, [0.0, 0.0])
        return f"{100 * used / elapsed:.0f} % of a core" if elapsed else "-"

    def print(self) -> None:
        def pct(values: list[float], q: float) -> str:
            if not values:
                return "-"
            ordered = sorted(values)
            return f"{ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]:.1f}"

        rows = []
        for case, label in (("idle", "no asks"), ("busy", f"{self.callers} callers asking")):
            for name in ("idea", "tmux"):
                got = self.samples.get((name, case), [])
                rows.append([
                    f"{name}, {label}", str(len(got)),
                    f"{statistics.median(got):.1f}" if got else "-", pct(got, 0.99),
                    f"{max(got):.1f}" if got else "-",
                    str(self.missed.get((name, case), 0)),
                    self._cpu((name, case)),
                ])
        print(f"echo latency in an unrelated cell (ms; {self.asks_per_second:.0f} asks/s "
              f"answered during the busy rounds; targets: idle p50 ≤ {TARGET_IDLE_P50:g}, "
              f"busy p99 ≤ {TARGET_BUSY_P99:g}):")
        print(format_table(["", "n", "p50", "p99", "max", "missed", "server+client CPU"], rows))


def echo_under_load(
    env: dict[str, str],
    work: Path,
    idea: str,
    tmux_binary: str,
    project: Path,
    samples: int,
    make_caller: Callable[[int], Any],
    callers: int,
) -> EchoResults:
    results = EchoResults(callers=callers)
    rng = random.Random(11)
    typists: list[Typist] = [_idea_typist(env, idea, project)]
    tmux: Tmux | None = None
    if tmux_binary:
        tmux, typist = _tmux_typist(env, work, tmux_binary)
        typists.append(typist)
    per_round = max(1, -(-samples // ROUNDS))
    asked = 0
    busy_seconds = 0.0
    try:
        for case in ("idle", "busy"):
            running: list[Caller] = []
            started = time.perf_counter()
            print(f"echo: {case} rounds", file=sys.stderr, flush=True)
            if case == "busy":
                running = [make_caller(n) for n in range(callers)]
                time.sleep(1.0)  # the asks under way
            for round_ in range(ROUNDS):
                order = typists if round_ % 2 == 0 else list(reversed(typists))
                for typist in order:
                    # idea's server is the daemon and its MCP worker.
                    pids = (typist.server_pid, typist.client.pid,
                            *mcp_workers(typist.server_pid))
                    before = sum(cpu_seconds(pid) for pid in pids)
                    begun = time.perf_counter()
                    got, missed = typist.sample(per_round, rng)
                    used = sum(cpu_seconds(pid) for pid in pids) - before
                    key = (typist.name, case)
                    results.samples.setdefault(key, []).extend(got)
                    results.missed[key] = results.missed.get(key, 0) + missed
                    spent = results.cpu.setdefault(key, [0.0, 0.0])
                    spent[0] += used
                    spent[1] += time.perf_counter() - begun
            if running:
                busy_seconds = time.perf_counter() - started
                asked = sum(caller.stop() for caller in running)
    finally:
        for typist in typists:
            if typist.name == "idea":
                typist.close()
        if tmux is not None:
            tmux.stop()
    results.asks_per_second = asked / busy_seconds if busy_seconds else 0.0
    return results
