"""The daemon's commands on cells (RPC verbs), shared by key bindings and the command line.

Each handler takes the server, the calling client and the command's parameter Struct
(`adapters.ipc.commands`, decoded at the boundary by `idea_daemon.command_table`), and
returns its answer Struct. Cells are named by target strings (core.targets) resolved against
the caller's window, or the cell the command runs in (IDEA_CELL).
"""

from __future__ import annotations

from adapters.ipc import commands as rpc
from core.agents.errors import AgentNotFound
from core.layout import geometry as geo
from core.layout.model import Direction, iter_leaves
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.server import DaemonServer
from idea_daemon.service import CellRef, CommandError, WorkspaceService

_DIRECTIONS = {
    "right": (Direction.ROW, False),
    "h": (Direction.ROW, False),
    "left": (Direction.ROW, True),
    "down": (Direction.COLUMN, False),
    "v": (Direction.COLUMN, False),
    "up": (Direction.COLUMN, True),
}


def _svc(server: DaemonServer) -> WorkspaceService:
    assert server.service is not None
    return server.service


def caller_window(server: DaemonServer, client: ClientConnection) -> str | None:
    """The window a command applies to: the client's own, the one of the cell it runs in,
    else the window of the most recently active attached client."""
    service = _svc(server)
    if client.window_id is not None:
        return client.window_id
    if client.cell is not None:
        try:
            ref = service.lookups.find_cell(client.cell)
        except CommandError:
            ref = None
        if ref is not None:
            window = service.lookups.window_of_project(ref.runtime)
            if window is not None:
                return window.id
    attached = [c for c in server.clients.values() if c.attached]
    if attached:
        return max(attached, key=lambda c: c.last_active).window_id
    return service.workspace.windows[0].id if service.workspace.windows else None


def target(server: DaemonServer, client: ClientConnection, value: str | None) -> CellRef:
    """The cell a target string names, relative to the caller."""
    return _svc(server).lookups.resolve(value, caller_window(server, client), client.cell)


def _direction(value: str) -> tuple[Direction, bool]:
    if value not in _DIRECTIONS:
        raise CommandError(f"direction must be one of right, left, down, up; got {value!r}")
    return _DIRECTIONS[value]


def describe_cell(service: WorkspaceService, ref: CellRef) -> rpc.CellDescription:
    layout = ref.runtime.layout(ref.layout_id)
    index = next(
        i for i, leaf in enumerate(iter_leaves(layout.tree.root)) if leaf.id == ref.leaf.id
    )
    session = service.lookups.session_of(ref)
    info = rpc.CellDescription(
        id=ref.leaf.id,
        target=f"{ref.runtime.name}:{layout.name}.{index}",
        project=ref.runtime.name,
        root=ref.runtime.root,
        page=layout.name,
        index=index,
        focused=ref.runtime.focused_leaf(ref.layout_id) == ref.leaf.id,
        running=bool(session and session.running),
    )
    if session is not None:
        info.cols, info.rows = session.emulator.cols, session.emulator.rows
        info.title = session.title
        info.attention = session.attention
        info.exit_code = session.exit_code
        if session.error:
            info.error = session.error
        if session.pty is not None:
            info.pid = session.pty.pid
            info.command = session.pty.command_name()
            info.foreground = session.pty.foreground_command()
    agent_id = session.agent_id if session is not None else ref.leaf.agent
    if agent_id is not None and service.hooks.agent_badge is not None:
        badge = service.hooks.agent_badge(ref.runtime.root, agent_id)
        if badge:
            info.agent_state = badge
    return info


# ─── cells ─────────────────────────────────────────────────────────────────────────────


def split(server: DaemonServer, client: ClientConnection,
          p: rpc.SplitParams) -> rpc.CellsAnswer:
    ref = target(server, client, p.target)
    direction, before = _direction(p.direction)
    return rpc.CellsAnswer(cells=_svc(server).cells.split(ref, direction, p.count, before))


def grid(server: DaemonServer, client: ClientConnection, p: rpc.GridParams) -> rpc.CellsAnswer:
    ref = target(server, client, p.target)
    return rpc.CellsAnswer(cells=_svc(server).cells.make_grid(ref, p.rows, p.cols))


def select(server: DaemonServer, client: ClientConnection,
           p: rpc.SelectParams) -> rpc.CellDescription:
    service = _svc(server)
    ref = target(server, client, p.target)
    if p.direction is not None:
        if p.direction not in ("left", "right", "up", "down", "next", "prev", "last"):
            raise CommandError(f"cannot select in direction {p.direction!r}")
        ref = service.cells.neighbour(ref, p.direction)
    service.cells.select(ref)
    return describe_cell(service, ref)


def close(server: DaemonServer, client: ClientConnection,
          p: rpc.ForceParams) -> rpc.ClosedAnswer:
    ref = target(server, client, p.target)
    _svc(server).cells.close_cell(ref, p.force)
    return rpc.ClosedAnswer(closed=ref.leaf.id)


def zoom(server: DaemonServer, client: ClientConnection, p: rpc.Targeted) -> rpc.ZoomAnswer:
    ref = target(server, client, p.target)
    return rpc.ZoomAnswer(zoomed=_svc(server).cells.toggle_zoom(ref))


def resize(server: DaemonServer, client: ClientConnection,
           p: rpc.ResizeParams) -> rpc.CellDescription:
    ref = target(server, client, p.target)
    if p.side not in ("left", "right", "up", "down"):
        raise CommandError("side must be left, right, up or down")
    _svc(server).cells.resize(ref, geo.Side(p.side), p.cells)
    return describe_cell(_svc(server), _svc(server).lookups.find_cell(ref.leaf.id))


