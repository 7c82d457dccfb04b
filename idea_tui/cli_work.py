"""`idea work`: who is doing what now (the project's live state, LIV-7), and `idea agent
refresh AGENT`: deliver an agent its refreshed context (the cell title offers it)."""

from __future__ import annotations

import argparse
from typing import Any

from adapters.ipc import answers_orchestration as orch
from idea_tui.cli_common import call_as, json_option, print_json


def row_text(row: orch.WorkRow) -> str:
    """'Bob  working  review the parser (on Alice's ticket T1) · asked by Alice'."""
    line = f"{row.agent}  {row.status}"
    if row.task:
        line += f"  {row.task}"
    if row.note:
        line += f" ({row.note})"
    if row.asked_by:
        line += f" · asked by {row.asked_by}"
    if row.refresh:
        line += " · context changed (idea agent refresh)"
    return line


def cmd_work(args: argparse.Namespace) -> int:
    result = call_as(args, orch.WorkState, "work_state", start=True, project=args.project)
    if args.json:
        print_json(result)
        return 0
    if result.problem:
        print(f"idea: {result.problem}")
    if not result.rows:
        print("no work state yet (agents set it with idea_workstate_set; delegations "
              "update it)")
    for row in result.rows:
        print(row_text(row))
    offered = [name for name in result.refresh
               if name not in {row.agent for row in result.rows}]
    if offered:
        print(f"context changed for {', '.join(offered)} (idea agent refresh AGENT)")
    return 0


def cmd_agent_refresh(args: argparse.Namespace) -> int:
    result = call_as(args, orch.Refreshed, "agent_refresh", project=args.project,
                     agent=args.agent)
    if args.json:
        print_json(result)
    elif result.ticket:
        print(f"{result.agent}: refreshed {', '.join(result.sections)} "
              f"(queued as {result.ticket})")
    else:
        print(f"{result.agent}: its context is up to date")
    return 0


def register(sub: Any, agent_actions: Any) -> None:
    text = "who is doing what now: the project's live work state"
    work = sub.add_parser("work", help=text, description=text)
    work.set_defaults(run=cmd_work)
    work.add_argument("-p", "--project", help="the project (default: the current one)")
    json_option(work)
    text = "send a running agent the shared knowledge that changed since it started"
    refresh = agent_actions.add_parser("refresh", help=text, description=text)
    refresh.set_defaults(run=cmd_agent_refresh)
    refresh.add_argument("agent")
    refresh.add_argument("-p", "--project", help="the project (default: the current one)")
    json_option(refresh)
