"""`idea agent|template|profile`: the agent actions of the workspace, scriptable."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from adapters.ipc import answers_agents as ag
from adapters.ipc import answers_git as git
from idea_tui.cli_common import (
    call_as,
    call_list,
    force_option,
    json_option,
    print_json,
    simple,
)
from idea_tui.control import CommandFailed

T = TypeVar("T")
D = TypeVar("D")


def _editor() -> list[str]:
    return shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")


def _edit_file(path: str) -> int:
    try:
        return subprocess.call([*_editor(), path])
    except OSError as exc:
        print(f"idea: cannot start the editor ({exc.strerror}): set $EDITOR", file=sys.stderr)
        return 1


def edit_text(text: str) -> str | None:
    """`text` opened in $VISUAL/$EDITOR in a temporary `.md` file; the saved text, or None
    when the editor failed (a message was printed)."""
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as handle:
        handle.write(text)
    try:
        if _edit_file(handle.name) != 0:
            return None
        return Path(handle.name).read_text(encoding="utf-8")
    finally:
        os.unlink(handle.name)


def _read_content(args: argparse.Namespace) -> str | None:
    if getattr(args, "file", None) is None:
        return None
    if args.file == "-":
        return sys.stdin.read()
    try:
        return Path(args.file).read_text(encoding="utf-8")
    except OSError as exc:
        raise SystemExit(f"idea: cannot read {args.file}: {exc.strerror}") from exc


# ─── agents ────────────────────────────────────────────────────────────────────────────


def _agents_table(agents: list[ag.AgentDescription]) -> None:
    from idea_tui.cli_orchestration import team_activity
    from idea_tui.limit_words import limit_words

    if not agents:
        print("no agents yet: `idea agent new NAME` or `idea agent new NAME --template T`")
    for agent in agents:
        state = agent.state
        if state == "running":
            state = (
                "running in background"
                if agent.background is True
                else f"running in {_where(agent.target, _where(agent.cell, '?'))}"
            )
        elif state == "exited":
            state = f"exited with code {_where(agent.exit_code, None)}"
        elif state == "failed":
            state = f"failed: {_where(agent.error, '')}"
        badge = ""
        update = agent.update_available
        if not isinstance(update, msgspec.UnsetType):
            badge = f"  [update available v{update.from_version} → v{update.to_version}]"
        # The wording helpers are shared with the Agents panel, which reads the wire map.
        wire = msgspec.to_builtins(agent)
        if agent.state == "running":
            state += team_activity(wire)
        limited = limit_words(wire)
        if limited:
            state += f" · {limited}"
        print(f"{agent.name:<18} {_where(agent.profile_id, '?'):<12} {state}{badge}")


def _where(value: T | msgspec.UnsetType, default: D) -> T | D:
    """A field the daemon may leave out, or `default`."""
    return default if isinstance(value, msgspec.UnsetType) else value


def cmd_agent_list(args: argparse.Namespace) -> int:
    result = call_list(args, ag.AgentDescription, "agent_list", project=args.project)
    if args.json:
        print_json(result)
    else:
        _agents_table(result)
    return 0


def cmd_agent_new(args: argparse.Namespace) -> int:
    result = call_as(
        args,
        ag.AgentCreated,
        "agent_new",
        project=args.project,
        name=args.name,
        profile=args.profile,
        template=args.template,
        sync=args.sync or None,
    )
    return simple(args, result, f"agent {result.name} created: {result.path}")


def cmd_agent_edit(args: argparse.Namespace) -> int:
    """$EDITOR on a copy of the persona; the daemon writes it back (the project's files are
    the daemon's: it may run on another machine)."""
    shown = call_as(args, ag.PersonaText, "agent_persona_read", project=args.project,
                    agent=args.agent)
    with tempfile.TemporaryDirectory(prefix="idea-persona-") as folder:
        copy = Path(folder) / Path(shown.path).name
        copy.write_text(shown.content, encoding="utf-8")
        code = _edit_file(str(copy))
        if code != 0:
            return code
        text = copy.read_text(encoding="utf-8")
    if text == shown.content:
        print(f"{shown.path}: no change")
        return 0
    try:
        written = call_as(args, ag.PersonaWritten, "agent_persona_write", project=args.project,
                          agent=args.agent, content=text, revision=shown.revision,
                          force=args.force or None)
    except CommandFailed as exc:
        if exc.code != "confirm":
            raise
        print(f"idea: {exc} (not saved; `idea agent edit -f` overwrites)", file=sys.stderr)
        return 1
    print(f"saved {written.path}")
    return 0


def cmd_agent_rename(args: argparse.Namespace) -> int:
    result = call_as(args, ag.AgentRenamed, "agent_rename", project=args.project,
                     agent=args.agent, name=args.name)
    return simple(args, result, f"renamed to {result.name}")


def cmd_agent_rm(args: argparse.Namespace) -> int:
    result = call_as(args, ag.AgentDeleted, "agent_rm", project=args.project,
                     agent=args.agent, force=args.force or None)
    return simple(args, result, f"deleted agent {result.deleted}")


def _state_line(result: ag.AgentDescription) -> str:
    if result.state == "failed":
        return f"{result.name}: failed: {_where(result.error, '')}"
    if result.state == "running" and result.background is True:
        where = "the background"
    else:
        where = _where(result.target, "the background"
                       if isinstance(result.cell, msgspec.UnsetType) else "a cell")
    return f"{result.name}: {result.state} in {where}"


def cmd_agent_launch(args: argparse.Namespace) -> int:
    result = call_as(
        args,
        ag.AgentDescription,
        "agent_launch",
        project=args.project,
        agent=args.agent,
        target=args.target,
        split=args.split is not None or None,
        direction="down" if args.split == "v" else "right",
        background=args.background or None,
        resume=args.resume or None,
        force=args.force or None,
        move=args.move or None,
        worktree=args.worktree,
    )
    return simple(args, result, _state_line(result))


def cmd_agent_worktree(args: argparse.Namespace) -> int:
    result = call_as(args, git.AgentWorktree, "agent_worktree", project=args.project,
                     agent=args.agent, branch=args.branch, forget=args.forget or None)
    text = (f"{args.agent}: worktree forgotten" if args.forget
            else f"{args.agent}: {result.path} on {result.branch}")
    return simple(args, result, text)


def cmd_agent_finish(args: argparse.Namespace) -> int:
    result = call_as(args, git.AgentFinished, "agent_finish", project=args.project,
                     agent=args.agent, how=args.how, force=args.force or None)
    if args.how == "merge":
        text = f"merged {result.merged} into {result.into} ({str(result.oid)[:10]})"
    elif args.how == "keep":
        text = f"kept branch {result.kept}; the worktree is removed"
    else:
        text = f"discarded {result.discarded}; backup in {result.backup}"
    return simple(args, result, text)


def cmd_agent_changes(args: argparse.Namespace) -> int:
    result = call_as(args, git.AgentChanges, "agent_changes", project=args.project,
                     agent=args.agent)
    if args.json:
        print_json(result)
        return 0
    print(f"{args.agent} works in {result.path} on {result.branch}"
          f" (from {result.base} at {str(result.base_oid)[:10]})")
    for commit in result.commits:
        print(f"  {commit.oid[:10]} {commit.subject}")
    sections = (("committed", result.committed), ("staged", result.staged),
                ("unstaged", result.unstaged))
    for section, files in sections:
        if files:
            print(f"{section}:")
        for item in files:
            print(f"  {item.change} {item.path}  +{item.added} -{item.removed}")
    if not any(files for _, files in sections):
        print("no changes yet")
    return 0


def cmd_agent_stop(args: argparse.Namespace) -> int:
    result = call_as(args, ag.AgentDescription, "agent_stop", project=args.project,
                     agent=args.agent)
    return simple(args, result, f"{result.name}: stopped")


def cmd_agent_restart(args: argparse.Namespace) -> int:
    result = call_as(args, ag.AgentDescription, "agent_restart", project=args.project,
                     agent=args.agent, resume=args.resume or None)
    return simple(args, result, _state_line(result))


def cmd_agent_set_profile(args: argparse.Namespace) -> int:
    result = call_as(
        args,
        ag.AgentDescription,
        "agent_set_profile",
        project=args.project,
        agent=args.agent,
        profile=args.profile,
        force=args.force or None,
    )
    return simple(args, result, f"{result.name} now uses {_where(result.profile_id, '?')}")


def cmd_agent_resume(args: argparse.Namespace) -> int:
    from idea_tui.cli_limits import cmd_limit_resume, wants_limit_control

    if wants_limit_control(args):
        return cmd_limit_resume(args)
    if args.list:
        resumable = call_list(args, ag.ResumableAgent, "agent_resumable",
                              project=args.project, all=args.all or None)
        if args.json:
            print_json(resumable)
        for entry in [] if args.json else resumable:
            how = "resume" if entry.resume_supported else "fresh start"
            print(f"{entry.project}: {entry.agent} ({how})")
        return 0
    result = call_list(args, ag.AgentDescription, "agent_resume", project=args.project,
                       all=args.all or None, agents=args.agents or None)
    if args.json:
        print_json(result)
    elif not result:
        print("nothing to resume")
    for described in [] if args.json else result:
        print(_state_line(described))
    return 0


def cmd_agent_sync(args: argparse.Namespace) -> int:
    result = call_as(args, ag.AgentSynced, "agent_sync", project=args.project,
                     agent=args.agent, force=args.force or None)
    backup = f" (your version kept in {result.backup})" if result.backup else ""
    return simple(
        args,
        result,
        f"{result.agent}: synced with {result.template} "
        f"v{result.version} ({result.status}){backup}",
    )


def cmd_agent_keep_in_sync(args: argparse.Namespace) -> int:
    result = call_as(args, ag.AgentSyncSet, "agent_set_sync", project=args.project,
                     agent=args.agent, on=args.state == "on")
    return simple(
        args, result, f"{result.name}: keep in sync {'on' if result.synchronized else 'off'}"
    )


# ─── templates ─────────────────────────────────────────────────────────────────────────


def cmd_template_list(args: argparse.Namespace) -> int:
    result = call_as(args, ag.TemplateList, "template_list", start=True)
    if args.json:
        print_json(result)
        return 0
    if not result.templates:
        print("no templates: `idea template install-pack` adds a software team")
    for template in result.templates:
        print(f"{template.id:<20} v{template.version:<4} {template.name}")
    for problem in result.problems:
        print(f"! {problem}", file=sys.stderr)
    return 0


def cmd_template_new(args: argparse.Namespace) -> int:
    content = _read_content(args)
    if content is None:
        content = f"# {args.name}\n\n## Role\n\n## How to work\n\n## Done means\n"
    result = call_as(args, ag.TemplateNamed, "template_new", start=True, name=args.name,
                     content=content, profile=args.profile)
    return simple(args, result, f"template {result.id} v{result.version} created")


def cmd_template_show(args: argparse.Namespace) -> int:
    result = call_as(args, ag.TemplateText, "template_show", start=True,
                     template=args.template)
    if args.json:
        print_json(result)
    else:
        sys.stdout.write(result.content)
    return 0


def cmd_template_update(args: argparse.Namespace) -> int:
    content = _read_content(args)
    if content is None and args.name is None:
        shown = call_as(args, ag.TemplateText, "template_show", start=True,
                        template=args.template)
        content = edit_text(shown.content)
        if content is None:
            return 1
    result = call_as(args, ag.TemplateNamed, "template_update", start=True,
                     template=args.template, content=content, name=args.name)
    return simple(args, result, f"template {result.id} is now v{result.version}")


def cmd_template_rm(args: argparse.Namespace) -> int:
    result = call_as(args, ag.TemplateDeleted, "template_rm", start=True,
                     template=args.template)
    return simple(args, result, f"deleted template {result.deleted}")


def cmd_template_install_pack(args: argparse.Namespace) -> int:
    result = call_list(args, ag.TemplateNamed, "template_install_pack", start=True)
    return simple(args, result, "installed: " + ", ".join(t.name for t in result))


# ─── profiles ──────────────────────────────────────────────────────────────────────────


def cmd_profile_list(args: argparse.Namespace) -> int:
    result = call_as(args, ag.ProfileList, "profile_list", start=True)
    if args.json:
        print_json(result)
        return 0
    for profile in result.profiles:
        injection = profile.get("contextInjection", {}).get("strategy", "?")
        print(
            f"{profile['id']:<14} {profile['name']:<16} {profile['command']:<10} "
            f"{injection:<15} {profile['source']}"
        )
    return 0


def cmd_profile_add(args: argparse.Namespace) -> int:
    result = call_as(args, ag.ProfileMap, "profile_add", start=True,
                     file=os.path.abspath(args.file))
    return simple(args, result, f"profile {result['id']} added")


def cmd_profile_edit(args: argparse.Namespace) -> int:
    if args.file is not None:
        result = call_as(args, ag.ProfileMap, "profile_edit", start=True,
                         file=os.path.abspath(args.file))
        return simple(args, result, f"profile {result['id']} saved")
    listed = call_as(args, ag.ProfileList, "profile_list", start=True).profiles
    current = next((p for p in listed if p.get("id") == args.profile), None)
    if current is None:
        print(f"idea: no profile {args.profile!r} (`idea profile list`)", file=sys.stderr)
        return 1
    current.pop("source", None)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(current, handle, indent=2)
    if _edit_file(handle.name) != 0:
        return 1
    result = call_as(args, ag.ProfileMap, "profile_edit", start=True, file=handle.name)
    os.unlink(handle.name)
    return simple(args, result, f"profile {result['id']} saved")


def cmd_profile_rm(args: argparse.Namespace) -> int:
    result = call_as(args, ag.ProfileRemoved, "profile_rm", start=True, profile=args.profile)
    note = ""
    if result.used_by:
        note = f" (still named by {', '.join(result.used_by)}: change their profile)"
    return simple(args, result, f"profile {result.removed} removed{note}")


def cmd_profile_detect(args: argparse.Namespace) -> int:
    result = call_list(args, ag.ProfileDetection, "profile_detect", start=True)
    if args.json:
        print_json(result)
        return 0
    for entry in result:
        state = {True: "found", False: "not found", None: "no detect command"}[entry.found]
        print(f"{entry.id:<14} {state:<18} {entry.detail}")
    return 0


# ─── parser ────────────────────────────────────────────────────────────────────────────


def _project_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-p", "--project", help="the project (default: the current one)")


def register(sub: Any) -> None:
    """Add the agent, template and profile commands to the `idea` parser's subcommands."""
    agent = sub.add_parser("agent", help="the project's agents (new, list, launch, ...)")
    agent.set_defaults(run=cmd_agent_list, project=None, json=False)
    actions = agent.add_subparsers(metavar="ACTION")

    def action(name: str, run: Any, text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = actions.add_parser(name, help=text, description=text)
        parser.set_defaults(run=run)
        _project_option(parser)
        json_option(parser)
        return parser

    action("list", cmd_agent_list, "agents with their state")
    new = action("new", cmd_agent_new, "create an agent (from scratch or a template)")
    new.add_argument("name")
    new.add_argument("--profile", help="the CLI profile (default: the template's, or claude-code)")
    new.add_argument("--template", help="start from this template")
    new.add_argument("--sync", action="store_true", help="keep it in sync with the template")
    edit = action("edit", cmd_agent_edit, "edit the agent's Markdown in $EDITOR")
    edit.add_argument("agent")
    edit.add_argument("-f", "--force", action="store_true",
                      help="save even if the file changed on disk meanwhile")
    rename = action("rename", cmd_agent_rename, "rename an agent (its file keeps its name)")
    rename.add_argument("agent")
    rename.add_argument("name")
    rm = action("rm", cmd_agent_rm, "delete an agent (stops it; its Markdown goes to the trash)")
    rm.add_argument("agent")
    force_option(rm)
    launch = action(
        "launch",
        cmd_agent_launch,
        "launch an agent: new split (default), a cell (-t) or the background",
    )
    launch.add_argument("agent")
    launch.add_argument("-t", "--target", help="the cell to launch in (or next to, with --split)")
    launch.add_argument("--split", choices=("h", "v"), help="in a new cell beside (h) or below (v)")
    launch.add_argument("--background", action="store_true", help="no cell")
    launch.add_argument("--resume", action="store_true", help="continue its last conversation")
    launch.add_argument("--move", action="store_true",
                        help="running in another cell: show it in the -t cell instead")
    launch.add_argument("--worktree", nargs="?", const=True, default=None, metavar="BRANCH",
                        help="in its own git worktree (on BRANCH, default idea/<agent>)")
    force_option(launch)
    tree = action("worktree", cmd_agent_worktree,
                  "the agent's own git worktree (made if it has none)")
    tree.add_argument("agent")
    tree.add_argument("--branch", help="the branch of a new one (default idea/<agent>)")
    tree.add_argument("--forget", action="store_true",
                      help="forget a worktree that was removed or moved")
    finish = action("finish", cmd_agent_finish,
                    "end the agent's worktree: merge its branch, keep it, or discard it")
    finish.add_argument("agent")
    finish.add_argument("how", choices=("merge", "keep", "discard"))
    force_option(finish)
    changes = action("changes", cmd_agent_changes,
                     "what the agent changed in its worktree (commits and uncommitted)")
    changes.add_argument("agent")
    action("stop", cmd_agent_stop, "stop a running agent").add_argument("agent")
    restart = action("restart", cmd_agent_restart, "stop and launch again where it was")
    restart.add_argument("agent")
    restart.add_argument("--resume", action="store_true", help="continue its conversation")
    swap = action(
        "set-profile",
        cmd_agent_set_profile,
        "change the agent's CLI profile (a running agent restarts)",
    )
    swap.add_argument("agent")
    swap.add_argument("profile")
    force_option(swap)
    resume = action("resume", cmd_agent_resume,
                    "resume the agents that were running; or one at a usage limit: when")
    resume.add_argument("agents", nargs="*", metavar="AGENT")
    resume.add_argument("--all", action="store_true", help="in every open project")
    resume.add_argument("--list", action="store_true", help="only list what can be resumed")
    from idea_tui.cli_limits import register_fallback, register_resume_options

    register_resume_options(resume)
    register_fallback(action)
    sync = action("sync", cmd_agent_sync, "update the agent's Markdown from its template")
    sync.add_argument("agent")
    force_option(sync)
    from idea_tui.cli_orchestration import register as register_orchestration

    register_orchestration(sub, actions)
    keep = action("keep-in-sync", cmd_agent_keep_in_sync, "turn template sync on or off")
    keep.add_argument("agent")
    keep.add_argument("state", choices=("on", "off"))

    template = sub.add_parser("template", help="global agent templates (new, list, update, ...)")
    template.set_defaults(run=cmd_template_list, json=False)
    tactions = template.add_subparsers(metavar="ACTION")

    def taction(name: str, run: Any, text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = tactions.add_parser(name, help=text, description=text)
        parser.set_defaults(run=run)
        json_option(parser)
        return parser

    taction("list", cmd_template_list, "templates with their versions")
    tnew = taction("new", cmd_template_new, "create a template (content from --file, or a stub)")
    tnew.add_argument("name")
    tnew.add_argument("--file", help="Markdown file, or - for stdin")
    tnew.add_argument("--profile", help="default profile of agents made from it")
    taction("show", cmd_template_show, "print a template's Markdown").add_argument("template")
    tupdate = taction(
        "update",
        cmd_template_update,
        "new content (from --file, else $EDITOR): the version goes up",
    )
    tupdate.add_argument("template")
    tupdate.add_argument("--file", help="Markdown file, or - for stdin")
    tupdate.add_argument("--name", help="rename it")
    taction("rm", cmd_template_rm, "delete a template").add_argument("template")
    tsync = taction("sync", cmd_agent_sync, "sync an agent with its template")
    tsync.add_argument("agent")
    tsync.set_defaults(project=None)
    force_option(tsync)
    taction(
        "install-pack",
        cmd_template_install_pack,
        "add the software team templates (conductor, architect, developer, QA, git keeper)",
    )

    profile = sub.add_parser("profile", help="AI CLI profiles (list, add, edit, detect)")
    profile.set_defaults(run=cmd_profile_list, json=False)
    pactions = profile.add_subparsers(metavar="ACTION")

    def paction(name: str, run: Any, text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = pactions.add_parser(name, help=text, description=text)
        parser.set_defaults(run=run)
        json_option(parser)
        return parser

    paction("list", cmd_profile_list, "configured and built-in profiles")
    paction(
        "add", cmd_profile_add, "add a profile from a JSON file (profiles.json format)"
    ).add_argument("file", metavar="FILE.json")
    pedit = paction("edit", cmd_profile_edit, "edit a profile in $EDITOR (or from --file)")
    pedit.add_argument("profile")
    pedit.add_argument("--file", help="the profile as JSON")
    paction("rm", cmd_profile_rm, "remove a configured profile (built-ins stay available)"
            ).add_argument("profile")
    paction("detect", cmd_profile_detect, "which CLIs are installed")
