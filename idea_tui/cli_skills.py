"""`idea skill list|show|new|edit|rm|assign|unassign`: skills, scriptable (FEATURES.md SKL-6)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from adapters.ipc import answers_knowledge as kn
from idea_tui.cli_agents import _read_content, edit_text
from idea_tui.cli_common import call_as, json_option, print_json, simple


def _scope(args: argparse.Namespace) -> str | None:
    scope: str | None = getattr(args, "scope", None)
    return scope


def _common(args: argparse.Namespace) -> dict[str, Any]:
    return {"project": args.project, "scope": _scope(args)}


def cmd_skill_list(args: argparse.Namespace) -> int:
    result = call_as(args, kn.SkillList, "skill_list", start=True, **_common(args))
    if args.json:
        print_json(result)
        return 0
    if not result.skills:
        print("no skills yet: `idea skill new NAME` (in this project) or "
              "`idea skill new NAME --global` (every project)")
    for skill in result.skills:
        line = f"{skill.scope:<8} {skill.id:<24} {skill.name}"
        if skill.description:
            line += f" — {skill.description}"
        if skill.assigned_to:
            line += f"  [{', '.join(skill.assigned_to)}]"
        print(line)
    for problem in result.problems:
        print(f"! {problem}", file=sys.stderr)
    return 0


def cmd_skill_show(args: argparse.Namespace) -> int:
    result = call_as(args, kn.SkillText, "skill_show", start=True, skill=args.skill,
                     **_common(args))
    if args.json:
        print_json(result)
    else:
        content = result.content
        sys.stdout.write(content if content.endswith("\n") else content + "\n")
    return 0


def starter_skill(name: str) -> str:
    """What a new skill starts with when no text is given."""
    return (f"# {name.strip()}\n\nWhen to use it: (one line; agents see it in their list)\n\n"
            "## Steps\n\n1. \n\n## Done means\n\n")


def cmd_skill_new(args: argparse.Namespace) -> int:
    content = _read_content(args)
    if content is None:
        content = starter_skill(args.name)
        if sys.stdin.isatty() and sys.stdout.isatty():
            edited = edit_text(content)
            if edited is None:
                return 1
            content = edited
    result = call_as(args, kn.Skill, "skill_new", start=True, name=args.name, content=content,
                     **_common(args))
    return simple(args, result, f"{result.scope} skill {result.id} created")


def cmd_skill_edit(args: argparse.Namespace) -> int:
    content = _read_content(args)
    base = None
    if content is None and args.name is None:
        shown = call_as(args, kn.SkillText, "skill_show", start=True, skill=args.skill,
                        **_common(args))
        content = edit_text(shown.content)
        if content is None:
            return 1
        if content == shown.content:
            print(f"skill {shown.id}: no change")
            return 0
        base = shown.revision
    result = call_as(args, kn.SkillUpdated, "skill_update", start=True, skill=args.skill,
                     name=args.name, content=content, revision=base, **_common(args))
    return simple(args, result, f"{result.scope} skill {result.id} saved")


def cmd_skill_rm(args: argparse.Namespace) -> int:
    result = call_as(args, kn.SkillDeleted, "skill_rm", start=True, skill=args.skill,
                     force=args.force, **_common(args))
    return simple(args, result, f"deleted {result.scope} skill {result.deleted}")


def _assign(args: argparse.Namespace, method: str) -> int:
    result = call_as(args, kn.SkillAssignment, method, start=True, skill=args.skill,
                     agent=args.agent, **_common(args))
    if result.assigned:
        text = (f"{result.agent}: skill {result.skill} assigned"
                + ("" if result.changed else " (it already was)"))
    else:
        text = (f"{result.agent}: skill {result.skill} unassigned"
                + ("" if result.changed else " (it was not assigned)"))
    return simple(args, result, text + " — used from its next launch")


def cmd_skill_assign(args: argparse.Namespace) -> int:
    return _assign(args, "skill_assign")


def cmd_skill_unassign(args: argparse.Namespace) -> int:
    return _assign(args, "skill_unassign")


def _scope_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-g", "--global", dest="scope", action="store_const", const="global",
                       help="a global skill (every project)")
    group.add_argument("--local", dest="scope", action="store_const", const="project",
                       help="a skill of this project (.ideai/skills/)")


def register(sub: Any) -> None:
    """Add `idea skill` to the `idea` parser's subcommands."""
    skill = sub.add_parser("skill", help="skills assigned to agents (list, new, assign, ...)")
    skill.set_defaults(run=cmd_skill_list, project=None, json=False, scope=None)
    actions = skill.add_subparsers(metavar="ACTION")

    def action(name: str, run: Any, text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = actions.add_parser(name, help=text, description=text)
        parser.set_defaults(run=run)
        parser.add_argument("-p", "--project", help="the project (default: the current one)")
        _scope_options(parser)
        json_option(parser)
        return parser

    action("list", cmd_skill_list, "the skills of this project and the global ones")
    action("show", cmd_skill_show, "print a skill's Markdown").add_argument("skill")
    new = action("new", cmd_skill_new,
                 "create a skill (from --file, else $EDITOR on a stub); a project skill "
                 "unless --global")
    new.add_argument("name")
    new.add_argument("--file", help="Markdown file, or - for stdin")
    edit = action("edit", cmd_skill_edit, "change a skill (from --file, else $EDITOR)")
    edit.add_argument("skill")
    edit.add_argument("--file", help="Markdown file, or - for stdin")
    edit.add_argument("--name", help="rename it (its id stays)")
    rm = action("rm", cmd_skill_rm, "delete a skill (its assignments in this project go too)")
    rm.add_argument("skill")
    rm.add_argument("-f", "--force", action="store_true",
                    help="do not ask when agents have it assigned")
    for name, run, text in (
        ("assign", cmd_skill_assign, "give an agent a skill (from its next launch)"),
        ("unassign", cmd_skill_unassign, "take a skill off an agent"),
    ):
        parser = action(name, run, text)
        parser.add_argument("skill")
        parser.add_argument("agent")
