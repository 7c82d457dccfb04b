"""`idea conversation list|show|search`: the transcripts of a project's pairs (LOG-6, LOG-7).

A conversation is named by its two sides: two agents, or `user` and an agent. `show` prints
the active log (or an archived segment with `--segment N`, or every segment with `--all`);
the text of turns is an agent's, so control characters are removed before it reaches the
terminal. The transcript is for humans: no agent is ever given it.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import msgspec

from adapters.ipc import answers_knowledge as kn
from core.safe_text import clean
from idea_tui.cli_common import call_as, call_list, json_option, print_json

LONG_TEXT = 1_000_000


def safe_lines(text: str) -> list[str]:
    return [clean(line, LONG_TEXT) for line in text.split("\n")]


def when(at_ms: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at_ms / 1000))


def describe_turn(turn: kn.Turn) -> list[str]:
    head = f"── {when(turn.at_ms)} · {clean(turn.source)} · {turn.role}"
    return [head, *safe_lines(turn.text)]


def cmd_conversation_list(args: argparse.Namespace) -> int:
    result = call_list(args, kn.ConversationSummary, "conversation_list",
                       project=args.project, agent=args.agent)
    if args.json:
        print_json(result)
        return 0
    for entry in result:
        parties = entry.parties
        names = " ↔ ".join(clean(p) for p in parties) if parties else "(unknown parties)"
        archived = f" · {entry.segments} archived" if entry.segments else ""
        print(f"{entry.conversation}  {names}  {when(entry.changed_at_ms)}{archived}")
    return 0


def _page(args: argparse.Namespace, segment: int | None) -> kn.ConversationPage:
    return call_as(args, kn.ConversationPage, "read_conversation_page", project=args.project,
                   a=args.a, b=args.b, segment=segment)


def cmd_conversation_show(args: argparse.Namespace) -> int:
    page = _page(args, args.segment)
    pages = [page]
    if args.all:
        pages = [_page(args, number) for number in page.segments] + [page]
    if args.json:
        if args.all:
            print_json(msgspec.structs.replace(
                page, segment=None, turns=[t for p in pages for t in p.turns],
                problems=[x for p in pages for x in p.problems]))
        else:
            print_json(page)
        return 0
    where = "every segment" if args.all else (
        f"archived segment {args.segment}" if args.segment else "active log")
    turns = [t for p in pages for t in p.turns]
    print(f"Conversation {' ↔ '.join(clean(p) for p in page.parties)} "
          f"({page.conversation}) · {where} · {len(turns)} turns")
    if page.segments and not args.all:
        print(f"  archived segments: {', '.join(map(str, page.segments))} "
              "(--segment N, or --all)")
    for p in pages:
        for problem in p.problems:
            print(f"  ! {clean(problem, 512)}")
    for turn in turns:
        print("\n".join(describe_turn(turn)))
    return 0


def cmd_conversation_search(args: argparse.Namespace) -> int:
    result = call_as(args, kn.ConversationSearch, "conversation_search", project=args.project,
                     a=args.a, b=args.b, query=" ".join(args.query))
    if args.json:
        print_json(result)
        return 0
    for hit in result.hits:
        segment = f"segment {hit.segment}" if hit.segment else "active"
        first = next((line for line in safe_lines(hit.text) if line.strip()), "")
        print(f"{segment} #{hit.index + 1}  {when(hit.at_ms)}  "
              f"{clean(hit.source)} · {hit.role}: {first[:160]}")
    return 0 if result.hits else 1


def register(sub: Any) -> None:
    text = "the transcripts between agents, and between you and an agent"
    group = sub.add_parser("conversation", help=text, description=text)
    actions = group.add_subparsers(metavar="ACTION")

    def action(name: str, run: Any, help_text: str, pair: bool = True) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = actions.add_parser(name, help=help_text,
                                                             description=help_text)
        parser.set_defaults(run=run)
        parser.add_argument("-p", "--project", help="the project (default: the current one)")
        json_option(parser)
        if pair:
            parser.add_argument("a", metavar="A", help="an agent, or `user`")
            parser.add_argument("b", metavar="B", help="another agent")
        return parser

    listing = action("list", cmd_conversation_list, "the project's conversations", pair=False)
    listing.add_argument("agent", nargs="?", help="only this agent's")
    show = action("show", cmd_conversation_show, "print the turns of a conversation")
    show.add_argument("--segment", type=int, help="an archived segment (log.N.jsonl)")
    show.add_argument("--all", action="store_true", help="every archived segment, then the log")
    search = action("search", cmd_conversation_search, "turns whose text holds QUERY")
    search.add_argument("query", nargs="+", metavar="QUERY")
