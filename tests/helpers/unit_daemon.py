"""`UnitDaemon`: the daemon's real services, assembled by the composition root on fakes.

`idea_daemon.bootstrap.assemble` wires the same server, workspace service, agent runtime and
command table as a real daemon, but on the recording fakes of `tests/fakes.py`: no shell is
started, no layouts file written, no socket opened. Commands run through the server's own
`run_command` (the path a socket request takes), on an event loop the test turns itself.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adapters.emulator import PyteEmulator
from adapters.ipc import framing
from adapters.ipc.messages import DaemonMessage, Request, Response
from adapters.store.agents_codec import AgentStore, PersonaStore
from adapters.store.background_store import BackgroundStore
from adapters.store.ports import BackgroundStorePort
from adapters.store.profiles_codec import ProfileStore
from adapters.store.templates_store import TemplateStore
from core.terminal import TerminalEmulator
from idea_daemon.bootstrap import AgentPorts, ServicePorts, assemble
from idea_daemon.client_connection import ClientConnection
from idea_daemon.ports import WorkspacePorts
from idea_daemon.server import DaemonServer
from idea_daemon.service import WorkspaceService
from idea_daemon.session import TerminalSession
from idea_tui.control import CommandFailed, checked_answer
from tests.fakes import (
    FakeClock,
    FakeLayoutStore,
    FakeProjectStore,
    FakePty,
    FakeRegistry,
    FakeSpawner,
    FakeWorkspaceStore,
    SequentialIds,
)

SHELL = "/bin/sh"
TURNS = 400
"""Loop turns a wait allows (each turn sleeps a few ms: ~2 s in all, on any machine)."""


class FakeWriter:
    """The sending side of a client's connection: every message is kept, decoded."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.closed = False
        self.ended = False

    def write(self, data: bytes) -> None:
        self.frames.append(data)

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True

    def write_eof(self) -> None:
        self.ended = True

    @property
    def transport(self) -> asyncio.WriteTransport | None:
        return None

    def messages(self) -> list[DaemonMessage]:
        # Each write is one whole frame: its 4-byte length prefix, then the body.
        return [framing.decode_daemon(frame[4:]) for frame in self.frames]


class Stores:
    """The fakes behind one daemon, kept so that a second daemon can restart on them."""

    def __init__(self, data: Path) -> None:
        self.ids = SequentialIds()
        self.clock = FakeClock()
        self.layouts = FakeLayoutStore(self.ids)
        self.projects = FakeProjectStore()
        self.registry = FakeRegistry(data / "projects.json")
        self.workspace = FakeWorkspaceStore(data / "workspace.json")
        self.data = data


