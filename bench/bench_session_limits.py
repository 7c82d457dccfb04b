"""What one session-limit look costs per agent (issue 10): the watcher reads a screen only
when its counter moved, then matches the profile's rateLimitPattern (rows as they are, and
wrapped rows joined) and parses the captured time.

    .venv/bin/python bench/bench_session_limits.py

Prints medians over many looks for a 200x50 screen of ordinary output and for one showing
Claude Code's limit message wrapped in a 39-column cell; the watcher does at most one look
per agent every 0.5 s (SCAN_EVERY), so the figure is per agent per half second at most.
Also what the went-on check adds for a limited agent (its profile's state rules on the
limit screen: every look until it is seen settled after its limit, then on looks with new
output past the reset), and the load average (figures are noisy on a shared machine).
"""

from __future__ import annotations

import os
import statistics
import time
from datetime import UTC, datetime

from adapters.agents.catalogue import builtin_profiles
from core.agents.state_rules import Observation, detect, parse_rules
from core.session_limits.detector import ScreenWatch, compile_pattern

NOW = datetime(2026, 12, 1, 16, 0, tzinfo=UTC)
ROUNDS = 2000


def median_us(watch: ScreenWatch, lines: list[str], cols: int) -> float:
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        watch.check(lines, NOW, UTC, cols)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def state_us(profile: dict[str, object], lines: list[str]) -> float:
    rules = parse_rules(profile.get("state"), None)
    seen = Observation(title="Claude Code", lines=lines, quiet_for=5.0, running=True,
                       was_idle=True)
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        detect(rules, seen)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def main() -> None:
    print("load average: " + " ".join(f"{load:.2f}" for load in os.getloadavg()))
    profiles = {p["id"]: p for p in builtin_profiles()}
    busy = [f"● Editing src/module_{i}.py — applied 3 changes, 120 lines" .ljust(200)[:200]
            for i in range(50)]
    limited = ["⎿  You've hit your limit · resets", "     6:57pm (UTC)", "❯ "] + [""] * 19
    for profile_id in ("claude-code", "codex"):
        pattern = compile_pattern(profiles[profile_id]["rateLimitPattern"])
        assert pattern is not None
        plain = median_us(ScreenWatch(pattern), busy, 200)
        shown = median_us(ScreenWatch(pattern), limited, 39)
        settle = state_us(profiles[profile_id], limited)
        print(f"{profile_id:<12} 200x50 busy screen: {plain:7.1f} µs/look   "
              f"39x22 limit screen: {shown:7.1f} µs/look   went-on check: {settle:5.1f} µs")


if __name__ == "__main__":
    main()
