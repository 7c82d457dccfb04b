"""The daemon's commands (RPC verbs), shared by key bindings and the command line.

Each handler takes the server, the calling client and the request params, and returns a
msgspec-encodable result. Cells are named by target strings (core.targets) resolved against
the caller's window, or the cell the command runs in (IDEA_CELL).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.agents.errors import AgentNotFound
from core.layout import geometry as geo
from core.layout.model import Direction, iter_leaves
from idea_daemon.client_connection import ClientConnection
from idea_daemon.server import DaemonServer
from idea_daemon.service import CellRef, CommandError, WorkspaceService

Handler = Callable[[DaemonServer, ClientConnection, dict[str, Any]], Any]

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


def _target(
    server: DaemonServer, client: ClientConnection, params: dict[str, Any], key: str = "target"
) -> CellRef:
    value = params.get(key)
    if value is not None and not isinstance(value, str):
        raise CommandError(f"{key} must be a string")
    return _svc(server).lookups.resolve(value, caller_window(server, client), client.cell)


def _direction(value: Any) -> tuple[Direction, bool]:
    if value not in _DIRECTIONS:
        raise CommandError(f"direction must be one of right, left, down, up; got {value!r}")
    return _DIRECTIONS[value]


def _int(params: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = params.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise CommandError(f"{key} must be a whole number from {low} to {high}")
    return value


def describe_cell(service: WorkspaceService, ref: CellRef) -> dict[str, Any]:
    layout = ref.runtime.layout(ref.layout_id)
    index = next(
        i for i, leaf in enumerate(iter_leaves(layout.tree.root)) if leaf.id == ref.leaf.id
    )
    session = service.lookups.session_of(ref)
    info: dict[str, Any] = {
        "id": ref.leaf.id,
        "target": f"{ref.runtime.name}:{layout.name}.{index}",
        "project": ref.runtime.name,
        "root": ref.runtime.root,
        "page": layout.name,
        "index": index,
        "focused": ref.runtime.focused_leaf(ref.layout_id) == ref.leaf.id,
        "running": bool(session and session.running),
    }
    if session is not None:
        info["cols"], info["rows"] = session.emulator.cols, session.emulator.rows
        info["title"] = session.title
        info["attention"] = session.attention
        info["exitCode"] = session.exit_code
        if session.error:
            info["error"] = session.error
        if session.pty is not None:
            info["pid"] = session.pty.pid
            info["command"] = session.pty.command_name()
            info["foreground"] = session.pty.foreground_command()
    return info


# ─── cells ─────────────────────────────────────────────────────────────────────────────


def split(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    ref = _target(server, client, params)
    direction, before = _direction(params.get("direction", "right"))
    count = _int(params, "count", 1, 1, 32)
    new_ids = _svc(server).cells.split(ref, direction, count, before)
    return {"cells": new_ids}


def grid(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    ref = _target(server, client, params)
    rows = _int(params, "rows", 2, 1, 8)
    cols = _int(params, "cols", 2, 1, 8)
    return {"cells": _svc(server).cells.make_grid(ref, rows, cols)}


def select(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    ref = _target(server, client, params)
    how = params.get("direction")
    if how is not None:
        if how not in ("left", "right", "up", "down", "next", "prev", "last"):
            raise CommandError(f"cannot select in direction {how!r}")
        ref = service.cells.neighbour(ref, how)
    service.cells.select(ref)
    return describe_cell(service, ref)


def close(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    ref = _target(server, client, params)
    _svc(server).cells.close_cell(ref, bool(params.get("force")))
    return {"closed": ref.leaf.id}


def zoom(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    ref = _target(server, client, params)
    return {"zoomed": _svc(server).cells.toggle_zoom(ref)}


def resize(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    ref = _target(server, client, params)
    side = params.get("side")
    if side not in ("left", "right", "up", "down"):
        raise CommandError("side must be left, right, up or down")
    cells = _int(params, "cells", 1, -1000, 1000)
    _svc(server).cells.resize(ref, geo.Side(side), cells)
    return describe_cell(_svc(server), _svc(server).lookups.find_cell(ref.leaf.id))


def set_border(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    runtime = service.lookups.active_runtime(caller_window(server, client))
    drag = _drag(params)
    service.cells.set_border(
        runtime,
        runtime.active.id,
        str(params["container"]),
        _int(params, "index", 0, 0, 1000),
        _int(params, "position", 0, 0, 100000),
        bool(params.get("vertical", True)),
        drag=f"{client.id}:{drag}" if drag is not None else None,
    )
    return None


def _drag(params: dict[str, Any]) -> str | None:
    """The drag a border move belongs to (the client names each mouse drag): one undo step.
    Scoped to the connection's client, so two clients' drags never merge."""
    value = params.get("drag")
    if value is None:
        return None
    if not isinstance(value, str | int) or isinstance(value, bool) or len(str(value)) > 64:
        raise CommandError("drag must be a short name or number")
    return str(value)


def _other(
    server: DaemonServer, client: ClientConnection, params: dict[str, Any], ref: CellRef
) -> CellRef:
    if params.get("other") is not None:
        return _target(server, client, params, "other")
    how = params.get("direction")
    if how not in ("left", "right", "up", "down", "next", "prev"):
        raise CommandError("name the other cell (-s TARGET) or a direction")
    other = _svc(server).cells.neighbour(ref, how)
    if other.leaf.id == ref.leaf.id:
        raise CommandError(f"there is no cell {how} of this one")
    return other


def merge(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    ref = _target(server, client, params)
    other = _other(server, client, params, ref)
    _svc(server).cells.merge(ref, other, bool(params.get("force")))
    return {"kept": ref.leaf.id, "removed": other.leaf.id}


def swap(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    ref = _target(server, client, params)
    other = _other(server, client, params, ref)
    _svc(server).cells.swap(ref, other)
    return {"swapped": [ref.leaf.id, other.leaf.id]}


def move(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    ref = _target(server, client, params)
    dst = _target(server, client, params, "dst")
    direction, before = _direction(params.get("direction", "right"))
    _svc(server).cells.move(ref, dst, direction, before)
    return {"moved": ref.leaf.id}


def equalize(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    ref = _target(server, client, params)
    _svc(server).cells.equalize(ref.runtime, ref.layout_id)
    return None


def undo(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    ref = _target(server, client, params)
    redo = bool(params.get("redo"))
    return {"changed": _svc(server).cells.undo(ref.runtime, ref.layout_id, redo)}


def restart(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    ref = _target(server, client, params)
    if ref.leaf.agent is not None and server.agents is not None:
        try:
            # An agent's cell restarts its agent (resuming its conversation when it can).
            server.agents.restart(ref.runtime, ref.leaf.agent, resume=True)
            return describe_cell(_svc(server), _svc(server).lookups.find_cell(ref.leaf.id))
        except AgentNotFound:
            # The agent was deleted: the cell becomes a plain shell again.
            _svc(server).cells.forget_agent(ref)
            ref = _svc(server).lookups.find_cell(ref.leaf.id)
    _svc(server).cells.restart(ref, bool(params.get("force")))
    return describe_cell(_svc(server), _svc(server).lookups.find_cell(ref.leaf.id))


def list_cells(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    if params.get("all"):
        refs = list(service.lookups.iter_cells())
    else:
        runtime = (
            service.lookups.runtime_of(params["project"])
            if params.get("project")
            else service.lookups.active_runtime(caller_window(server, client))
        )
        layout = (
            service.lookups.find_page(runtime, params["page"]) if params.get("page")
            else runtime.active
        )
        refs = [CellRef(runtime, layout.id, leaf) for leaf in iter_leaves(layout.tree.root)]
    return [describe_cell(service, ref) for ref in refs]



# The commands of this module, by wire name (the composition root merges the tables).
COMMANDS: dict[str, Handler] = {
    "split": split,
    "grid": grid,
    "select": select,
    "close": close,
    "zoom": zoom,
    "resize": resize,
    "set_border": set_border,
    "merge": merge,
    "swap": swap,
    "move": move,
    "equalize": equalize,
    "undo": undo,
    "restart": restart,
    "list_cells": list_cells,
}
