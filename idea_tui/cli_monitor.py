"""`idea monitor` (without -t/--activity/--silence): a live, read-only view of a project's
agents, their states and queues, and the recent delegations (issue 8, "Seeing it").

On a terminal the view is redrawn in place every `--interval` seconds until Ctrl-C; piped,
a snapshot is printed each time something changed. `--json` prints one JSON object per
line instead (the daemon's snapshot, `core.orchestration.monitor.Snapshot`), again only
when it changed; `--once` prints one snapshot and exits. Nothing is ever changed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from typing import Any

from adapters.locations import locate
from core.orchestration.monitor import Snapshot, agent_table, align, ticket_table
from idea_tui.control import CommandFailed, ControlClient

CLEAR = "\x1b[H\x1b[2J"


def render(snapshot: Snapshot, width: int | None = None, clock: str = "") -> list[str]:
    """The view as text lines (what the terminal shows)."""
    head = f"idea monitor · {snapshot.project}" + (f" · {clock}" if clock else "")
    lines = [head, ""]
    if snapshot.agents:
        lines += align(agent_table(snapshot.agents), width)
    else:
        lines.append("no agents in this project (idea agent new NAME)")
    lines += ["", "recent delegations (newest first)"]
    if snapshot.tickets:
        lines += align(ticket_table(snapshot.tickets), width)
    else:
        lines.append("none yet")
    needing = [row for row in snapshot.agents if row.needs_user()]
    if needing:
        lines += ["", "needs you: " + ", ".join(
            f"{row.name} ({row.trouble or row.state_label()})" for row in needing)]
    return lines


def _stable(data: dict[str, Any]) -> str:
    """The snapshot without its clocks: what changing means for `--json` and pipes."""
    agents = [{k: v for k, v in a.items() if k != "since"} for a in data.get("agents", [])]
    tickets = [{k: v for k, v in t.items() if k != "age"} for t in data.get("tickets", [])]
    return json.dumps({"agents": agents, "tickets": tickets}, sort_keys=True)


def cmd_monitor(args: argparse.Namespace) -> int:
    if args.interval <= 0:
        raise CommandFailed("usage", "--interval must be a positive number of seconds")
    live = sys.stdout.isatty() and not args.json and not args.once
    last = ""
    with ControlClient.connect(locate()) as client:
        while True:
            data: dict[str, Any] = client.call("team_monitor", project=args.project)
            stable = _stable(data)
            if args.json:
                if stable != last:
                    print(json.dumps({"time": time.time(), **data}, ensure_ascii=False),
                          flush=True)
            elif live:
                width = shutil.get_terminal_size().columns
                lines = render(Snapshot.from_json(data), width, time.strftime("%H:%M:%S"))
                sys.stdout.write(CLEAR + "\n".join(lines) + "\n")
                sys.stdout.flush()
            elif stable != last:
                if last:
                    print()
                print("\n".join(render(Snapshot.from_json(data), None,
                                       time.strftime("%H:%M:%S"))), flush=True)
            last = stable
            if args.once:
                return 0
            time.sleep(args.interval)


def add_options(monitor: argparse.ArgumentParser) -> None:
    """The team view's options (on `idea monitor`, which without -t/--activity/--silence is
    this view; with them it sets a cell's activity and silence marks, cli_cells.py)."""
    monitor.add_argument("-p", "--project", help="the project (default: the current one)")
    monitor.add_argument("--once", action="store_true", help="print one snapshot and exit")
    monitor.add_argument("--interval", type=float, default=1.0, metavar="SECONDS",
                         help="how often the team view looks (default 1)")
