"""Helpers shared by the benchmarks that drive the real `idea` client and tmux in a PTY.

- `PtyClient`: a program on a PTY of COLS×ROWS (the client is its session leader, as in a
  terminal emulator) whose output is collected by polling (`pump`, `wait_for`, `drain`).
- `Drain`: reads a `PtyClient`'s output on a thread, continuously (a client whose output
  is not read blocks), keeps a bounded tail and can time when a byte string shows up.
- `/proc` readings (`rss_mb`, `cpu_ticks`), the benchmark environment (a private HOME,
  IDEA_HOME and a `bash --norc --noprofile` shell with a fixed PS1) and the table printer.
- The machine's own tail: `load_average`, and `calibrate` / `pure_step`, a control of the
  same median cost as a measured path (bench_knowledge.py, bench_live_state.py).

Not part of the test command; imported by the benches.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import sys
import termios
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

COLS, ROWS = 160, 48
PROMPT = "bench-ps1$ "
DEADLINE = 30.0

# CSI, OSC, charset selection and two-byte escapes: removed to find text drawn between styles.
ESCAPES = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b."
)


class BenchError(Exception):
    """The benchmark could not go on (a client that never drew, a missing program)."""


# ─── a client on a PTY ──────────────────────────────────────────────────────────────────


@dataclass
class PtyClient:
    """A program running on a PTY of COLS×ROWS whose output is collected."""

    pid: int
    fd: int
    started: float
    output: bytearray = field(default_factory=bytearray)
    closed: bool = False

    @classmethod
    def spawn(
        cls,
        argv: Sequence[str],
        env: dict[str, str],
        cwd: str,
        cols: int = COLS,
        rows: int = ROWS,
    ) -> PtyClient:
        started = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:  # the child: size the terminal before the program can ask for it
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
                os.chdir(cwd)
                os.execvpe(argv[0], list(argv), env)
            finally:
                os._exit(127)
        return cls(pid, fd, started)

    def pump(self, timeout: float) -> None:
        """Read what is there (waiting up to `timeout` for the first byte)."""
        if self.closed:
            time.sleep(timeout)
            return
        ready, _, _ = select.select([self.fd], [], [], timeout)
        while ready:
            try:
                data = os.read(self.fd, 65536)
            except OSError as exc:
                if exc.errno != errno.EIO:
                    raise
                data = b""
            if not data:
                self.closed = True
                return
            self.output += data
            ready, _, _ = select.select([self.fd], [], [], 0)

    def shows(self, marker: bytes) -> bool:
        """Whether `marker` was written, also when styles split it (escapes removed)."""
        return marker in self.output or marker in ESCAPES.sub(b"", bytes(self.output))

    def wait_for(self, *markers: bytes, deadline: float = DEADLINE) -> list[float]:
        """Seconds from spawn until each marker showed up in the output."""
        found: dict[bytes, float] = {}
        end = time.perf_counter() + deadline
        while len(found) < len(markers):
            for marker in markers:
                if marker not in found and self.shows(marker):
                    found[marker] = time.perf_counter() - self.started
            if len(found) == len(markers):
                break
            if self.closed or time.perf_counter() > end:
                missing = [m.decode() for m in markers if m not in found]
                tail = ESCAPES.sub(b"", bytes(self.output[-2000:])).decode(errors="replace")
                raise BenchError(f"{missing} never appeared; the client printed:\n{tail}")
            self.pump(0.05)
        return [found[m] for m in markers]

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def drain(self, seconds: float) -> None:
        end = time.perf_counter() + seconds
        while (left := end - time.perf_counter()) > 0:
            self.pump(min(left, 0.2))

    def finish(self, timeout: float = 10.0) -> None:
        """Wait for the program to end (after a detach), then release the PTY."""
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            pid, _status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
            self.pump(0.05)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        with contextlib.suppress(OSError):
            os.close(self.fd)


class Drain:
    """Reads a client's PTY on a thread, all the time, as a terminal emulator would.

    Keeps the last `keep` bytes (for `wait_for`) and the total count. `expect(needle)`
    arms a watch: the reader notes the moment the needle first appears in output read
    after the call (`hit()` waits for it), which is how keystroke echo latency is timed.
    """

    def __init__(self, client: PtyClient, keep: int = 1 << 20) -> None:
        self.client = client
        self.keep = keep
        self.total = 0
        self._tail = bytearray()
        self._lock = threading.Lock()
        self._needle = b""
        self._carry = b""
        self._hit_at = 0.0
        self._hit = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="drain", daemon=True)

    def __enter__(self) -> Drain:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5.0)

    @property
    def closed(self) -> bool:
        return self.client.closed

    def _run(self) -> None:
        fd = self.client.fd
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select([fd], [], [], 0.1)
            except (OSError, ValueError):
                break
            if not ready:
                continue
            try:
                data = os.read(fd, 65536)
            except OSError as exc:
                if exc.errno not in (errno.EIO, errno.EBADF):
                    raise
                data = b""
            if not data:
                self.client.closed = True
                break
            now = time.perf_counter()
            with self._lock:
                self.total += len(data)
                needle = self._needle
                if needle and not self._hit.is_set():
                    if needle in self._carry + data:
                        self._hit_at = now
                        self._hit.set()
                    else:
                        self._carry = data[-(len(needle) - 1) :] if len(needle) > 1 else b""
                self._tail += data
                if len(self._tail) > 2 * self.keep:  # trimmed now and then, not per read
                    del self._tail[: len(self._tail) - self.keep]

    def expect(self, needle: bytes) -> None:
        """Watch for `needle` in the output read from now on."""
        with self._lock:
            self._needle = needle
            self._carry = b""
            self._hit.clear()

    def hit(self, timeout: float) -> float | None:
        """perf_counter() when the needle was read, or None after `timeout` seconds."""
        if not self._hit.wait(timeout):
            with self._lock:
                self._needle = b""
            return None
        with self._lock:
            self._needle = b""
            return self._hit_at

    def tail(self) -> bytes:
        with self._lock:
            return bytes(self._tail)

    def wait_for(self, marker: bytes, deadline: float = DEADLINE) -> float:
        """Seconds until `marker` shows in the kept output (escapes removed)."""
        start = time.perf_counter()
        while True:
            text = self.tail()
            if marker in text or marker in ESCAPES.sub(b"", text):
                return time.perf_counter() - start
            if self.closed or time.perf_counter() - start > deadline:
                shown = ESCAPES.sub(b"", text[-2000:]).decode(errors="replace")
                raise BenchError(f"{marker!r} never appeared; the client printed:\n{shown}")
            time.sleep(0.05)

    def clear(self) -> None:
        with self._lock:
            self._tail.clear()


# ─── /proc readings ─────────────────────────────────────────────────────────────────────


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise BenchError(f"no VmRSS for pid {pid}")


def cpu_ticks(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)


def cpu_seconds(pid: int) -> float:
    return cpu_ticks(pid) / os.sysconf("SC_CLK_TCK")


def mcp_workers(pid: int) -> list[int]:
    """The MCP worker process(es) a daemon started (the SDK's work runs there: its CPU is
    the daemon's too). None for any other process."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    return [int(c) for c in children
            if b"adapters.mcp.worker" in Path(f"/proc/{c}/cmdline").read_bytes()]


