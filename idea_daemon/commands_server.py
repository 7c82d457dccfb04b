"""Commands about the daemon and its clients: version, kill-server, detach, windows shown."""

from __future__ import annotations

import asyncio
import os

from adapters.ipc import commands as rpc
from adapters.ipc.messages import PROTOCOL_VERSION, Detached
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands import _svc
from idea_daemon.errors import CommandError, ConfirmationNeeded
from idea_daemon.server import DaemonServer


def version(server: DaemonServer, client: ClientConnection,
            p: rpc.NoParams) -> rpc.VersionAnswer:
    emulator = server.service.emulator_name if server.service is not None else None
    return rpc.VersionAnswer(version=server.version, protocol=PROTOCOL_VERSION, pid=os.getpid(),
                             emulator=emulator)


def kill_server(server: DaemonServer, client: ClientConnection,
                p: rpc.KillServerParams) -> rpc.StoppingAnswer:
    service = _svc(server)
    if not p.force:
        busy = [name for s in service.sessions.values() if (name := s.busy_command())]
        if busy:
            raise ConfirmationNeeded(f"programs are running: {', '.join(busy)}")
    asyncio.get_running_loop().call_later(0.05, server.request_stop, "the server was killed")
    return rpc.StoppingAnswer(stopping=True)


def detach(server: DaemonServer, client: ClientConnection,
           p: rpc.DetachParams) -> rpc.DetachedAnswer:
    # What the user arranged is on disk before the client that detaches says so.
    _svc(server).persistence.flush_saves()
    count = 0
    for other in list(server.clients.values()):
        if not other.attached:
            continue
        if p.window is None and other is not client and client.attached:
            continue
        if p.window is not None and (
            other.window_id != _svc(server).lookups.window_by_name(p.window).id
        ):
            continue
        other.send(Detached(reason="detached"))
        count += 1
    return rpc.DetachedAnswer(detached=count)


def loop_stats(server: DaemonServer, client: ClientConnection,
               p: rpc.LoopStatsParams) -> rpc.LoopStats:
    """How the daemon's loop keeps up (the watchdog's figures; `bench/` reads them)."""
    watchdog = server.watchdog
    if watchdog is None:
        return rpc.LoopStats(turns=0, slow_turns=0, worst_ms=0.0, worst_what="", p99_ms=0.0,
                             late_imports=[], warm=False)
    stats = watchdog.stats
    recent = sorted(stats.recent)
    p99 = recent[min(len(recent) - 1, int(len(recent) * 0.99))] if recent else 0.0
    if p.reset:
        watchdog.stats = type(stats)()
    late = server.late_imports
    host = getattr(server.orchestration, "host", None)
    warm = ((server.preloading is None or server.preloading.done())
            and (host is None or host.ready))
    return rpc.LoopStats(
        turns=stats.turns, slow_turns=stats.slow, worst_ms=stats.worst * 1000,
        worst_what=stats.worst_what, p99_ms=p99 * 1000, threshold_ms=watchdog.threshold * 1000,
        slow_turns_seen=[rpc.SlowTurn(ms=delay * 1000, what=what)
                         for delay, what in stats.slow_turns],
        late_imports=late.take(reset=p.reset) if late is not None else [], warm=warm)


def clients(server: DaemonServer, client: ClientConnection,
            p: rpc.NoParams) -> list[rpc.ClientDescription]:
    service = _svc(server)
    found = []
    for other in server.clients.values():
        if not other.attached:
            continue
        window = next((w for w in service.workspace.windows if w.id == other.window_id), None)
        found.append(rpc.ClientDescription(id=other.id, window=window.name if window else None,
                                           width=other.width, height=other.height))
    return found


def attach_window(server: DaemonServer, client: ClientConnection,
                  p: rpc.AttachWindowParams) -> rpc.WindowAnswer:
    """Show another window in the calling client (the tree's "go there")."""
    if not client.attached:
        raise CommandError("only an attached client shows a window")
    window = _svc(server).lookups.window_by_name(p.window)
    if window.id != client.window_id:
        client.window_id = window.id
        client.forget_frames()
        server.claim_size(client)
        server.frames.scene_changed(window.id)
    return rpc.WindowAnswer(window=window.name)


COMMANDS = entries(
    command("version", rpc.NoParams, rpc.VersionAnswer, version),
    command("kill_server", rpc.KillServerParams, rpc.StoppingAnswer, kill_server),
    command("loop_stats", rpc.LoopStatsParams, rpc.LoopStats, loop_stats),
    command("detach", rpc.DetachParams, rpc.DetachedAnswer, detach),
    command("clients", rpc.NoParams, list[rpc.ClientDescription], clients),
    command("attach_window", rpc.AttachWindowParams, rpc.WindowAnswer, attach_window),
)
"""The commands of this module (the composition root merges the tables)."""
