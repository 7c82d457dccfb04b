"""The daemon's loop under load: echo latency of one cell and the worst loop turn, idle and
while other work floods the same daemon.

Run: `.venv/bin/python bench/bench_loop.py [--samples 40]`.
Not part of the test command; figures depend on the machine (compare the two columns).

A real daemon (`python -m idea_daemon`, private IDEA_HOME) with one project of three cells;
cell A runs `cat`. Two phases, each measured the same way:

- echo: `--samples` times, the attached client sends `Z<n>` + Enter to cell A as raw input
  and times until a frame of cell A shows `Z<n>` (the tty's echo, drawn by the daemon's
  emulator and sent by its frame pacing): median, 90th percentile and worst;
- the loop: the daemon's own watchdog (`loop_stats`, reset at the start of the phase): the
  worst scheduling delay of its heartbeat, its 99th percentile and how many turns passed
  50 ms (with what ran during the worst one).

Idle: nothing else happens. First use: the first git, agent (a fake agent that connects to
the daemon's MCP server and calls a tool), conversation, memory, context, skill and template
commands since the daemon started, run one after the other by the `idea` CLI; a module
imported for the first time on the loop stalls it, so the modules the loop imported during
the phase are listed (`lateImports`). Under load, at the same time: cell B retitles itself as fast
as a shell loop can (`printf '\\033]2;…\\007'`), a second attached client drags a border
(drags of 60 moves, one move per 30 ms as the client sends them), a command
waits on the echo client's own connection (`capture --wait`, a minute) and `profile_detect`
runs every profile's detect command every 2 s. The daemon's CPU use and the machine's load
average are printed too: on a shared machine the loop can only be as quick as the share of
a core the daemon gets.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _harness import cpu_seconds, format_table, make_environment

from adapters.ipc.messages import CellFrame, DaemonMessage, RawInput, Scene
from adapters.locations import locate
from tests.helpers.raw_client import RawClient

TITLE_FLOOD = "while :; do printf '\\033]2;flood %d\\007' $((i=i+1)); done"


def frame_text(message: DaemonMessage, cell: str) -> str:
    if not isinstance(message, CellFrame) or message.cell != cell:
        return ""
    return "\n".join("".join(run[0] for run in runs) for _y, runs in message.lines)


def start_daemon(env: dict[str, str]) -> str:
    subprocess.run([sys.executable, "-m", "idea_daemon"], env=env, check=True)
    socket = str(locate(env).socket)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            RawClient(socket, kind="control").close()
            return socket
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the daemon did not start")


def echo_samples(client: RawClient, cell: str, count: int, tag: str) -> list[float]:
    times = []
    for n in range(count):
        token = f"Z{tag}{n}"
        sent = time.perf_counter()
        client.send(RawInput(cell=cell, data=f"{token}\r".encode()))
        client.messages.clear()  # only what comes from now on
        def shown(message: DaemonMessage, token: str = token) -> bool:
            return token in frame_text(message, cell)

        client.wait_for(shown, 30)
        times.append(time.perf_counter() - sent)
        time.sleep(0.05)  # a typist's pace, so samples do not queue behind each other
    return times


class Load:
    """The work done beside the echo: drags, a title flood, slow commands."""

    def __init__(self, socket: str, border: dict[str, Any]) -> None:
        self.socket = socket
        self.border = border
        self.stop = threading.Event()
        self.moves = 0
        self.detects = 0
        self.threads = [threading.Thread(target=self._drag, daemon=True),
                        threading.Thread(target=self._detect, daemon=True)]

    def __enter__(self) -> Load:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(30)

    def _drag(self) -> None:
        with RawClient(self.socket, width=150, height=40) as dragger:
            drag = 0
            while not self.stop.is_set():
                drag += 1
                for n in range(60):  # as the client sends a drag: a move per 30 ms
                    dragger.call("set_border", container=self.border["container"],
                                 index=self.border["index"], position=20 + n % 80,
                                 vertical=True, drag=drag)
                    dragger.messages.clear()
                    self.moves += 1
                    time.sleep(0.03)

    def _detect(self) -> None:
        # A slow command (every profile's detect program, up to 5 s each), every 2 s.
        with RawClient(self.socket, kind="control") as control:
            while not self.stop.wait(2.0):
                control.call("profile_detect")
                control.messages.clear()
                self.detects += 1


def first_use(project: Path, env: dict[str, str]) -> int:
    """The first command of every feature since the daemon started; returns how many ran."""
    from tests.e2e_agents.delegation import mcp_profile

    idea = [str(Path(sys.executable).parent / "idea")]

    def run(*args: str) -> str:
        done = subprocess.run([*idea, *args], env=env, cwd=project, capture_output=True,
                              text=True, timeout=120)
        if done.returncode != 0:
            raise SystemExit(f"idea {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    profile = project.parent / "fake-mcp.json"
    profile.write_text(json.dumps(mcp_profile()))
    steps: list[tuple[str, ...]] = [
        ("git", "status"), ("git", "log"), ("git", "diff"), ("git", "branch"),
        ("profile", "add", str(profile)), ("agent", "new", "bench", "--profile", "fake-mcp"),
        ("agent", "list"), ("work",),
        ("conversation", "list"), ("memory", "list"), ("context", "show"),
        ("skill", "list"), ("template", "list"),
    ]
    for step in steps:
        run(*step)
    launched = json.loads(run("agent", "launch", "bench", "--json"))
    # The fake agent shows its prompt once its MCP client is connected.
    run("capture", "-t", launched["target"], "--wait", "fake-agent>", "--timeout", "60")
    return len(steps) + 1


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--verbose", action="store_true",
                        help="print every slow turn of the first use and under load, "
                             "with what ran")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="idea-bench-loop-") as work_dir:
        work = Path(work_dir)
        env = make_environment(work)
        project = work / "project"
        project.mkdir()
        git = ["git", "-C", str(project), "-c", "user.name=bench", "-c", "user.email=b@x"]
        subprocess.run([*git, "init", "-q"], check=True)
        (project / "README.md").write_text("bench\n")
        subprocess.run([*git, "add", "README.md"], check=True)
        subprocess.run([*git, "commit", "-qm", "first"], check=True)
        os.environ.update({k: env[k] for k in ("IDEA_HOME",)})
        socket = start_daemon(env)
        try:
            return run(socket, project, env, args.samples, args.verbose)
        finally:
            with RawClient(socket, kind="control") as control:
                control.request("kill_server", force=True)
                time.sleep(0.3)


def run(socket: str, project: Path, env: dict[str, str], samples: int,
        verbose: bool = False) -> int:
    with RawClient(socket, width=150, height=40) as client:
        client.call("project_new", path=str(project))
        client.call("split", direction="right")
        client.call("split", direction="right")
        echo_cell, flood_cell, _ = (cell["id"] for cell in client.call("list_cells"))
        client.call("select", target=f"%{echo_cell}")
        client.call("send_keys", target=f"%{echo_cell}", keys=["cat", "Enter"])
        scene = client.wait_for(lambda m: isinstance(m, Scene) and len(m.borders) == 2)
        assert isinstance(scene, Scene)
        border = {"container": scene.borders[0].container, "index": scene.borders[0].index}
        echo_samples(client, echo_cell, 3, "warm")

        pid = client.call("version")["pid"]
        client.call("loop_stats", reset=True)
        idle_cpu, idle_wall = cpu_seconds(pid), time.perf_counter()
        idle = echo_samples(client, echo_cell, samples, "i")
        idle_share = (cpu_seconds(pid) - idle_cpu) / (time.perf_counter() - idle_wall)
        idle_loop = client.call("loop_stats", reset=True)

        steps = first_use(project, env)
        first_loop = client.call("loop_stats", reset=True)

        client.call("send_keys", target=f"%{flood_cell}", keys=[TITLE_FLOOD, "Enter"])
        slow = client.request("capture", target=f"%{flood_cell}", wait="never shown",
                              timeout=600)
        with Load(socket, border) as load:
            time.sleep(0.5)
            client.call("loop_stats", reset=True)
            load_cpu, load_wall = cpu_seconds(pid), time.perf_counter()
            loaded = echo_samples(client, echo_cell, samples, "l")
            load_share = (cpu_seconds(pid) - load_cpu) / (time.perf_counter() - load_wall)
            loaded_loop = client.call("loop_stats")
        client.call("send_keys", target=f"%{flood_cell}", keys=["C-c"])
        del slow

    def ms(value: float) -> str:
        return f"{value * 1000:.1f} ms"

    phases = (idle_loop, first_loop, loaded_loop)
    rows = [
        ["echo latency, median", ms(statistics.median(idle)), "-",
         ms(statistics.median(loaded))],
        ["echo latency, p90", ms(percentile(idle, 0.9)), "-", ms(percentile(loaded, 0.9))],
        ["echo latency, worst", ms(max(idle)), "-", ms(max(loaded))],
        ["worst loop turn", *(f"{phase['worstMs']:.1f} ms" for phase in phases)],
        ["loop turn p99", *(f"{phase['p99Ms']:.1f} ms" for phase in phases)],
        ["turns over 50 ms", *(str(phase["slowTurns"]) for phase in phases)],
        ["watchdog heartbeats", *(str(phase["turns"]) for phase in phases)],
        ["modules first imported on the loop",
         *(str(len(phase.get("lateImports", []))) for phase in phases)],
        ["daemon CPU (of one core)", f"{idle_share:.0%}", "-", f"{load_share:.0%}"],
    ]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"idea daemon loop, {samples} echo samples per phase "
          f"(load: {load.moves} border moves in drags of 60, {load.detects} profile "
          "detections, a title flood, a waiting capture)")
    print(format_table(["", "idle", f"first use ({steps} commands)", "under load"], rows))
    for name, phase in zip(("idle", "first use", "under load"), phases, strict=True):
        late = phase.get("lateImports", [])
        if late:
            print(f"\nmodules first imported on the loop, {name} ({len(late)}): "
                  + ", ".join(late))
    if first_loop["worstWhat"]:
        print("\nworst turn of the first use, what ran:\n" + first_loop["worstWhat"])
    for turn in first_loop.get("slowTurnsSeen", []) if verbose else ():
        print(f"\nfirst use, a turn of {turn['ms']:.0f} ms:\n{turn['what']}")
    if loaded_loop["worstWhat"]:
        print("\nworst turn under load, what ran:\n" + loaded_loop["worstWhat"])
    for turn in loaded_loop.get("slowTurnsSeen", []) if verbose else ():
        print(f"\nunder load, a turn of {turn['ms']:.0f} ms:\n{turn['what']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