def daemon_cpu_seconds(pid: int) -> float:
    """CPU seconds of a daemon and of its MCP worker."""
    return sum(cpu_seconds(p) for p in (pid, *mcp_workers(pid)))


# ─── environment ────────────────────────────────────────────────────────────────────────


def make_environment(work: Path) -> dict[str, str]:
    """The environment both programs run in: private HOME and IDEA_HOME, bash without rc."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("TMUX", "TMUX_PANE", "IDEA_CELL", "IDEA_SOCKET", "PROMPT_COMMAND")
    }
    home = work / "home"
    home.mkdir()
    # bash without rc files (Debian's /etc/bash.bashrc sets its own PS1), for both programs.
    shell = work / "bench-shell"
    shell.write_text(f"#!/bin/sh\nexec {shutil.which('bash') or '/bin/bash'} --norc --noprofile\n")
    shell.chmod(0o755)
    env.update(
        IDEA_HOME=str(work / "idea-home"),
        HOME=str(home),
        SHELL=str(shell),
        PS1=PROMPT,
        TERM="xterm-256color",
        LANG="C.UTF-8",
    )
    return env


def default_idea() -> str:
    beside = Path(sys.executable).parent / "idea"
    return str(beside) if beside.exists() else (shutil.which("idea") or "idea")


# ─── report ─────────────────────────────────────────────────────────────────────────────


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def ratio(mine: float, theirs: float | None) -> str:
    if theirs is None or theirs <= 0 or mine != mine:
        return "-"
    return f"{mine / theirs:.1f}×"


def verdict(value: float, target: float | None) -> str:
    if target is None or value != value:  # no target, or not measured (nan)
        return ""
    return "ok" if value <= target else "OVER"


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, a rule under the headers."""
    widths = [max(len(row[i]) for row in (*rows, headers)) for i in range(len(headers))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in (headers, *rows)
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


# ─── the machine's own tail ─────────────────────────────────────────────────────────────


def load_average() -> str:
    """The load average, for printing next to figures taken on a shared machine."""
    one, five, fifteen = os.getloadavg()
    return f"load average (1, 5, 15 min) {one:.2f} / {five:.2f} / {fifteen:.2f} on " \
           f"{os.cpu_count()} CPUs"


def pure_step(size: int) -> int:
    """Pure Python work, no thread, no I/O: its time is the interpreter's and the CPU's."""
    return sum(i * i for i in range(size))


def calibrate(target_ns: float) -> int:
    """The `pure_step` size whose median time is about `target_ns`: a control of the same
    cost as what a bench measures. What its p99 adds over its p50, timed in the same run,
    is what the scheduler (other processes on the CPUs) adds at this load."""
    size = 64
    while True:
        times = []
        for _ in range(21):
            start = time.perf_counter_ns()
            pure_step(size)
            times.append(time.perf_counter_ns() - start)
        taken = statistics.median(times)
        if taken >= target_ns or size > 1 << 22:
            return max(1, int(size * target_ns / max(taken, 1)))
        size *= 2
