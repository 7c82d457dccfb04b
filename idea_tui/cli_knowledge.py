"""`idea memory …` and `idea context …`: the project's shared memory and context from a
shell (issue 9). The daemon reads and writes the files (it may run on another machine);
editing is $EDITOR on a copy, saved back with the revision it started from, so a note an
agent saved meanwhile is not overwritten without asking."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from adapters.ipc import answers_knowledge as kn
from idea_tui.cli_agents import _edit_file
from idea_tui.cli_common import call_as, json_option, print_json, simple
from idea_tui.control import CommandFailed


def _edit_copy(name: str, text: str) -> str | None:
    """$EDITOR on a copy of `text`; the edited text, or None when the editor failed."""
    with tempfile.TemporaryDirectory(prefix="idea-knowledge-") as folder:
        copy = Path(folder) / name
        copy.write_text(text, encoding="utf-8")
        if _edit_file(str(copy)) != 0:
            return None
        return copy.read_text(encoding="utf-8")


def _content(args: argparse.Namespace) -> str | None:
    if args.file is None:
        return None
    if args.file == "-":
        return sys.stdin.read()
    return Path(args.file).read_text(encoding="utf-8")


# ─── memory ──────────────────────────────────────────────────────────────────────────────


def cmd_memory_list(args: argparse.Namespace) -> int:
    result = call_as(args, kn.MemoryList, "memory_list", project=args.project)
    if args.json:
        print_json(result)
        return 0
    if result.problem:
        print(f"idea: {result.problem}", file=sys.stderr)
    if not result.notes:
        print("no memory notes yet (agents save them with idea_memory_write; "
              "`idea memory edit SLUG` writes one)")
    for note in result.notes:
        flags = []
        if not note.indexed:
            flags.append("not in MEMORY.md")
        if note.problem:
            flags.append(note.problem)
        extra = f"  [{'; '.join(flags)}]" if flags else ""
        kind = f" ({note.type})" if note.type and note.type != "project" else ""
        print(f"{note.slug}{kind} — {note.description}{extra}")
    return 0


def cmd_memory_show(args: argparse.Namespace) -> int:
    result = call_as(args, kn.MemoryText, "memory_read", project=args.project, slug=args.slug)
    if args.json:
        print_json(result)
        return 0
    if not result.exists:
        print(f"idea: there is no memory note {result.slug!r}", file=sys.stderr)
        return 1
    sys.stdout.write(result.content)
    return 0


def cmd_memory_edit(args: argparse.Namespace) -> int:
    shown = call_as(args, kn.MemoryText, "memory_read", project=args.project, slug=args.slug)
    text = _content(args)
    if text is None:
        start = shown.content or (
            f"---\nname: {shown.slug}\ndescription: \nmetadata:\n  type: project\n---\n")
        text = _edit_copy(f"{shown.slug}.md", start)
        if text is None:
            return 1
        if text == shown.content or (not shown.exists and text == start):
            print(f"{shown.slug}: no change")
            return 0
    try:
        written = call_as(args, kn.MemoryChanged, "memory_write", project=args.project,
                          slug=shown.slug, content=text, description=args.description,
                          type=args.type, revision=shown.revision, force=args.force or None)
    except CommandFailed as exc:
        if exc.code != "confirm":
            raise
        print(f"idea: {exc} (not saved; `idea memory edit -f` overwrites)", file=sys.stderr)
        return 1
    return simple(args, written, written.message)


def cmd_memory_rm(args: argparse.Namespace) -> int:
    result = call_as(args, kn.MemoryChanged, "memory_delete", project=args.project,
                     slug=args.slug)
    return simple(args, result, result.message)


# ─── project context ─────────────────────────────────────────────────────────────────────


def cmd_context_show(args: argparse.Namespace) -> int:
    result = call_as(args, kn.ContextText, "context_read", project=args.project)
    if args.json:
        print_json(result)
    elif result.exists:
        sys.stdout.write(result.content)
    else:
        print("no project context yet (`idea context edit` writes .ideai/CONTEXT.md)")
    return 0


def cmd_context_edit(args: argparse.Namespace) -> int:
    shown = call_as(args, kn.ContextText, "context_read", project=args.project)
    text = _content(args)
    if text is None:
        text = _edit_copy("CONTEXT.md", shown.content)
        if text is None:
            return 1
        if text == shown.content:
            print("CONTEXT.md: no change")
            return 0
    try:
        written = call_as(args, kn.ContextWritten, "context_write", project=args.project,
                          content=text, revision=shown.revision, force=args.force or None)
    except CommandFailed as exc:
        if exc.code != "confirm":
            raise
        print(f"idea: {exc} (not saved; `idea context edit -f` overwrites)", file=sys.stderr)
        return 1
    return simple(args, written, written.message)


def diff_lines(diff: kn.ProposalDiff) -> list[str]:
    """A proposal's diff as unified-diff text lines."""
    lines: list[str] = []
    for hunk in diff.hunks:
        lines.append(hunk.header)
        lines += [f"{kind}{text}" for kind, text, _ in hunk.lines]
    return lines