def set_border(server: DaemonServer, client: ClientConnection, p: rpc.BorderParams) -> None:
    service = _svc(server)
    runtime = service.lookups.active_runtime(caller_window(server, client))
    if p.drag is not None and len(str(p.drag)) > 64:
        raise CommandError("drag must be a short name or number")
    # Scoped to the connection's client, so two clients' drags never merge.
    drag = f"{client.id}:{p.drag}" if p.drag is not None else None
    service.cells.set_border(runtime, runtime.active.id, p.container, p.index, p.position,
                             p.vertical, drag=drag)


def _other(server: DaemonServer, client: ClientConnection, p: rpc.PairParams,
           ref: CellRef) -> CellRef:
    if p.other is not None:
        return target(server, client, p.other)
    how = p.direction
    if how not in ("left", "right", "up", "down", "next", "prev"):
        raise CommandError("name the other cell (-s TARGET) or a direction")
    other = _svc(server).cells.neighbour(ref, how)
    if other.leaf.id == ref.leaf.id:
        raise CommandError(f"there is no cell {how} of this one")
    return other


def merge(server: DaemonServer, client: ClientConnection,
          p: rpc.PairParams) -> rpc.MergeAnswer:
    ref = target(server, client, p.target)
    other = _other(server, client, p, ref)
    _svc(server).cells.merge(ref, other, p.force)
    return rpc.MergeAnswer(kept=ref.leaf.id, removed=other.leaf.id)


def swap(server: DaemonServer, client: ClientConnection, p: rpc.PairParams) -> rpc.SwapAnswer:
    ref = target(server, client, p.target)
    other = _other(server, client, p, ref)
    _svc(server).cells.swap(ref, other)
    return rpc.SwapAnswer(swapped=[ref.leaf.id, other.leaf.id])


def move(server: DaemonServer, client: ClientConnection, p: rpc.MoveParams) -> rpc.MoveAnswer:
    ref = target(server, client, p.target)
    dst = target(server, client, p.dst)
    direction, before = _direction(p.direction)
    _svc(server).cells.move(ref, dst, direction, before)
    return rpc.MoveAnswer(moved=ref.leaf.id)


def equalize(server: DaemonServer, client: ClientConnection, p: rpc.Targeted) -> None:
    ref = target(server, client, p.target)
    _svc(server).cells.equalize(ref.runtime, ref.layout_id)


def undo(server: DaemonServer, client: ClientConnection, p: rpc.UndoParams) -> rpc.UndoAnswer:
    ref = target(server, client, p.target)
    return rpc.UndoAnswer(changed=_svc(server).cells.undo(ref.runtime, ref.layout_id, p.redo))


def restart(server: DaemonServer, client: ClientConnection,
            p: rpc.ForceParams) -> rpc.CellDescription:
    ref = target(server, client, p.target)
    if ref.leaf.agent is not None and server.agents is not None:
        try:
            # An agent's cell restarts its agent (resuming its conversation when it can).
            server.agents.restart(ref.runtime, ref.leaf.agent, resume=True)
            return describe_cell(_svc(server), _svc(server).lookups.find_cell(ref.leaf.id))
        except AgentNotFound:
            # The agent was deleted: the cell becomes a plain shell again.
            _svc(server).cells.forget_agent(ref)
            ref = _svc(server).lookups.find_cell(ref.leaf.id)
    _svc(server).cells.restart(ref, p.force)
    return describe_cell(_svc(server), _svc(server).lookups.find_cell(ref.leaf.id))


def list_cells(server: DaemonServer, client: ClientConnection,
               p: rpc.ListCellsParams) -> list[rpc.CellDescription]:
    service = _svc(server)
    if p.all:
        refs = list(service.lookups.iter_cells())
    else:
        runtime = (
            service.lookups.runtime_of(p.project) if p.project
            else service.lookups.active_runtime(caller_window(server, client))
        )
        layout = service.lookups.find_page(runtime, p.page) if p.page else runtime.active
        refs = [CellRef(runtime, layout.id, leaf) for leaf in iter_leaves(layout.tree.root)]
    return [describe_cell(service, ref) for ref in refs]


COMMANDS = entries(
    command("split", rpc.SplitParams, rpc.CellsAnswer, split),
    command("grid", rpc.GridParams, rpc.CellsAnswer, grid),
    command("select", rpc.SelectParams, rpc.CellDescription, select),
    command("close", rpc.ForceParams, rpc.ClosedAnswer, close),
    command("zoom", rpc.Targeted, rpc.ZoomAnswer, zoom),
    command("resize", rpc.ResizeParams, rpc.CellDescription, resize),
    command("set_border", rpc.BorderParams, rpc.Nothing, set_border),
    command("merge", rpc.PairParams, rpc.MergeAnswer, merge),
    command("swap", rpc.PairParams, rpc.SwapAnswer, swap),
    command("move", rpc.MoveParams, rpc.MoveAnswer, move),
    command("equalize", rpc.Targeted, rpc.Nothing, equalize),
    command("undo", rpc.UndoParams, rpc.UndoAnswer, undo),
    command("restart", rpc.ForceParams, rpc.CellDescription, restart),
    command("list_cells", rpc.ListCellsParams, list[rpc.CellDescription], list_cells),
)
"""The commands of this module (the composition root merges the tables)."""
