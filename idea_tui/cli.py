"""The `idea` command: attach the TUI, or run one workspace command against the daemon.

Heavy imports (Textual) happen only for the attached screen, so `idea --help`, `idea ls`
and the other subcommands start fast. Every workspace action a key can do has a subcommand
here, so users can script their setups (like tmux) and tests can drive everything.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from adapters.locations import locate
from core.version import VERSION
from idea_tui.cli_common import (
    Runner,
    absolute,
    call,
    force_option,
    json_option,
    print_json,
    side_options,
    simple,
    target_option,
)
from idea_tui.control import (
    CommandFailed,
    DaemonError,
    NoDaemon,
    wait_daemon_gone,
)


def _cell_state(cell: dict[str, Any]) -> str:
    """running, exited N, or why nothing runs (a start error, or stopped)."""
    if cell.get("running"):
        return "running"
    if cell.get("exitCode") is not None:
        return f"exited {cell['exitCode']}"
    return str(cell.get("error", "stopped"))


def _cells_table(cells: list[dict[str, Any]]) -> None:
    for cell in cells:
        state = _cell_state(cell)
        what = cell.get("foreground") or cell.get("command") or ""
        mark = "*" if cell.get("focused") else " "
        size = f"{cell.get('cols', '?')}x{cell.get('rows', '?')}"
        print(f"{mark} {cell['target']:<30} {cell['id'][:8]}  {size:>7}  {state:<10} {what}")


def _print_ls(result: dict[str, Any]) -> None:
    if not result["windows"]:
        print("no windows (create a project with `idea new PATH`)")
    for window in result["windows"]:
        clients = window["clients"]
        print(f"window {window['name']}" + (f" ({clients} attached)" if clients else ""))
        for project in window["projects"]:
            mark = "*" if project["active"] else " "
            print(f" {mark} project {project['name']}  {project['root']}")
            for problem in project.get("problems", []):
                print(f"     ! {problem}")
            for page in project["pages"]:
                pmark = "*" if page["active"] else " "
                print(f"   {pmark} page {page['name']} ({page['kind']})")
                for cell in page["cells"]:
                    what = cell.get("foreground") or cell.get("command") or ""
                    state = _cell_state(cell)
                    fmark = "*" if cell.get("focused") else " "
                    flag = f"  [{cell['attention']}]" if cell.get("attention") else ""
                    print(f"     {fmark} {cell['index']}: {cell['id'][:8]} {state} {what}{flag}")
    for problem in result.get("problems", []):
        print(f"! {problem}")


# ─── subcommands ───────────────────────────────────────────────────────────────────────


def cmd_attach(args: argparse.Namespace) -> int:
    if os.environ.get("IDEA_CELL") and not args.force:
        print(
            "idea: refusing to attach inside an idea cell (this would nest the screen in "
            "itself); use -f to force",
            file=sys.stderr,
        )
        return 1
    if not sys.stdin.isatty() or not sys.stdout.isatty():
        print("idea: attaching needs a terminal (stdin and stdout must be a TTY)", file=sys.stderr)
        return 1
    from idea_tui.attach import attach

    return attach(window=args.window)


def cmd_ls(args: argparse.Namespace) -> int:
    result = call(args, "ls")
    if args.json:
        print_json(result)
    else:
        _print_ls(result)
    return 0


def cmd_kill_server(args: argparse.Namespace) -> int:
    try:
        call(args, "kill_server", force=args.force or None)
    except NoDaemon:
        print("no idea daemon is running")
        return 0
    # Wait for the process to go, so that a following `idea` starts a fresh one.
    if not wait_daemon_gone(locate()):
        print("idea: the daemon did not stop within 5 s", file=sys.stderr)
        return 1
    return 0


def _show_project(args: argparse.Namespace, result: dict[str, Any], verb: str) -> int:
    if args.json:
        print_json(result)
    else:
        print(f"{verb} {result['name']} at {result['root']} (window {result['window']})")
        for problem in result.get("problems", []):
            print(f"! {problem}", file=sys.stderr)
    return 0


def cmd_project_new(args: argparse.Namespace) -> int:
    result = call(
        args,
        "project_new",
        start=True,
        path=absolute(args.path),
        name=args.name,
        window=args.window,
    )
    return _show_project(args, result, "created project")


def cmd_project_open(args: argparse.Namespace) -> int:
    result = call(args, "project_open", start=True, path=absolute(args.path), window=args.window)
    return _show_project(args, result, "opened project")


def cmd_project_close(args: argparse.Namespace) -> int:
    result = call(args, "project_close", project=args.project, force=args.force or None)
    if args.json:
        print_json(result)
    return 0


def cmd_project_list(args: argparse.Namespace) -> int:
    result = call(args, "project_list", start=True)
    if args.json:
        print_json(result)
        return 0
    if not result:
        print("no projects yet: create one with `idea new PATH`")
    for project in result:
        state = f"open in window {project['window']}" if project.get("open") else "closed"
        print(f"{project['name']:<20} {project['root']}  ({state})")
    return 0


def cmd_project_move(args: argparse.Namespace) -> int:
    result = call(args, "project_move", project=args.project, window=args.window)
    return simple(args, result, f"moved {result['project']} to window {result['window']}")


def cmd_project_switch(args: argparse.Namespace) -> int:
    result = call(args, "project_switch", which=args.which)
    return simple(args, result, None)


def cmd_window_new(args: argparse.Namespace) -> int:
    result = call(args, "window_new", start=True, name=args.name, project=args.project)
    return simple(args, result, f"window {result['name']} created")


def cmd_window_list(args: argparse.Namespace) -> int:
    result = call(args, "window_list")
    if args.json:
        print_json(result)
        return 0
    for window in result:
        projects = ", ".join(window["projects"]) or "(empty)"
        print(
            f"{window['name']:<16} {window['width']}x{window['height']}  "
            f"{window['clients']} attached  {projects}"
        )
    return 0


def cmd_window_rename(args: argparse.Namespace) -> int:
    result = call(args, "window_rename", window=args.window, name=args.name)
    return simple(args, result, f"window renamed to {result['name']}")


def cmd_split(args: argparse.Namespace) -> int:
    direction = "right" if args.horizontal else "down"
    if args.before:
        direction = {"right": "left", "down": "up"}[direction]
    result = call(args, "split", target=args.target, direction=direction, count=args.count)
    if args.json:
        print_json(result)
    elif args.print_id:
        print("\n".join(result["cells"]))
    return 0


def cmd_grid(args: argparse.Namespace) -> int:
    try:
        rows, cols = (int(part) for part in args.size.lower().split("x"))
    except ValueError:
        print("idea grid: size must look like 2x3 (rows x columns)", file=sys.stderr)
        return 2
    result = call(args, "grid", target=args.target, rows=rows, cols=cols)
    return simple(args, result, None)


def _side(args: argparse.Namespace) -> str | None:
    for flag, side in (("L", "left"), ("R", "right"), ("U", "up"), ("D", "down")):
        if getattr(args, flag, False):
            return side
    return None


def cmd_select(args: argparse.Namespace) -> int:
    how = _side(args) or (
        "next" if args.next else "prev" if args.prev else "last" if args.last else None
    )
    result = call(args, "select", target=args.target, direction=how)
    return simple(args, result, None)


def cmd_close(args: argparse.Namespace) -> int:
    result = call(args, "close", target=args.target, force=args.force or None)
    return simple(args, result, None)


def cmd_zoom(args: argparse.Namespace) -> int:
    result = call(args, "zoom", target=args.target)
    return simple(args, result, None)


def cmd_resize(args: argparse.Namespace) -> int:
    side = _side(args)
    if side is None:
        print("idea resize: give a side: -L, -R, -U or -D", file=sys.stderr)
        return 2
    result = call(args, "resize", target=args.target, side=side, cells=args.cells)
    return simple(args, result, None)


def cmd_merge(args: argparse.Namespace) -> int:
    result = call(
        args,
        "merge",
        target=args.target,
        other=args.source,
        direction=_side(args),
        force=args.force or None,
    )
    return simple(args, result, None)


def cmd_swap(args: argparse.Namespace) -> int:
    result = call(args, "swap", target=args.target, other=args.source, direction=_side(args))
    return simple(args, result, None)


def cmd_move(args: argparse.Namespace) -> int:
    direction = "down" if args.vertical else "right"
    result = call(args, "move", target=args.target, dst=args.dst, direction=direction)
    return simple(args, result, None)


def cmd_equalize(args: argparse.Namespace) -> int:
    return simple(args, call(args, "equalize", target=args.target), None)


def cmd_undo(args: argparse.Namespace) -> int:
    result = call(args, "undo", target=args.target, redo=args.redo or None)
    if not result["changed"]:
        print("nothing to " + ("redo" if args.redo else "undo"), file=sys.stderr)
    return 0


def cmd_restart(args: argparse.Namespace) -> int:
    result = call(args, "restart", target=args.target, force=args.force or None)
    return simple(args, result, None)


def cmd_send_keys(args: argparse.Namespace) -> int:
    call(args, "send_keys", target=args.target, keys=args.keys, literal=args.literal or None)
    return 0


def cmd_paste(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    call(args, "paste", target=args.target, text=text)
    return 0


def cmd_capture(args: argparse.Namespace) -> int:
    result = call(
        args,
        "capture",
        target=args.target,
        ansi=args.ansi or None,
        history=args.history or None,
        wait=args.wait,
        timeout=args.timeout,
    )
    if args.json:
        print_json(result)
    else:
        sys.stdout.write(result["text"] + "\n")
    return 0


def cmd_list_cells(args: argparse.Namespace) -> int:
    result = call(args, "list_cells", all=args.all or None, project=args.project, page=args.page)
    if args.json:
        print_json(result)
    else:
        _cells_table(result)
    return 0


def cmd_layout(args: argparse.Namespace) -> int:
    action = args.layout_action or "list"
    args.project = args.project or args.group_project
    args.json = args.json or args.group_json
    if action == "list":
        result = call(args, "layout_list", project=args.project)
        if not args.json:
            for page in result:
                mark = "*" if page["active"] else " "
                print(f"{mark} {page['name']:<20} {page['kind']:<9} {page['cells']} cells")
            return 0
    elif action == "new":
        result = call(args, "layout_new", project=args.project, name=args.name)
    elif action == "switch":
        result = call(args, "layout_switch", project=args.project, page=args.page)
    elif action == "rename":
        result = call(args, "layout_rename", project=args.project, page=args.page, name=args.name)
    elif action == "close":
        result = call(
            args, "layout_close", project=args.project, page=args.page, force=args.force or None
        )
    else:
        raise CommandFailed("usage", f"unknown layout action {action!r}")
    return simple(args, result, None)


def cmd_detach(args: argparse.Namespace) -> int:
    result = call(args, "detach", window=args.window)
    return simple(args, result, f"detached {result['detached']} client(s)")


def cmd_monitor(args: argparse.Namespace) -> int:
    activity = None if args.activity is None else args.activity == "on"
    result = call(args, "monitor", target=args.target, activity=activity, silence=args.silence)
    return simple(
        args,
        result,
        f"activity {'on' if result['activity'] else 'off'}, silence {result['silence'] or 'off'}",
    )


def cmd_version(args: argparse.Namespace) -> int:
    print(f"idea {VERSION}")
    return 0


def cmd_daemon(args: argparse.Namespace) -> int:
    from idea_daemon.main import run

    return run(args.foreground)


# ─── parser ────────────────────────────────────────────────────────────────────────────


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="idea",
        description="A terminal workspace for a team of AI coding agents. "
        "Without a command, attach to the workspace (starting the daemon).",
    )
    parser.add_argument("--version", action="version", version=f"idea {VERSION}")
    parser.set_defaults(run=cmd_attach, window=None, force=False)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    def add(
        name: str, run: Runner, help_text: str, aliases: tuple[str, ...] = (), add_help: bool = True
    ) -> argparse.ArgumentParser:
        command = sub.add_parser(
            name, help=help_text, description=help_text, aliases=list(aliases), add_help=add_help
        )
        command.set_defaults(run=run)
        return command

    attach = add("attach", cmd_attach, "attach the workspace screen (default)", ("a",))
    attach.add_argument("-w", "--window", help="the window to show")
    attach.add_argument("-f", "--force", action="store_true", help="attach even inside a cell")

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

    split = add("split", cmd_split, "split a cell", ("split-window",), add_help=False)
    target_option(split)
    group = split.add_mutually_exclusive_group()
    group.add_argument(
        "-h", dest="horizontal", action="store_true", help="side by side (new cell on the right)"
    )
    group.add_argument(
        "-v", dest="vertical", action="store_true", help="stacked (new cell below; the default)"
    )
    split.add_argument("-b", "--before", action="store_true", help="new cell left/above")
    split.add_argument("-n", "--count", type=int, default=1, help="how many new cells")
    split.add_argument("-P", dest="print_id", action="store_true", help="print the new cell ids")
    split.add_argument("--help", action="help", help="show this help")
    json_option(split)

    grid = add("grid", cmd_grid, "turn a cell into a ROWSxCOLS grid")
    grid.add_argument("size", metavar="ROWSxCOLS")
    target_option(grid)
    json_option(grid)

    select = add("select", cmd_select, "focus a cell", ("select-cell",))
    target_option(select)
    side_options(select)
    select.add_argument("--next", action="store_true")
    select.add_argument("--prev", action="store_true")
    select.add_argument("--last", action="store_true")
    json_option(select)

    close = add("close", cmd_close, "close a cell (asks if a program runs)", ("kill-cell",))
    target_option(close)
    force_option(close)
    json_option(close)

    zoom = add("zoom", cmd_zoom, "zoom a cell to the whole window, or back")
    target_option(zoom)
    json_option(zoom)

    resize = add("resize", cmd_resize, "move a border of a cell", ("resize-cell",))
    target_option(resize)
    side_options(resize)
    resize.add_argument("cells", nargs="?", type=int, default=1, help="how many cells")
    json_option(resize)

    for name, run, text in (
        ("merge", cmd_merge, "merge a cell with a neighbour"),
        ("swap", cmd_swap, "swap two cells' programs"),
    ):
        command = add(name, run, text)
        target_option(command)
        command.add_argument("-s", "--source", help="the other cell")
        side_options(command)
        if name == "merge":
            force_option(command)
        json_option(command)

    move = add("move", cmd_move, "move a cell next to another one")
    target_option(move)
    move.add_argument("-d", "--dst", required=True, help="the cell to move next to")
    move.add_argument("-v", dest="vertical", action="store_true", help="below it, not beside")
    json_option(move)

    equalize = add("equalize", cmd_equalize, "give every cell of the page equal shares")
    target_option(equalize)
    json_option(equalize)
    undo = add("undo", cmd_undo, "undo the last layout change")
    target_option(undo)
    undo.add_argument("--redo", action="store_true")
    redo = add("redo", cmd_undo, "redo a layout change")
    target_option(redo)
    redo.set_defaults(redo=True)

    restart = add("restart", cmd_restart, "start the cell's shell again", ("respawn",))
    target_option(restart)
    force_option(restart)
    json_option(restart)

    send = add("send-keys", cmd_send_keys, "type keys into a cell (tmux key names)", ("send",))
    target_option(send)
    send.add_argument("-l", "--literal", action="store_true", help="no key names, plain text")
    send.add_argument("keys", nargs="*", metavar="KEY")

    paste = add("paste", cmd_paste, "paste text into a cell (bracketed if it asked)")
    target_option(paste)
    paste.add_argument("text", help="the text, or - for stdin")

    capture = add("capture", cmd_capture, "print a cell's screen", ("capture-pane",))
    target_option(capture)
    capture.add_argument("--ansi", "-e", action="store_true", help="with colours and attributes")
    capture.add_argument(
        "-S", dest="history", type=int, default=0, help="include N lines of scrollback"
    )
    capture.add_argument("--wait", metavar="REGEX", help="first wait until the screen matches")
    capture.add_argument("--timeout", type=float, default=10.0, help="for --wait, in seconds")
    json_option(capture)

    cells = add("list-cells", cmd_list_cells, "list the cells of a page", ("lsc",))
    cells.add_argument("-a", "--all", action="store_true", help="every cell of every project")
    cells.add_argument("-p", "--project")
    cells.add_argument("--page")
    json_option(cells)

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
    layout_action("new", "add a page").add_argument("name", nargs="?")
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

    monitor = add("monitor", cmd_monitor, "mark a cell when it shows activity or goes silent")
    target_option(monitor)
    monitor.add_argument(
        "--activity", choices=("on", "off"), help="mark output that starts after a quiet spell"
    )
    monitor.add_argument(
        "--silence",
        type=float,
        metavar="SECONDS",
        help="mark SECONDS without output after some output (0: off)",
    )
    json_option(monitor)

    from idea_tui.cli_agents import register

    register(sub)

    add("version", cmd_version, "print the version")
    daemon = add("daemon", cmd_daemon, "run the daemon (started automatically)")
    daemon.add_argument("--foreground", action="store_true")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