def cmd_context_proposals(args: argparse.Namespace) -> int:
    result = call_as(args, kn.Proposals, "context_proposals", project=args.project)
    if args.json:
        print_json(result)
        return 0
    for broken in result.broken:
        print(f"idea: {broken.problem}", file=sys.stderr)
    if not result.proposals:
        print("no pending proposals")
    for proposal in result.proposals:
        stale = "  [CONTEXT.md changed since]" if proposal.stale else ""
        reason = f": {proposal.reason}" if proposal.reason else ""
        diff = proposal.diff
        print(f"{proposal.id} from {proposal.author}{reason} "
              f"(+{diff.added} -{diff.removed}){stale}")
        if args.diff:
            for line in diff_lines(diff):
                print(f"    {line}")
    return 0


def cmd_context_accept(args: argparse.Namespace) -> int:
    result = call_as(args, kn.Said, "context_accept", project=args.project, id=args.id)
    return simple(args, result, result.message)


def cmd_context_reject(args: argparse.Namespace) -> int:
    result = call_as(args, kn.Said, "context_reject", project=args.project, id=args.id)
    return simple(args, result, result.message)


def cmd_context_orchestrator(args: argparse.Namespace) -> int:
    result = call_as(args, kn.Orchestrator, "context_orchestrator", project=args.project,
                     agent=args.agent, none=args.none or None)
    name = result.orchestrator
    text = (f"{name} may write the project context (other agents propose)" if name
            else "only you write the project context (agents propose)")
    return simple(args, result, text)


def register(sub: Any) -> None:
    """Add `idea memory …` and `idea context …` to the `idea` parser's subcommands."""
    memory = sub.add_parser("memory", help="the project's shared memory notes (.ideai/memory/)")
    memory.set_defaults(run=cmd_memory_list, project=None, json=False)
    actions = memory.add_subparsers(metavar="ACTION")

    def action(group: Any, name: str, run: Any, text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = group.add_parser(name, help=text, description=text)
        parser.set_defaults(run=run)
        parser.add_argument("-p", "--project", help="the project (default: the current one)")
        json_option(parser)
        return parser

    action(actions, "list", cmd_memory_list, "the notes, as MEMORY.md lists them")
    action(actions, "show", cmd_memory_show, "print a note").add_argument("slug")
    edit = action(actions, "edit", cmd_memory_edit,
                  "edit (or create) a note in $EDITOR, or from --file; MEMORY.md follows")
    edit.add_argument("slug")
    edit.add_argument("--file", help="the note's text from this file ('-': stdin)")
    edit.add_argument("--description", help="its line in MEMORY.md")
    edit.add_argument("--type", choices=("project", "feedback", "reference", "user"))
    edit.add_argument("-f", "--force", action="store_true",
                      help="overwrite even if an agent saved it meanwhile")
    action(actions, "rm", cmd_memory_rm, "delete a note and its index line").add_argument("slug")

    context = sub.add_parser("context", help="the project context (.ideai/CONTEXT.md) and "
                                             "the agents' proposals to change it")
    context.set_defaults(run=cmd_context_show, project=None, json=False)
    cactions = context.add_subparsers(metavar="ACTION")
    action(cactions, "show", cmd_context_show, "print .ideai/CONTEXT.md")
    cedit = action(cactions, "edit", cmd_context_edit, "edit it in $EDITOR, or from --file")
    cedit.add_argument("--file", help="the new text from this file ('-': stdin)")
    cedit.add_argument("-f", "--force", action="store_true",
                       help="overwrite even if it changed meanwhile")
    proposals = action(cactions, "proposals", cmd_context_proposals,
                       "the agents' pending proposals (--diff: with their changes)")
    proposals.add_argument("--diff", action="store_true", help="show each proposal's diff")
    action(cactions, "accept", cmd_context_accept,
           "make a proposal the project context").add_argument("id")
    action(cactions, "reject", cmd_context_reject, "delete a proposal").add_argument("id")
    orchestrator = action(cactions, "orchestrator", cmd_context_orchestrator,
                          "show or choose the one agent that may write the context itself")
    orchestrator.add_argument("agent", nargs="?")
    orchestrator.add_argument("--none", action="store_true", help="no agent: only you")
