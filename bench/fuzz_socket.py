"""The long fuzz run of the daemon's socket (issue 7): `--frames` malformed frames (random
bytes, length prefixes cut short, huge lengths, msgpack of the wrong shape, wrong Hellos,
messages before the Hello, bad messages after a good one) from `--connections` connections
at a time, against a real daemon started in a private IDEA_HOME.

Prints the frames sent by kind, the connections and how they ended, whether the daemon is
the same process, its peak memory before and after, the round trip of a client connected
the whole time (median and worst, during the run), and a shell echo at the end. Exits 1 if
the daemon died, stopped answering or grew its peak memory by more than 64 MiB.

    .venv/bin/python bench/fuzz_socket.py --frames 10000 --connections 8 --seed 1

The suite runs the same shapes under hypothesis (`tests/daemon/test_fuzz_socket.py`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import default_idea, format_table, make_environment

from adapters.ipc.commands import LoopStats
from adapters.locations import Locations, locate
from idea_tui.control import ControlClient
from tests.helpers.socket_fuzz import (
    KINDS,
    Counts,
    attach_at,
    play,
    rss_peak_kib,
    session,
)

GROWTH_LIMIT_KIB = 64 * 1024
WARM_TIMEOUT = 60.0


def warm_up(locations: Locations) -> None:
    """Wait until the daemon has loaded what it preloads at start (the MCP SDK, deferred
    modules: tens of MiB), so the peak memory measured before the fuzzing is not the
    memory of a daemon still loading."""
    deadline = time.monotonic() + WARM_TIMEOUT
    with ControlClient.connect(locations) as client:
        while not client.call_as(LoopStats, "loop_stats").warm:
            if time.monotonic() > deadline:
                raise SystemExit("the daemon did not finish preloading within 60 s")
            time.sleep(0.2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=10_000)
    parser.add_argument("--connections", type=int, default=8, help="at once")
    parser.add_argument("--per-connection", type=int, default=5, help="frames per connection")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="idea-fuzz-") as tmp:
        work = Path(tmp)
        env = make_environment(work)
        idea = default_idea()
        project = work / "proj"
        project.mkdir()
        subprocess.run([idea, "new", str(project)], env=env, check=True, capture_output=True)
        locations = locate(env)
        pid = int(locations.pid_file.read_text())
        warm_up(locations)
        peak_before = rss_peak_kib(pid)
        counts = Counts()
        trips: list[float] = []
        failures: list[str] = []
        started = time.monotonic()
        try:
            with ControlClient.connect(locations) as bystander:
                sent = 0
                while sent < args.frames:
                    batch = [session(rng, args.per_connection) for _ in range(args.connections)]
                    play(locations.socket, batch, counts)
                    sent = sum(counts.frames.values())
                    begun = time.perf_counter()
                    bystander.call("version")
                    trips.append((time.perf_counter() - begun) * 1000)
            sane = attach_at(locations.socket)  # fuzzed tui Hellos resize the window
            echo = subprocess.run(
                [idea, "send-keys", "-t", "0", "echo fuzz-$((6*7))", "Enter"], env=env,
                capture_output=True, text=True, check=False)
            shown = subprocess.run([idea, "capture", "-t", "0", "--wait", "^fuzz-42",
                                    "--timeout", "20"], env=env, capture_output=True,
                                   text=True, check=False)
            sane.close()
            if echo.returncode or shown.returncode:
                failures.append(f"the shell did not answer: {echo.stderr}{shown.stderr}")
        except Exception as exc:  # report, then fail below
            failures.append(f"{type(exc).__name__}: {exc}")
        elapsed = time.monotonic() - started
        alive = Path(f"/proc/{pid}").exists()
        peak_after = rss_peak_kib(pid) if alive else 0
        subprocess.run([idea, "kill-server", "-f"], env=env, capture_output=True, check=False)
    rows = [[name, str(counts.frames[name])] for name in KINDS]
    rows.append(["total frames", str(sum(counts.frames.values()))])
    print(format_table(["frame kind", "sent"], rows))
    print()
    print(format_table(["figure", "value"], [
        ["connections", str(counts.connections)],
        ["closed by the daemon", str(counts.closed_by_daemon)],
        ["send refused (daemon already closed)", str(counts.send_errors)],
        ["daemon alive, same pid", "yes" if alive else "NO"],
        ["peak RSS before / after (MiB)", f"{peak_before / 1024:.1f} / {peak_after / 1024:.1f}"],
        ["bystander round trip median / worst (ms)",
         f"{statistics.median(trips):.2f} / {max(trips):.2f}" if trips else "-"],
        ["elapsed (s)", f"{elapsed:.1f}"],
    ]))
    if alive and peak_after - peak_before > GROWTH_LIMIT_KIB:
        failures.append(f"peak memory grew by {(peak_after - peak_before) / 1024:.1f} MiB")
    if not alive:
        failures.append("the daemon died")
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
