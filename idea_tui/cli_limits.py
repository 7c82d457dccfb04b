"""`idea agent resume NAME --at HH:MM | --now | --cancel | --not-limited | --on PROFILE` and
`idea agent fallback` (issue 10: session limits)."""

from __future__ import annotations

import argparse
from typing import Any

import msgspec

from adapters.ipc import answers_limits as lim
from idea_tui.cli_common import call_as, print_json
from idea_tui.limit_words import limit_words


def _controls(args: argparse.Namespace) -> tuple[object, ...]:
    return (args.at, args.now, args.cancel, args.not_limited, args.on)


def wants_limit_control(args: argparse.Namespace) -> bool:
    return any(_controls(args))


def cmd_limit_resume(args: argparse.Namespace) -> int:
    if len(args.agents) != 1:
        print("idea agent resume: --at, --now, --cancel, --not-limited and --on take exactly "
              "one AGENT")
        return 2
    if sum(bool(x) for x in _controls(args)) > 1:
        print("idea agent resume: choose one of --at, --now, --cancel, --not-limited, --on")
        return 2
    name = args.agents[0]
    if args.not_limited:
        result = call_as(args, lim.LimitAnswer, "not_limited", project=args.project,
                         agent=name)
        said = (f"{result.agent}: not a limit (its task goes on)" if result.was == "suspected"
                else f"{result.agent}: no longer limited (nothing restarts, its queue moves)")
    elif args.cancel:
        result = call_as(args, lim.LimitAnswer, "cancel_resume", project=args.project,
                         agent=name)
        said = (f"{result.agent}: resume cancelled (still limited)" if result.cancelled
                else f"{result.agent}: no resume was armed")
    elif args.now:
        result = call_as(args, lim.LimitAnswer, "resume_now", project=args.project, agent=name)
        said = f"{result.agent}: resumed now"
    elif args.on:
        result = call_as(args, lim.LimitAnswer, "limit_swap", project=args.project, agent=name,
                         profile=args.on, swap_back=not args.stay)
        said = f"{result.agent}: continues on {result.profile}"
    else:
        result = call_as(args, lim.LimitAnswer, "set_resume_at", project=args.project,
                         agent=name, at=args.at)
        # The wording is shared with the Agents panel, which reads the wire map.
        words = limit_words(msgspec.to_builtins(result))
        said = f"{result.agent}: {words}" if words else f"{result.agent}: armed"
    if args.json:
        print_json(result)
    else:
        print(said)
    return 0


def cmd_agent_fallback(args: argparse.Namespace) -> int:
    agent = None if args.project_wide else args.agent
    profile = (args.profile or args.agent) if args.project_wide else args.profile
    if not args.project_wide and args.agent is None and (profile or args.off):
        print("idea agent fallback: name an AGENT, or use --project-wide")
        return 2
    result = call_as(args, lim.FallbackPolicy, "limit_fallback", project=args.project,
                     agent=agent, profile=profile, off=args.off or None)
    if args.json:
        print_json(result)
        return 0
    print(f"project: {result.project or 'no fallback'}")
    for name, value in result.agents.items():
        print(f"{name}: {value or 'no fallback (opted out)'}")
    return 0


def register_resume_options(resume: argparse.ArgumentParser) -> None:
    resume.add_argument("--at", metavar="HH:MM",
                        help="a limited agent: resume at this time (its next HH:MM; a past "
                             "time means now)")
    resume.add_argument("--now", action="store_true", help="a limited agent: resume it now")
    resume.add_argument("--cancel", action="store_true",
                        help="a limited agent: cancel its armed resume (it stays limited)")
    resume.add_argument("--not-limited", action="store_true",
                        help="it is not at a limit (a suspected one's task goes on), or no "
                             "longer: nothing restarts, its queue moves")
    resume.add_argument("--on", metavar="PROFILE",
                        help="a limited agent: continue now on PROFILE (persona and handoff "
                             "kept), back on its own at the reset")
    resume.add_argument("--stay", action="store_true",
                        help="with --on: stay on PROFILE after the reset")


def register_fallback(action: Any) -> None:
    fallback = action("fallback", cmd_agent_fallback,
                      "when an agent hits a usage limit, continue on another profile")
    fallback.add_argument("agent", nargs="?", help="the agent (else show the policy)")
    fallback.add_argument("profile", nargs="?", help="the profile to continue on")
    fallback.add_argument("--off", action="store_true", help="no fallback")
    fallback.add_argument("--project-wide", action="store_true",
                          help="for every agent of the project (AGENT is then the profile)")
