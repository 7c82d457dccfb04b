"""Delegation through the daemon with fake agents (issue 8's speed budgets).

Run: `.venv/bin/python bench/bench_delegation.py [--asks 40] [--agents 10] [--concurrent 50]`.
Not part of the test command; its figures depend on the machine (compare runs, not absolutes).

A real daemon in a temporary IDEA_HOME, a project with `--agents` fake agents that speak MCP
through the real stdio bridge (`fake_agent/fake_agent.py --mcp-connect`, submitDelayMs 0).
The caller is the user (`ask` commands on the daemon's socket, as `idea ask` sends them).

1. Ask→reply overhead: `--asks` sequential asks to one idle agent. Overhead = the caller's
   round trip minus the agent's own time (from the moment its turn started to the moment it
   began its `idea_reply` call, both read with CLOCK_MONOTONIC, which every process shares).
   What remains is idea's: the command, queueing, typing the task into the PTY, checking the
   turn started, the MCP call through the bridge, and waking the caller. Budget: p50 ≤ 5 ms,
   p99 ≤ 20 ms.
2. Load: `--concurrent` asks at once across the agents, 20 % of the callers hanging up
   (cancelling) after a moment. Every ticket must end in a final state (no wedge); p50/p99 of
   the answered asks and the daemon's CPU over the run (its MCP worker's included) are
   printed.
3. Echo in an unrelated cell (echo.py): a real `idea attach` client on a PTY of 160×48
   (drained all the time), `cat` in its focused cell, one letter typed at a time and timed
   until it comes back (bench_terminal's method), first with nothing else running, then
   while `--callers` threads keep asking the agents (the agents run in the background; the
   tickets go through the same daemon). tmux in the same run beside it: its own server and
   attached client, a pane running `cat`, sampled in rounds alternating with idea's, under
   the same delegation load (which runs on the same two cores). Targets of the terminal
   engine: idle p50 ≤ 2 ms, busy p99 ≤ 10 ms. `--echo-samples 0` skips this part.
   The agents run at idea's default `agent_nice` (5 steps lower CPU priority) unless
   `--agent-nice N` says otherwise (0: the same share as the daemon and the shells).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _harness import daemon_cpu_seconds, default_idea, format_table, make_environment
from echo import EchoResults, echo_under_load

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters.locations import locate  # noqa: E402
from idea_tui.control import ControlClient  # noqa: E402

FAKE_AGENT = ROOT / "fake_agent" / "fake_agent.py"
FINAL = {"replied", "done", "timed_out", "cancelled", "failed"}


def profile() -> dict[str, Any]:
    return {
        "id": "bench-fake",
        "name": "Bench fake agent",
        "command": sys.executable,
        "args": [str(FAKE_AGENT), "--context-file", "", "--report", "{runDir}/report.json",
                 "--mcp-connect", "--no-paste-context"],
        "contextInjection": {"strategy": "flag", "flag": "--append-system-prompt {content}"},
        "mcp": {"config": {"strategy": "flag", "flag": "--mcp-config {path}"},
                "transport": "stdio"},
        "promptReadyPattern": "(?m)^fake-agent>(?: |$)",
        "state": {"version": 1, "workingTitle": ["working"], "quietMs": 50},
        "submitDelayMs": 0,
    }


class Idea:
    def __init__(self, env: dict[str, str], idea: str) -> None:
        self.env, self.idea = env, idea

    def run(self, *args: str) -> Any:
        done = subprocess.run([self.idea, *args, "--json"], env=self.env, capture_output=True,
                              text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise SystemExit(f"idea {' '.join(args)}: {done.stderr}")
        return json.loads(done.stdout) if done.stdout.strip() else None

    def client(self) -> ControlClient:
        return ControlClient.connect(locate(self.env))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def wait_idle(client: ControlClient, name: str, project: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state = client.call("agent_state", project=project, agent=name)
        if state["state"] == "idle" and state.get("mcpConnected"):
            return
        time.sleep(0.02)
    raise SystemExit(f"{name} never became idle: {state}")


def turns(project_dir: Path, agent_id: str) -> dict[str, dict[str, Any]]:
    report = json.loads((project_dir / ".ideai" / "run" / agent_id / "report.json").read_text())
    return {turn["ticket"]: turn for turn in report["mcp"]["turns"]}


def overhead(idea: Idea, project: str, project_dir: Path, agent: dict[str, Any],
             asks: int) -> tuple[list[float], list[float], dict[str, list[float]]]:
    measured: list[tuple[str, float, float]] = []
    times: dict[str, dict[str, float]] = {}
    with idea.client() as client:
        for n in range(asks):
            wait_idle(client, agent["name"], project)
            sent = time.monotonic()
            result = client.call("ask", project=project, agent=agent["name"], task=f"reply {n}")
            received = time.monotonic()
            if result["state"] != "replied":
                raise SystemExit(f"ask {n}: {result}")
            measured.append((result["ticket"], sent, received))
            times[result["ticket"]] = result["times"]
    time.sleep(0.5)  # the agent's report is rewritten after each call
    own = turns(project_dir, agent["id"])
    costs: list[float] = []
    costs_from_turn: list[float] = []
    phases: dict[str, list[float]] = {"command→typed": [], "typed→agent reads submit": [],
                                      "reply call→ticket replied": [], "replied→caller": []}
    for t, sent, received in measured:
        turn = own.get(t)
        if turn is None or turn["replying"] is None:
            continue
        # The agent's own time starts when it read the submit (before it records the
        # message to its files), and ends when it starts its idea_reply call.
        own_start = turn.get("received") or turn["start"]
        costs.append((received - sent - (turn["replying"] - own_start)) * 1000)
        # The older accounting (the agent's time from its turn start): comparable with
        # figures measured before the fake agent reported when it read the submit.
        costs_from_turn.append((received - sent - (turn["replying"] - turn["start"])) * 1000)
        mark = times[t]
        phases["command→typed"].append((mark["delivered"] - sent) * 1000)
        phases["typed→agent reads submit"].append((own_start - mark["delivered"]) * 1000)
        phases["reply call→ticket replied"].append((mark["finished"] - turn["replying"]) * 1000)
        phases["replied→caller"].append((received - mark["finished"]) * 1000)
    return costs, costs_from_turn, phases


def load(idea: Idea, project: str, names: list[str], count: int,
         daemon_pid: int) -> dict[str, Any]:
    latencies: list[float] = []
    outcomes: list[str] = []
    lock = threading.Lock()

    def caller(n: int) -> None:
        cancel = n % 5 == 0
        client = idea.client()
        task = f"stall 0.2 answer {n}" if not cancel else "stall 2 to be cancelled"
        try:
            if cancel:
                # Hang up while the ask waits: the daemon must withdraw it.
                timer = threading.Timer(0.3, client.close)
                timer.start()
            sent = time.monotonic()
            try:
                result = client.call("ask", project=project, agent=names[n % len(names)],
                                     task=task)
            except Exception:
                with lock:
                    outcomes.append("hung up")
                return
            with lock:
                outcomes.append(result["state"])
                if result["state"] == "replied":
                    latencies.append((time.monotonic() - sent) * 1000)
        finally:
            client.close()

    cpu_before = daemon_cpu_seconds(daemon_pid)
    started = time.monotonic()
    threads = [threading.Thread(target=caller, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    elapsed = time.monotonic() - started
    cpu = daemon_cpu_seconds(daemon_pid) - cpu_before
    # Every ticket reaches a final state (the cancelled ones included): no wedge.
    deadline = time.monotonic() + 120
    while True:
        listed = idea.run("agent", "tickets", "-p", project)
        open_tickets = [t for t in listed if t["state"] not in FINAL]
        if not open_tickets or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    return {
        "latencies": latencies,
        "outcomes": outcomes,
        "elapsed": elapsed,
        "cpu": cpu,
        "open": open_tickets,
        "states": sorted({t["state"] for t in listed}),
    }


def sustained_asker(idea: Idea, project: str, names: list[str], n: int) -> Any:
    """One caller that keeps asking (round robin over the agents) until told to stop; the
    returned object's `stop()` ends it and says how many asks were answered."""
    stop = threading.Event()
    answered = [0]

    def run() -> None:
        with idea.client() as client:
            k = n
            while not stop.is_set():
                result = client.call("ask", project=project, agent=names[k % len(names)],
                                     task=f"reply load {k}")
                if result["state"] == "replied":
                    answered[0] += 1
                k += 1

    thread = threading.Thread(target=run, daemon=True)
    thread.start()

    class Caller:
        def stop(self) -> int:
            stop.set()
            thread.join(60)
            return answered[0]

    return Caller()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asks", type=int, default=40)
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--concurrent", type=int, default=50)
    parser.add_argument("--idea", default=default_idea())
    parser.add_argument("--echo-samples", type=int, default=120,
                        help="keystrokes per program and case (0: no echo measurement)")
    parser.add_argument("--callers", type=int, default=10,
                        help="threads that keep asking while echo is measured")
    parser.add_argument("--tmux", default=shutil.which("tmux") or "")
    parser.add_argument("--agent-nice", type=int, default=None,
                        help="config.toml's agent_nice for the run (default: idea's, 5)")
    parser.add_argument("--keep", action="store_true",
                        help="leave the working folder (logs, reports) behind")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-delegation-") as folder:
        work = Path(folder)
        if args.keep:  # the daemon's log and the agents' reports stay for a look after
            work = Path(tempfile.mkdtemp(prefix="bench-delegation-kept-"))
            print(f"kept in {work}")
        env = make_environment(work)
        if args.agent_nice is not None:
            config = locate(env).config_file
            config.parent.mkdir(parents=True, exist_ok=True)
            config.write_text(f"agent_nice = {args.agent_nice}\n")
        idea = Idea(env, args.idea)
        project_dir = work / "proj"
        project_dir.mkdir()
        try:
            idea.run("new", str(project_dir))
            profile_file = work / "profile.json"
            profile_file.write_text(json.dumps(profile()))
            subprocess.run([args.idea, "profile", "add", str(profile_file)], env=env,
                           check=True, capture_output=True)
            names = [f"A{n}" for n in range(args.agents)]
            agents = [idea.run("agent", "new", name, "--profile", "bench-fake", "-p", "proj")
                      for name in names]
            for name in names:
                idea.run("agent", "launch", name, "--background", "-p", "proj")
            pid = int(locate(env).pid_file.read_text())
            with idea.client() as client:
                for name in names:
                    wait_idle(client, name, "proj")
            costs, costs_from_turn, phases = overhead(idea, "proj", project_dir, agents[0],
                                                      args.asks)
            loaded = load(idea, "proj", names, args.concurrent, pid)
            echo: EchoResults | None = None
            if args.echo_samples > 0:
                echo = echo_under_load(
                    env, work, args.idea, args.tmux, project_dir, args.echo_samples,
                    lambda n: sustained_asker(idea, "proj", names, n), args.callers,
                )
        finally:
            subprocess.run([args.idea, "kill-server", "-f"], env=env, capture_output=True,
                           check=False)
    print(f"ask→reply overhead, {len(costs)} sequential asks to one agent (ms):")
    print(format_table(
        ["", "p50", "p99", "budget p50", "budget p99"],
        [["idea", f"{statistics.median(costs):.1f}", f"{percentile(costs, 0.99):.1f}",
          "5", "20"],
         ["idea, agent's time from its turn start", f"{statistics.median(costs_from_turn):.1f}",
          f"{percentile(costs_from_turn, 0.99):.1f}", "", ""]],
    ))
    print("where it goes (p50 ms):", ", ".join(
        f"{name} {statistics.median(values):.1f}" for name, values in phases.items() if values))
    answered = loaded["latencies"]
    counts = {state: loaded["outcomes"].count(state) for state in set(loaded["outcomes"])}
    print(f"\n{args.concurrent} concurrent asks across {args.agents} agents, 20 % hanging up:")
    print(format_table(
        ["answered", "p50 ms", "p99 ms", "outcomes", "open tickets", "daemon + MCP worker CPU"],
        [[str(len(answered)), f"{statistics.median(answered):.0f}" if answered else "-",
          f"{percentile(answered, 0.99):.0f}", json.dumps(counts), str(len(loaded["open"])),
          f"{loaded['cpu']:.2f} s in {loaded['elapsed']:.1f} s "
          f"({100 * loaded['cpu'] / loaded['elapsed']:.0f} % of a core)"]],
    ))
    if echo is not None:
        print()
        echo.print()
    if loaded["open"]:
        print("WEDGED:", loaded["open"])
        return 1
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
