"""Commands about the daemon and its clients: version, kill-server, detach, windows shown."""

from __future__ import annotations

import asyncio
from typing import Any

from idea_daemon.client_connection import ClientConnection
from idea_daemon.commands import Handler, _svc
from idea_daemon.errors import CommandError, ConfirmationNeeded
from idea_daemon.server import DaemonServer


def version(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    import os

    from adapters.ipc.messages import PROTOCOL_VERSION

    emulator = server.service.emulator_name if server.service is not None else None
    return {"version": server.version, "protocol": PROTOCOL_VERSION, "pid": os.getpid(),
            "emulator": emulator}


def kill_server(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    if not params.get("force"):
        busy = [name for s in service.sessions.values() if (name := s.busy_command())]
        if busy:
            raise ConfirmationNeeded(f"programs are running: {', '.join(busy)}")
    asyncio.get_running_loop().call_later(0.05, server.request_stop, "the server was killed")
    return {"stopping": True}


def detach(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    from adapters.ipc.messages import Detached

    # What the user arranged is on disk before the client that detaches says so.
    _svc(server).persistence.flush_saves()
    window = params.get("window")
    count = 0
    for other in list(server.clients.values()):
        if not other.attached:
            continue
        if window is None and other is not client and client.attached:
            continue
        if window is not None and other.window_id != _svc(server).lookups.window_by_name(window).id:
            continue
        other.send(Detached(reason="detached"))
        count += 1
    return {"detached": count}


def clients(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    found = []
    for other in server.clients.values():
        if not other.attached:
            continue
        window = next((w for w in service.workspace.windows if w.id == other.window_id), None)
        found.append(
            {
                "id": other.id,
                "window": window.name if window else None,
                "width": other.width,
                "height": other.height,
            }
        )
    return found


def attach_window(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    """Show another window in the calling client (the tree's "go there")."""
    if not client.attached:
        raise CommandError("only an attached client shows a window")
    window = _svc(server).lookups.window_by_name(str(params["window"]))
    if window.id != client.window_id:
        client.window_id = window.id
        client.forget_frames()
        server.claim_size(client)
        server.frames.scene_changed(window.id)
    return {"window": window.name}


# The commands of this module, by wire name (the composition root merges the tables).
def loop_stats(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    """How the daemon's loop keeps up (the watchdog's figures; `bench/` reads them)."""
    watchdog = server.watchdog
    if watchdog is None:
        return {"turns": 0, "slowTurns": 0, "worstMs": 0.0, "worstWhat": "", "p99Ms": 0.0}
    stats = watchdog.stats
    recent = sorted(stats.recent)
    p99 = recent[min(len(recent) - 1, int(len(recent) * 0.99))] if recent else 0.0
    if params.get("reset"):
        watchdog.stats = type(stats)()
    return {"turns": stats.turns, "slowTurns": stats.slow, "worstMs": stats.worst * 1000,
            "worstWhat": stats.worst_what, "p99Ms": p99 * 1000,
            "thresholdMs": watchdog.threshold * 1000}


COMMANDS: dict[str, Handler] = {
    "version": version,
    "kill_server": kill_server,
    "detach": detach,
    "clients": clients,
    "attach_window": attach_window,
    "loop_stats": loop_stats,
}
