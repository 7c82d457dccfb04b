"""`idea ask` and `idea agent send|interrupt|state`: the user is part of the team (D4, DLG).

`idea ask AGENT TASK` delegates as the user from any shell and prints the reply, so scripts
can drive agents too; it exits 1 when the ask ended without a reply (timed out, failed...)
and 2 when `--timeout` passed first (the ticket stays; its reply can come later).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adapters.ipc import answers_orchestration as orch
from idea_tui.cli_common import call_as, call_list, json_option, print_json


def team_activity(agent: dict[str, Any]) -> str:
    """' · working on T3 for Conductor (40 s) · 2 queued' (issue 8), or ''."""
    parts = []
    activity = agent.get("activity")
    if agent.get("ticket"):
        parts.append(f"{activity or 'working'} on {agent['ticket']} for "
                     f"{agent.get('askedBy', '?')} ({agent.get('since', 0)} s)")
    elif activity and activity != "idle":
        parts.append(str(activity))
    if agent.get("queue"):
        parts.append(f"{agent['queue']} queued")
    return "".join(f" · {part}" for part in parts)


def cmd_ask(args: argparse.Namespace) -> int:
    result = call_as(args, orch.TicketInfo, "ask", start=True, project=args.project,
                     agent=args.agent, task=" ".join(args.task), timeout=args.timeout)
    if args.json:
        print_json(result)
    elif result.state == "replied":
        print(result.reply or "")
    else:
        why = f": {result.reason}" if result.reason else ""
        print(f"idea: ticket {result.ticket} for {result.target} is "
              f"{result.state.replace('_', ' ')}{why}", file=sys.stderr)
    if result.state == "replied":
        return 0
    return 1 if result.state in ("timed_out", "cancelled", "failed", "done") else 2


def cmd_agent_send(args: argparse.Namespace) -> int:
    result = call_as(args, orch.TicketInfo, "agent_send", project=args.project,
                     agent=args.agent, text=" ".join(args.text))
    if args.json:
        print_json(result)
    else:
        print(f"{result.target}: queued as {result.ticket}")
    return 0


def cmd_agent_interrupt(args: argparse.Namespace) -> int:
    result = call_as(args, orch.Interrupted, "agent_interrupt", project=args.project,
                     agent=args.agent)
    if args.json:
        print_json(result)
    else:
        ticket = result.interrupted
        print(f"{result.agent}: interrupted" + (f" (ticket {ticket} failed)" if ticket else ""))
    return 0


def cmd_agent_state(args: argparse.Namespace) -> int:
    result = call_as(args, orch.AgentState, "agent_state", project=args.project,
                     agent=args.agent)
    if args.json:
        print_json(result)
        return 0
    line = f"{result.agent}: {result.state}, {result.queue} queued"
    if result.ticket:
        line += f", working on {result.ticket}"
    print(line)
    if args.explain:
        print(f"  rule: {result.explain or result.rule}")
        if result.waiting_for:
            print(f"  next task waits: {result.waiting_for}")
        if isinstance(result.mcp_connected, bool):
            print(f"  MCP client connected: {'yes' if result.mcp_connected else 'no'}")
    return 0


def cmd_agent_tickets(args: argparse.Namespace) -> int:
    result = call_list(args, orch.TicketInfo, "tickets", project=args.project)
    if args.json:
        print_json(result)
        return 0
    for ticket in result:
        why = f" ({ticket.reason})" if ticket.reason else ""
        print(f"{ticket.ticket}  {ticket.requester} → {ticket.target}  "
              f"{ticket.state}{why}")
    return 0


def register(sub: Any, agent_actions: Any) -> None:
    ask = sub.add_parser("ask", help="give an agent a task as the user and print its reply",
                         description="give an agent a task as the user and print its reply")
    ask.set_defaults(run=cmd_ask)
    ask.add_argument("agent")
    ask.add_argument("task", nargs="+")
    ask.add_argument("--timeout", type=float, help="stop waiting after this many seconds")
    ask.add_argument("-p", "--project", help="the project (default: the current one)")
    json_option(ask)

    def action(name: str, run: Any, text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = agent_actions.add_parser(name, help=text,
                                                                   description=text)
        parser.set_defaults(run=run)
        parser.add_argument("-p", "--project", help="the project (default: the current one)")
        json_option(parser)
        parser.add_argument("agent")
        return parser

    send = action("send", cmd_agent_send, "queue a line for the agent (after its current task)")
    send.add_argument("text", nargs="+")
    action("interrupt", cmd_agent_interrupt, "stop the agent's current turn (Esc)")
    tickets = agent_actions.add_parser("tickets", help="recent delegations and their states",
                                       description="recent delegations and their states")
    tickets.set_defaults(run=cmd_agent_tickets)
    tickets.add_argument("-p", "--project", help="the project (default: the current one)")
    json_option(tickets)
    from idea_tui.cli_work import register as register_work

    register_work(sub, agent_actions)
    state = action("state", cmd_agent_state, "is the agent idle, working, blocked...?")
    state.add_argument("--explain", action="store_true", help="which rule matched, on which line")
