"""The `idea` command: attach the TUI, or run one workspace command against the daemon.

Heavy imports (Textual) happen only for the attached screen, so `idea --help`, `idea ls`
and the other subcommands start fast. Every workspace action a key can do has a subcommand
here, so users can script their setups (like tmux) and tests can drive everything.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from adapters.locations import locate
from core.version import VERSION
from idea_tui.cli_common import (
    Runner,
    absolute,
    call_as,
    call_list,
    force_option,
    json_option,
    print_json,
    simple,
)
from idea_tui.control import (
    CommandFailed,
    ControlClient,
    DaemonError,
    NoDaemon,
    wait_daemon_gone,
)

if TYPE_CHECKING:
    from adapters.ipc.answers_workspace import Overview, ProjectDescription


def _print_ls(result: Overview) -> None:
    from idea_tui.cli_cells import cell_state

    if not result.windows:
        print("no windows (create a project with `idea new PATH`)")
    for window in result.windows:
        clients = window.clients
        print(f"window {window.name}" + (f" ({clients} attached)" if clients else ""))
        for project in window.projects:
            mark = "*" if project.active else " "
            print(f" {mark} project {project.name}  {project.root}")
            for problem in project.problems:
                print(f"     ! {problem}")
            for tree in project.worktrees:
                if tree.problem:
                    print(f"     ! worktrees: {tree.problem}")
                    continue
                gone = "  [missing: removed or moved]" if tree.missing else ""
                print(f"     worktree {tree.branch or None}  {tree.path or None}{gone}")
            for page in project.pages:
                pmark = "*" if page.active else " "
                print(f"   {pmark} page {page.name} ({page.kind})")
                for cell in page.cells:
                    what = cell.foreground or cell.command or ""
                    state = cell_state(cell)
                    fmark = "*" if cell.focused else " "
                    flag = f"  [{cell.attention}]" if cell.attention else ""
                    print(f"     {fmark} {cell.index}: {cell.id[:8]} {state} {what}{flag}")
        for kept in window.unavailable:
            print(f"   ! project {kept.name}  {kept.root}  [unavailable: {kept.reason}; "
                  f"`idea open {kept.root}` retries]")
    for problem in result.problems:
        print(f"! {problem}")
    if result.emulator:
        print(f"emulator: {result.emulator}")


# ─── subcommands ───────────────────────────────────────────────────────────────────────


def cmd_attach(args: argparse.Namespace) -> int:
    from idea_tui.attach import refuse_attach

    if refuse_attach(args.force):
        return 1
    window = args.window
    if args.path is not None:
        from idea_tui.cli_open import open_for_attach

        window, code = open_for_attach(args.path, window)
        if code != 0:
            return code
    from idea_tui.attach import attach

    return attach(window=window)


def cmd_ls(args: argparse.Namespace) -> int:
    from adapters.ipc.answers_workspace import Overview

    result = call_as(args, Overview, "ls")
    if args.json:
        print_json(result)
    else:
        _print_ls(result)
    return 0


def cmd_kill_server(args: argparse.Namespace) -> int:
    from adapters.ipc import commands as rpc

    try:
        call_as(args, rpc.StoppingAnswer, "kill_server", force=args.force or None)
    except NoDaemon:
        print("no idea daemon is running")
        return 0
    # Wait for the process to go, so that a following `idea` starts a fresh one.
    if not wait_daemon_gone(locate()):
        print("idea: the daemon did not stop within 5 s", file=sys.stderr)
        return 1
    return 0


def _show_project(args: argparse.Namespace, result: ProjectDescription, verb: str) -> int:
    if args.json:
        print_json(result)
    else:
        print(f"{verb} {result.name} at {result.root} (window {result.window})")
        for problem in result.problems or []:
            print(f"! {problem}", file=sys.stderr)
    return 0


def cmd_project_new(args: argparse.Namespace) -> int:
    from adapters.ipc.answers_workspace import ProjectDescription

    result = call_as(args, ProjectDescription, "project_new", start=True,
                     path=absolute(args.path), name=args.name, window=args.window)
    return _show_project(args, result, "created project")


def cmd_project_open(args: argparse.Namespace) -> int:
    from adapters.ipc.answers_workspace import ProjectDescription

    result = call_as(args, ProjectDescription, "project_open", start=True,
                     path=absolute(args.path), window=args.window)
    return _show_project(args, result, "opened project")


def cmd_project_close(args: argparse.Namespace) -> int:
    from adapters.ipc.answers_workspace import ProjectClosed

    result = call_as(args, ProjectClosed, "project_close", project=args.project,
                     force=args.force or None)
    if args.json:
        print_json(result)
    return 0


def cmd_project_list(args: argparse.Namespace) -> int:
    from adapters.ipc.answers_workspace import ProjectDescription

    result = call_list(args, ProjectDescription, "project_list", start=True)
    if args.json:
        print_json(result)
        return 0
    if not result:
        print("no projects yet: create one with `idea new PATH`")
    for project in result:
        state = f"open in window {project.window}" if project.open else "closed"
        print(f"{project.name:<20} {project.root}  ({state})")
    return 0


def cmd_project_move(args: argparse.Namespace) -> int:
    from adapters.ipc.answers_workspace import ProjectMoved

    result = call_as(args, ProjectMoved, "project_move", project=args.project,
                     window=args.window)
    return simple(args, result, f"moved {result.project} to window {result.window}")


def cmd_project_switch(args: argparse.Namespace) -> int:
    from adapters.ipc.answers_workspace import ProjectDescription

    result = call_as(args, ProjectDescription, "project_switch", which=args.which)
    return simple(args, result, None)


def cmd_window_new(args: argparse.Namespace) -> int:
    from adapters.ipc.answers_workspace import WindowNamed

    result = call_as(args, WindowNamed, "window_new", start=True, name=args.name,
                     project=args.project)
    return simple(args, result, f"window {result.name} created")


def cmd_window_list(args: argparse.Namespace) -> int:
    from adapters.ipc.answers_workspace import WindowDescription

    result = call_list(args, WindowDescription, "window_list")
    if args.json:
        print_json(result)
        return 0
    for window in result:
        projects = ", ".join(window.projects) or "(empty)"
        print(
            f"{window.name:<16} {window.width}x{window.height}  "
            f"{window.clients} attached  {projects}"
        )
    return 0


def cmd_window_rename(args: argparse.Namespace) -> int:
    from adapters.ipc.answers_workspace import WindowNamed

    result = call_as(args, WindowNamed, "window_rename", window=args.window, name=args.name)
    return simple(args, result, f"window renamed to {result.name}")


def cmd_layout(args: argparse.Namespace) -> int:
    from adapters.ipc.answers_workspace import PageClosed, PageDescription, PageNamed

    action = args.layout_action or "list"
    args.project = args.project or args.group_project
    args.json = args.json or args.group_json
    result: object
    if action == "list":
        pages = call_list(args, PageDescription, "layout_list", project=args.project)
        if not args.json:
            for page in pages:
                mark = "*" if page.active else " "
                print(f"{mark} {page.name:<20} {page.kind:<9} {page.cells} cells")
            return 0
        result = pages
    elif action == "new":
        result = call_as(args, PageNamed, "layout_new", project=args.project, name=args.name,
                         kind=getattr(args, "kind", None))
    elif action == "switch":
        result = call_as(args, PageNamed, "layout_switch", project=args.project,
                         page=args.page)
    elif action == "rename":
        result = call_as(args, PageNamed, "layout_rename", project=args.project,
                         page=args.page, name=args.name)
    elif action == "close":
        result = call_as(args, PageClosed, "layout_close", project=args.project,
                         page=args.page, force=args.force or None)
    else:
        raise CommandFailed("usage", f"unknown layout action {action!r}")
    return simple(args, result, None)


def cmd_detach(args: argparse.Namespace) -> int:
    from adapters.ipc import commands as rpc

    result = call_as(args, rpc.DetachedAnswer, "detach", window=args.window)
    return simple(args, result, f"detached {result.detached} client(s)")


def version_text() -> str:
    """`idea VERSION` and the emulator backend: the running daemon's (it chose it when it
    started), else the setting a daemon started now would choose with."""
    try:
        from adapters.ipc.commands import VersionAnswer

        with ControlClient.connect(locate(), start=False) as client:
            emulator = client.call_as(VersionAnswer, "version").emulator
    except (NoDaemon, CommandFailed, OSError):
        emulator = None
    if emulator is None:
        from adapters.config import load_config

        config, _ = load_config(locate().config_file)
        emulator = f"{config.emulator} (no daemon running; "
        emulator += ("ghostty where libghostty-vt loads, else pyte)" if config.emulator == "auto"
                     else "set in config.toml)")
    return f"idea {VERSION}\nemulator: {emulator}"


class _VersionAction(argparse.Action):
    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(version_text())
        parser.exit()


def cmd_version(args: argparse.Namespace) -> int:
    print(version_text())
    return 0


def cmd_mcp_server(args: argparse.Namespace) -> int:
    # The stdio bridge an agent CLI spawns: headless, standard library only (MCP-3).
    from adapters.mcp.bridge_client import run_bridge

    return run_bridge(args.config)


def cmd_daemon(args: argparse.Namespace) -> int:
    # The client never imports the daemon (the layers stay apart): this process becomes
    # `python -m idea_daemon`, as `idea` itself starts it.
    argv = [sys.executable, "-m", "idea_daemon", *(["--foreground"] if args.foreground else [])]
    os.execv(sys.executable, argv)


# ─── parser ────────────────────────────────────────────────────────────────────────────

ATTACH_HELP = "attach the workspace screen (default)"


def attach_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-w", "--window", help="the window to show")
    parser.add_argument("-f", "--force", action="store_true", help="attach even inside a cell")
    parser.add_argument("path", nargs="?", metavar="PATH",
                        help="open the project at PATH first (asks before creating one); "
                        "`idea PATH` is the same")


def _obvious_path(word: str) -> bool:
    """A first word that can only be a folder: no command has a slash or starts with ~."""
    return word in (".", "..") or "/" in word or word.startswith("~")


def attach_args(argv: list[str]) -> argparse.Namespace | None:
    """The options of `idea`, `idea attach …`, `idea a …` and `idea PATH …` read without
    building the whole command table (and importing every subcommand module): attaching is
    what a user waits for. None for anything else, `--help` included (the full parser
    answers that)."""
    if not argv:
        rest: list[str] = []
    elif argv[0] in ("attach", "a"):
        rest = argv[1:]
    elif _obvious_path(argv[0]):
        rest = argv
    else:
        return None
    if "-h" in rest or "--help" in rest:
        return None
    parser = argparse.ArgumentParser(prog="idea attach", description=ATTACH_HELP)
    attach_arguments(parser)
    args = parser.parse_args(rest)
    args.run = cmd_attach
    return args


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="idea",
        description="A terminal workspace for a team of AI coding agents. "
        "Without a command, attach to the workspace (starting the daemon); "
        "`idea PATH` (e.g. `idea .`) opens the project at PATH and attaches.",
    )
    parser.add_argument("--version", action=_VersionAction)
    parser.set_defaults(run=cmd_attach, window=None, force=False, path=None)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    def add(
        name: str, run: Runner, help_text: str, aliases: tuple[str, ...] = (), add_help: bool = True
    ) -> argparse.ArgumentParser:
        command = sub.add_parser(
            name, help=help_text, description=help_text, aliases=list(aliases), add_help=add_help
        )
        command.set_defaults(run=run)
        return command

    attach_arguments(add("attach", cmd_attach, ATTACH_HELP, ("a",)))

    json_option(add("ls", cmd_ls, "windows, projects, pages, cells and their programs"))
    force_option(add("kill-server", cmd_kill_server, "stop the daemon and every program in it"))

    for name, run, text in (
        ("new", cmd_project_new, "create a project at PATH and open it"),
        ("open", cmd_project_open, "open the project at PATH"),
    ):
        command = add(name, run, text)
        command.add_argument("path", metavar="PATH")
        if name == "new":
            command.add_argument("--name", help="display name (default: the folder's name)")
        command.add_argument("-w", "--window", help="the window to open it in")
        json_option(command)

    project = add("project", cmd_project_list, "manage projects (new, open, close, list, ...)")
    project_sub = project.add_subparsers(metavar="ACTION")
    for name, run, text in (
        ("new", cmd_project_new, "create a project at PATH"),
        ("open", cmd_project_open, "open the project at PATH"),
    ):
        command = project_sub.add_parser(name, help=text)
        command.set_defaults(run=run)
        command.add_argument("path", metavar="PATH")
        if name == "new":
            command.add_argument("--name")
        command.add_argument("-w", "--window")
        json_option(command)
    close_p = project_sub.add_parser("close", help="close a project (default: the current one)")
    close_p.set_defaults(run=cmd_project_close)
    close_p.add_argument("project", nargs="?")
    force_option(close_p)
    json_option(close_p)
    list_p = project_sub.add_parser("list", help="known projects")
    list_p.set_defaults(run=cmd_project_list)
    json_option(list_p)
    json_option(project)
    move_p = project_sub.add_parser("move", help="move a project to another window")
    move_p.set_defaults(run=cmd_project_move)
    move_p.add_argument("project")
    move_p.add_argument("window")
    json_option(move_p)
    switch_p = project_sub.add_parser("switch", help="show another project tab")
    switch_p.set_defaults(run=cmd_project_switch)
    switch_p.add_argument("which", help="next, prev, a tab number or a project name")
    json_option(switch_p)

    window = add("window", cmd_window_list, "manage windows (new, list, rename)")
    window_sub = window.add_subparsers(metavar="ACTION")
    wnew = window_sub.add_parser("new", help="create a window (optionally moving a project)")
    wnew.set_defaults(run=cmd_window_new)
    wnew.add_argument("name")
    wnew.add_argument("project", nargs="?")
    json_option(wnew)
    wlist = window_sub.add_parser("list", help="list windows")
    wlist.set_defaults(run=cmd_window_list)
    json_option(wlist)
    json_option(window)
    wren = window_sub.add_parser("rename", help="rename a window")
    wren.set_defaults(run=cmd_window_rename)
    wren.add_argument("name", help="the new name")
    wren.add_argument("-w", "--window", help="the window (default: the current one)")
    json_option(wren)

    from idea_tui.cli_cells import register as register_cells

    register_cells(add)

    layout = add("layout", cmd_layout, "pages of a project (list, new, switch, rename, close)")
    layout.set_defaults(layout_action="list", page=None, name=None, force=False)
    layout_sub = layout.add_subparsers(dest="layout_action", metavar="ACTION")

    def layout_action(name: str, help_text: str) -> argparse.ArgumentParser:
        # --json and -p on every action, so that they can come last as everywhere else.
        action = layout_sub.add_parser(name, help=help_text)
        action.add_argument("-p", "--project", help="the project (default: the current one)")
        json_option(action)
        return action

    layout_action("list", "list pages")
    lnew = layout_action("new", "add a page")
    lnew.add_argument("name", nargs="?")
    lnew.add_argument("--kind", choices=("terminal", "gitGraph"), default=None,
                      help="terminal (default) or gitGraph (the commit graph)")
    layout_action("switch", "show a page: a name, #N, N, next or prev").add_argument("page")
    lren = layout_action("rename", "rename the current page (or --page)")
    lren.add_argument("name")
    lren.add_argument("--page")
    lclose = layout_action("close", "close a page")
    lclose.add_argument("page", nargs="?")
    force_option(lclose)
    # `idea layout [-p P] [--json]` alone lists the pages. These options of the group get
    # their own names: argparse lets a subcommand's defaults overwrite the group's values.
    layout.add_argument("-p", "--project", dest="group_project", help="the project")
    layout.add_argument("--json", dest="group_json", action="store_true", help="structured output")
    layout.set_defaults(project=None, json=False)

    detach = add("detach", cmd_detach, "detach the clients of a window", ("detach-client",))
    detach.add_argument("-w", "--window")
    json_option(detach)

    from idea_tui.cli_agents import register as register_agents

    register_agents(sub)

    from idea_tui.cli_skills import register as register_skills

    register_skills(sub)

    from idea_tui.cli_git import register as register_git

    register_git(sub)

    from idea_tui.cli_conversations import register as register_conversations

    register_conversations(sub)

    from idea_tui.cli_knowledge import register as register_knowledge

    register_knowledge(sub)

    bridge = add(
        "mcp-server",
        cmd_mcp_server,
        "relay an agent CLI's MCP stdio to the daemon (spawned by the CLI, not by you)",
    )
    bridge.add_argument("--config", default="", help="the MCP config idea wrote for the agent")

    add("version", cmd_version, "print the version")
    daemon = add("daemon", cmd_daemon, "run the daemon (started automatically)")
    daemon.add_argument("--foreground", action="store_true")
    return parser


def subcommand_names(parser: argparse.ArgumentParser) -> set[str]:
    names: set[str] = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            names.update(action.choices)
    return names


def parse(argv: list[str]) -> argparse.Namespace:
    fast = attach_args(argv)
    if fast is not None:
        return fast
    parser = build_parser()
    if argv:
        from idea_tui.cli_open import looks_like_path

        if looks_like_path(argv[0], subcommand_names(parser)):
            # `idea PATH [OPTIONS]`, like `code .`: `idea attach PATH [OPTIONS]`.
            argv = ["attach", *argv]
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else list(argv))
    run: Runner = args.run
    try:
        return run(args)
    except CommandFailed as exc:
        print(f"idea: {exc}", file=sys.stderr)
        return 1
    except DaemonError as exc:
        print(f"idea: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
