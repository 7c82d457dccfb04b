"""Live state: the hot-path cost of one delegation's live-state bookkeeping, and the size of
what agents get (issue 9's budgets).

Run: `.venv/bin/python bench/bench_live_state.py [--rounds 2000] [--agents 50]`.
Not part of the test command; its figures depend on the machine (compare runs, not absolutes).

1. Hot path: one ask accepted then its reply returned, as the daemon's loop runs them
   (`WorkStateService.on_ticket` on the real `LiveStates`: pruning, the pure policy, the
   coalesced write scheduled). The file write itself runs in an executor (off the loop) and is
   timed apart, with the number of writes the whole run cost (coalescing). Budget for a
   delegation's whole bookkeeping (log append + fold + live-state update): p99 ≤ 2 ms; this is
   the live-state share.
2. Injection: `# Project state` for a project of `--agents` agents, each with a full row
   (tasks and notes far over the preview), against its bounds (12 rows, 2,000 characters),
   and the lean read (`idea_workstate_read`) size.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _harness import calibrate, format_table, load_average, pure_step  # noqa: E402

from adapters.mcp.identity import Caller  # noqa: E402
from adapters.store.layouts_codec import default_layouts  # noqa: E402
from adapters.store.live_state_store import LiveStateStore  # noqa: E402
from core.live_state.model import LiveRow  # noqa: E402
from core.live_state.view import INJECT_MAX_CHARS, INJECT_MAX_ROWS  # noqa: E402
from core.orchestration.tickets import Ticket, TicketState  # noqa: E402
from core.project import Project  # noqa: E402
from idea_daemon.orchestration.live_state import LiveStates  # noqa: E402
from idea_daemon.orchestration.workstate import WorkStateService  # noqa: E402
from idea_daemon.runtime import ProjectRuntime  # noqa: E402


class TimedStore(LiveStateStore):
    """The real store, timing each write."""

    def __init__(self) -> None:
        self.seconds: list[float] = []

    def save(self, root: str | Path, rows: Mapping[str, LiveRow]) -> None:
        started = time.perf_counter()
        super().save(root, rows)
        self.seconds.append(time.perf_counter() - started)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def hot_path(root: Path, rounds: int, agents: int) -> list[list[str]]:
    runtime = ProjectRuntime(Project("p", "bench", str(root)),
                             default_layouts(lambda: uuid.uuid4().hex[:8]))
    team = [(f"agent-{i:02}", f"Agent{i:02}") for i in range(agents)]

    store = TimedStore()
    states = LiveStates(store)
    service = WorkStateService(states, lambda _: team)
    costs: list[float] = []
    for n in range(rounds):
        caller, target = team[n % agents], team[(n + 1) % agents]
        ticket = Ticket(id=f"T{n:06x}", target=target[0], target_name=target[1],
                        requester=caller[0], requester_name=caller[1],
                        task="review the parser change and report every missing test " * 3)
        started = time.perf_counter()
        service.on_ticket(runtime, ticket)
        ticket.state = TicketState.REPLIED
        service.on_ticket(runtime, ticket)
        costs.append(time.perf_counter() - started)
        if n % 200 == 0:
            await asyncio.sleep(0)  # let scheduled writes start, as a live loop would
    await states.drain()
    ms = [c * 1000 for c in costs]
    writes = [s * 1000 for s in store.seconds]
    control = [c * 1000 for c in await control_run(rounds, statistics.median(costs))]
    return [
        ["ask accepted + reply returned (loop)", f"{statistics.median(ms):.3f}",
         f"{percentile(ms, 0.99):.3f}", f"{rounds}", "p99 ≤ 2 ms (whole bookkeeping)"],
        ["control: a pure step of that p50", f"{statistics.median(control):.3f}",
         f"{percentile(control, 0.99):.3f}", f"{rounds}", "the machine's own tail"],
        ["file write (executor, coalesced)", f"{statistics.median(writes):.3f}",
         f"{percentile(writes, 0.99):.3f}", f"{len(writes)} writes", "off the loop"],
    ]


async def control_run(rounds: int, seconds: float) -> list[float]:
    """A pure step of the hot path's median cost, run the same way (same count, same
    yields): its p99 over its p50 is the scheduler's share at this load."""
    size = calibrate(seconds * 1e9)
    costs = []
    for n in range(rounds):
        started = time.perf_counter()
        pure_step(size)
        costs.append(time.perf_counter() - started)
        if n % 200 == 0:
            await asyncio.sleep(0)
    return costs


def injection(agents: int) -> list[list[str]]:
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        (root / ".ideai").mkdir()
        runtime = ProjectRuntime(Project("p", "bench", str(root)),
                                 default_layouts(lambda: uuid.uuid4().hex[:8]))
        team = [(f"agent-{i:02}", f"Agent{i:02}") for i in range(agents)]
        service = WorkStateService(LiveStates(LiveStateStore()), lambda _: team)
        for agent_id, name in team:
            caller = Caller(agent_id, name, str(root))
            service.set(runtime, caller, "working", "t" * 900, "n" * 900)
        section = service.section(runtime, team[0][0]) or ""
        shown = sum(1 for line in section.splitlines()[1:] if not line.startswith("- …"))
        lean = len(json.dumps(service.read(runtime), ensure_ascii=False))
        return [
            [f"# Project state, {agents} agents", f"{len(section)} chars", f"{shown} rows",
             f"≤ {INJECT_MAX_CHARS} chars, ≤ {INJECT_MAX_ROWS} rows",
             "ok" if len(section) <= INJECT_MAX_CHARS and shown <= INJECT_MAX_ROWS else "OVER"],
            [f"idea_workstate_read, {agents} rows", f"{lean} bytes", f"{agents} rows",
             "previews of 160 chars", ""],
        ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--agents", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        (root / ".ideai").mkdir()
        hot = asyncio.run(hot_path(root, args.rounds, args.agents))
    print(load_average())
    print(format_table(["live-state bookkeeping", "p50 ms", "p99 ms", "count", "budget"], hot))
    print()
    print(format_table(["what an agent gets", "size", "rows", "bound", ""],
                       injection(args.agents)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