class UnitDaemon:
    """A daemon on fakes. `call` runs a command; `spawner.spawned` are its programs."""

    def __init__(self, tmp_path: Path, stores: Stores | None = None,
                 extra_env_names: tuple[str, ...] = (),
                 wire: Callable[[DaemonServer], None] | None = None,
                 background: BackgroundStorePort | None = None,
                 services: ServicePorts | None = None) -> None:
        """`wire`: adds services to the assembled server before the workspace is restored
        (as bootstrap's `build` does: their project-open hooks see the restored projects).
        `background`: the store of `background.json` (the real one, in the project folder,
        when not given). `services`: git, worktrees and delegation, built by `assemble`
        from these ports (none when not given)."""
        self.tmp_path = tmp_path
        self.stores = stores or Stores(tmp_path / "data")
        self.stores.data.mkdir(parents=True, exist_ok=True)
        self.spawner = FakeSpawner()
        self.emulators: list[TerminalEmulator] = []
        ports = WorkspacePorts(
            layouts=self.stores.layouts,
            projects=self.stores.projects,
            registry=self.stores.registry,
            workspace=self.stores.workspace,
            spawn=self.spawner,
            emulators=self._emulator,
            clock=self.stores.clock,
            new_id=self.stores.ids,
        )
        agent_ports = AgentPorts(
            agents=AgentStore(),
            personas=PersonaStore(),
            profiles=ProfileStore(self.stores.data),
            templates=TemplateStore(self.stores.data),
            background=background or BackgroundStore(),
        )
        home = tmp_path / "home"
        home.mkdir(exist_ok=True)
        self.server: DaemonServer = assemble(
            ports,
            agent_ports,
            services,
            socket_path=str(tmp_path / "idea.sock"),
            base_env={"SHELL": SHELL, "HOME": str(home), "PATH": "/usr/bin:/bin"},
            extra_env_names=extra_env_names,
        )
        if wire is not None:
            wire(self.server)
        self.loop = asyncio.new_event_loop()
        # Frames and notices are scheduled on this loop; they go out when the test turns it.
        self.server.frames.loop = self.loop
        self.service.restore(self.loop)
        self._ids = itertools.count(1)
        self.control = ClientConnection(0, FakeWriter())

    def _emulator(self, cols: int, rows: int) -> TerminalEmulator:
        emulator = PyteEmulator(cols, rows, 1000)
        self.emulators.append(emulator)
        return emulator

    @property
    def layouts(self) -> FakeLayoutStore:
        """The layouts store, once the saves pending are written (layout saves are
        coalesced, `idea_daemon.layout_saver`: the loop turns until they are done)."""
        saver = self.service.persistence.layout_saver
        self.until(lambda: not saver.pending, "the layouts were saved")
        return self.stores.layouts

    @property
    def service(self) -> WorkspaceService:
        assert self.server.service is not None
        return self.server.service

    # ─── running commands ─────────────────────────────────────────────────────────────

    def call(self, method: str, client: ClientConnection | None = None, **params: Any) -> Any:
        """Run a command as a one-shot client would; a refusal raises `CommandFailed`."""
        request = Request(id=next(self._ids), method=method,
                          params={k: v for k, v in params.items() if v is not None})
        answered = self.loop.run_until_complete(
            self.server.run_command(client or self.control, request))
        # As a client receives it: encoded on the wire, answer Structs become maps.
        response = framing.decode_daemon(framing.encode(answered)[4:])
        assert isinstance(response, Response)
        if response.error is not None:
            raise CommandFailed(response.error.code, response.error.message)
        # As a client checks it: a typed command's answer must fit its Struct.
        return checked_answer(method, response.result)

    def refused(self, method: str, **params: Any) -> CommandFailed:
        """The refusal a command gets (fails the test if it succeeds)."""
        try:
            result = self.call(method, **params)
        except CommandFailed as exc:
            return exc
        raise AssertionError(f"{method} {params} succeeded: {result!r}")

    def attach(self, width: int = 80, height: int = 24,
               window: str | None = None) -> ClientConnection:
        """An attached client (kind tui) showing a window, as after a handshake."""
        client = ClientConnection(100 + next(self._ids), FakeWriter(), kind="tui",
                                  width=width, height=height)
        client.window_id = self.server._choose_window(window)
        self.server.clients[client.id] = client
        self.server._attach(client)
        return client

    # ─── the loop and the programs ────────────────────────────────────────────────────

    def turn(self, seconds: float = 0.0) -> None:
        """One turn of the loop: ready PTYs are read, due callbacks run."""
        self.loop.run_until_complete(asyncio.sleep(seconds))

    def until(self, condition: Any, what: str) -> None:
        """Turn the loop until `condition()` holds (no fixed pause)."""
        for _ in range(TURNS):
            if condition():
                return
            self.turn(0.005)
        raise AssertionError(f"never happened: {what}")

    def project(self, name: str = "proj") -> Path:
        """A new project folder opened in the daemon (one cell, one shell)."""
        root = self.tmp_path / name
        root.mkdir()
        self.call("project_new", path=str(root))
        return root

    def pty_of(self, cell_id: str) -> FakePty:
        session = self.session_of(cell_id)
        assert session is not None and session.pty is not None, f"no program in {cell_id}"
        pty = session.pty
        assert isinstance(pty, FakePty)
        return pty

    def session_of(self, cell_id: str) -> TerminalSession | None:
        return self.service.lookups.session_of(self.service.lookups.find_cell(cell_id))

    def cells(self) -> list[dict[str, Any]]:
        cells: list[dict[str, Any]] = self.call("list_cells")
        return cells

    def focused(self) -> str:
        return str(next(cell["id"] for cell in self.cells() if cell["focused"]))

    def close(self) -> None:
        self.service.shutdown()
        self.spawner.close_all()
        self.loop.close()
