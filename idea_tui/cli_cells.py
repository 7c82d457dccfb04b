"""`idea split|select|close|zoom|resize|merge|swap|move|...`: cells, scriptable like tmux."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

import msgspec

from adapters.ipc import commands as rpc
from idea_tui.cli_common import (
    call_as,
    call_list,
    force_option,
    json_option,
    print_json,
    side_options,
    simple,
    target_option,
)

Add = Callable[..., argparse.ArgumentParser]


def cell_state(cell: rpc.CellDescription) -> str:
    """running, exited N, or why nothing runs (a start error, or stopped)."""
    if cell.running:
        return "running"
    if isinstance(cell.exit_code, int):
        return f"exited {cell.exit_code}"
    return cell.error if isinstance(cell.error, str) else "stopped"


def _known(value: object) -> str:
    return "?" if value is msgspec.UNSET else str(value)


def _cells_table(cells: list[rpc.CellDescription]) -> None:
    for cell in cells:
        state = cell_state(cell)
        what = cell.foreground or cell.command or ""
        mark = "*" if cell.focused else " "
        size = f"{_known(cell.cols)}x{_known(cell.rows)}"
        print(f"{mark} {cell.target:<30} {cell.id[:8]}  {size:>7}  {state:<10} {what}")


def cmd_split(args: argparse.Namespace) -> int:
    direction = "right" if args.horizontal else "down"
    if args.before:
        direction = {"right": "left", "down": "up"}[direction]
    result = call_as(args, rpc.CellsAnswer, "split", target=args.target, direction=direction,
                     count=args.count)
    if args.json:
        print_json(result)
    elif args.print_id:
        print("\n".join(result.cells))
    return 0


def cmd_grid(args: argparse.Namespace) -> int:
    try:
        rows, cols = (int(part) for part in args.size.lower().split("x"))
    except ValueError:
        print("idea grid: size must look like 2x3 (rows x columns)", file=sys.stderr)
        return 2
    result = call_as(args, rpc.CellsAnswer, "grid", target=args.target, rows=rows, cols=cols)
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
    result = call_as(args, rpc.CellDescription, "select", target=args.target, direction=how)
    return simple(args, result, None)


def cmd_close(args: argparse.Namespace) -> int:
    result = call_as(args, rpc.ClosedAnswer, "close", target=args.target,
                     force=args.force or None)
    return simple(args, result, None)


def cmd_zoom(args: argparse.Namespace) -> int:
    result = call_as(args, rpc.ZoomAnswer, "zoom", target=args.target)
    return simple(args, result, None)


def cmd_resize(args: argparse.Namespace) -> int:
    side = _side(args)
    if side is None:
        print("idea resize: give a side: -L, -R, -U or -D", file=sys.stderr)
        return 2
    result = call_as(args, rpc.CellDescription, "resize", target=args.target, side=side,
                     cells=args.cells)
    return simple(args, result, None)


def cmd_merge(args: argparse.Namespace) -> int:
    result = call_as(
        args,
        rpc.MergeAnswer,
        "merge",
        target=args.target,
        other=args.source,
        direction=_side(args),
        force=args.force or None,
    )
    return simple(args, result, None)


def cmd_swap(args: argparse.Namespace) -> int:
    result = call_as(args, rpc.SwapAnswer, "swap", target=args.target, other=args.source,
                     direction=_side(args))
    return simple(args, result, None)


def cmd_move(args: argparse.Namespace) -> int:
    direction = "down" if args.vertical else "right"
    result = call_as(args, rpc.MoveAnswer, "move", target=args.target, dst=args.dst,
                     direction=direction)
    return simple(args, result, None)


def cmd_equalize(args: argparse.Namespace) -> int:
    return simple(args, call_as(args, rpc.Nothing, "equalize", target=args.target), None)


def cmd_undo(args: argparse.Namespace) -> int:
    result = call_as(args, rpc.UndoAnswer, "undo", target=args.target, redo=args.redo or None)
    if not result.changed:
        print("nothing to " + ("redo" if args.redo else "undo"), file=sys.stderr)
    return 0


def cmd_restart(args: argparse.Namespace) -> int:
    result = call_as(args, rpc.CellDescription, "restart", target=args.target,
                     force=args.force or None)
    return simple(args, result, None)


def cmd_send_keys(args: argparse.Namespace) -> int:
    call_as(args, rpc.WriteAnswer, "send_keys", target=args.target, keys=args.keys,
            literal=args.literal or None)
    return 0


def cmd_paste(args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.text == "-" else args.text
    call_as(args, rpc.WriteAnswer, "paste", target=args.target, text=text)
    return 0


def cmd_capture(args: argparse.Namespace) -> int:
    result = call_as(
        args,
        rpc.CaptureAnswer,
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
        sys.stdout.write(result.text + "\n")
    return 0


def cmd_list_cells(args: argparse.Namespace) -> int:
    result = call_list(args, rpc.CellDescription, "list_cells", all=args.all or None,
                       project=args.project, page=args.page)
    if args.json:
        print_json(result)
    else:
        _cells_table(result)
    return 0


def cmd_monitor(args: argparse.Namespace) -> int:
    if args.target is None and args.activity is None and args.silence is None:
        from idea_tui.cli_monitor import cmd_monitor as team_view

        return team_view(args)  # the agents, their states, queues and delegations
    activity = None if args.activity is None else args.activity == "on"
    result = call_as(args, rpc.MonitorAnswer, "monitor", target=args.target, activity=activity,
                     silence=args.silence)
    return simple(
        args,
        result,
        f"activity {'on' if result.activity else 'off'}, silence {result.silence or 'off'}",
    )


def register(add: Add) -> None:
    """Add the cell commands; `add(name, run, help, aliases=(), add_help=True)` makes one."""
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

    monitor = add("monitor", cmd_monitor, "watch the agents and their delegations (read-only);"
                  " with -t/--activity/--silence: mark a cell when it shows activity or goes"
                  " silent")
    target_option(monitor)
    from idea_tui.cli_monitor import add_options

    add_options(monitor)
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
