"""The daemon's socket server: handshakes, client connections, input and commands.

Frames to clients are sent by its collaborator `idea_daemon.frames.FrameSender` (`frames`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from adapters.ipc import framing
from adapters.ipc.messages import (
    PROTOCOL_VERSION,
    Changed,
    ClientSize,
    Detached,
    ErrorInfo,
    FramesShown,
    Hello,
    KeyInput,
    MouseInput,
    Notice,
    PasteInput,
    RawInput,
    Refused,
    Request,
    Response,
    Welcome,
)
from adapters.ipc.peer import check_reusable, is_own_peer
from core.errors import IdeaError
from core.limits import bounded_env, clamp_window
from idea_daemon.client_connection import ClientConnection
from idea_daemon.frames import FrameSender
from idea_daemon.history_compaction import HistoryCompactor
from idea_daemon.late_imports import LateImports
from idea_daemon.scene import visible_sessions
from idea_daemon.session import TerminalSession
from idea_daemon.watchdog import LoopWatchdog

if TYPE_CHECKING:
    from idea_daemon.service import WorkspaceService

log = logging.getLogger(__name__)

POLL_INTERVAL = 1.0
MAX_PENDING_COMMANDS = 64
"""Commands that wait (capture --wait...) one connection may have running at once."""
STOP_LINGER = 1.0
"""How long a stopping server waits for its clients to close after saying why it stops."""




class CommandEntry(Protocol):
    """One command of the table (`idea_daemon.command_table.Command`)."""

    @property
    def params(self) -> type[Any]:
        """The command's parameter Struct."""

    @property
    def answer(self) -> Any:
        """The command's answer type (a Struct, a list of them, or None)."""

    def invoke(self, server: DaemonServer, client: ClientConnection,
               params: dict[str, Any]) -> Any:
        """Decode the parameters, run the handler."""


class DaemonServer:
    """Serves clients on the Unix socket; the composition root wires it to the service."""

    def __init__(self, version: str, socket_path: str) -> None:
        self.version = version
        self.socket_path = socket_path
        self.service: WorkspaceService | None = None
        # The agent runtime and admin (idea_daemon.agents / agent_admin), set by bootstrap.
        self.agents: Any = None
        self.admin: Any = None
        # The git service (idea_daemon.git_service) and the agents' worktrees
        # (idea_daemon.agent_worktrees), set by bootstrap when git can be used.
        self.git: Any = None
        self.worktrees: Any = None
        self.orchestration: Any = None
        self.skills: Any = None
        self.conversations: Any = None
        self.knowledge: Any = None
        """Project memory and context (idea_daemon.knowledge.Knowledge)."""
        # Session limits (idea_daemon.session_limits), set by bootstrap.
        self.session_limits: Any = None
        self.limit_resumer: Any = None
        self.limit_watcher: Any = None
        self.start_hooks: list[Callable[[], Awaitable[None]]] = []
        self.stop_hooks: list[Callable[[], Awaitable[None]]] = []
        """Services that start with the listener and stop with it (the MCP host...)."""
        self.clients: dict[int, ClientConnection] = {}
        self.frames = FrameSender(self.clients, self._service, self.claim_size)
        self.handlers: dict[str, CommandEntry] = {}
        """The command table (`idea_daemon.command_table`), built by the composition root."""
        self._next_id = 1
        self._server: asyncio.AbstractServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.stopped = asyncio.Event()
        self.watchdog: LoopWatchdog | None = None
        self.compactor: HistoryCompactor | None = None
        self.late_imports: LateImports | None = None
        """Imports made on the loop after start (`idea_daemon.late_imports`; the real
        daemon's main sets it)."""
        self.preloading: asyncio.Future[None] | None = None
        """The imports done in a worker at start (`idea_daemon.preload`), while running."""
        self._stop_task: asyncio.Task[None] | None = None
        self._poll_task: asyncio.Task[None] | None = None
        self._shown_commands: dict[str | None, tuple[str | None, ...]] = {}
        self._stopping = False

    # ─── lifecycle ───────────────────────────────────────────────────────────────────

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.frames.loop = self._loop
        # A stale socket is replaced only if it is ours (the path may be in /tmp).
        check_reusable(self.socket_path, "socket")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.socket_path)
        old_umask = os.umask(0o177)
        try:
            self._server = await asyncio.start_unix_server(self._serve, path=self.socket_path)
        finally:
            os.umask(old_umask)
        os.chmod(self.socket_path, 0o600)
        log.info("listening on %s", self.socket_path)
        self.compactor = HistoryCompactor(self._loop, time.monotonic)
        self._poll_task = self._loop.create_task(self._poll_foreground())
        self.watchdog = LoopWatchdog(self._loop)
        self.watchdog.start()
        for hook in self.start_hooks:
            await hook()

    def request_stop(self, reason: str) -> None:
        """Stop serving soon (from a signal handler or a command)."""
        if self._loop is not None:
            self._stop_task = self._loop.create_task(self.stop(reason))

    async def _poll_foreground(self) -> None:
        """Redraw titles when the program in front changes (vim started in a shell...).

        Like tmux's automatic-rename, this polls: the kernel does not tell us when a shell
        hands the terminal to another process group. Only windows with a client are polled.
        """
        while True:
            await asyncio.sleep(POLL_INTERVAL)
            service = self._service()
            now = time.monotonic()
            sessions = list(service.sessions.values())
            for session in sessions:
                session.check_silence(now)
            if self.compactor is not None:
                self.compactor.poll(sessions)  # idle cells' history, compacted a step a turn
            windows = {c.window_id for c in self.clients.values() if c.attached}
            for window_id in windows:
                commands = tuple(
                    session.foreground(0.0)  # a fresh read, which scenes then reuse
                    for _cell, session in visible_sessions(service, window_id)
                )
                if self._shown_commands.get(window_id) != commands:
                    self._shown_commands[window_id] = commands
                    self.frames.scene_changed(window_id)

    async def stop(self, reason: str = "the server was stopped") -> None:
        if self._poll_task is not None:
            self._poll_task.cancel()
        if self.compactor is not None:
            self.compactor.stop()
        if self.watchdog is not None:
            self.watchdog.stop()
        self._stopping = True
        leaving = list(self.clients.values())
        for client in leaving:
            if client.attached:
                client.send(Detached(reason=reason))
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.writer.drain(), 1.0)
            # Only our side ends here: a client may still be writing (a size, a "frames
            # shown") when it is told to go. Were the socket closed now, its next write would
            # fail and it would lose the reason above, still unread (a broken pipe). It
            # closes once it has read it; its own close ends its reader here.
            with contextlib.suppress(Exception):
                client.writer.write_eof()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                asyncio.gather(*(client.gone.wait() for client in leaving)), STOP_LINGER)
        for client in leaving:
            client.writer.close()
        if self._server is not None:
            self._server.close()
        for hook in self.stop_hooks:
            try:
                await hook()
            except Exception:
                log.exception("stopping a service failed")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.socket_path)
        self.stopped.set()

    # ─── connections ─────────────────────────────────────────────────────────────────

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not is_own_peer(writer.get_extra_info("socket")):
            # Another user's process: not a word is read from it (SO_PEERCRED).
            log.warning("refused a connection from another user")
            writer.close()
            return
        client = ClientConnection(self._next_id, writer)
        self._next_id += 1
        sock = writer.get_extra_info("socket")
        socket_fd = sock.fileno() if sock is not None else -1
        try:
            if not await self._handshake(client, reader):
                return
            self.clients[client.id] = client
            if client.attached:
                self._attach(client)
            if client.kind == "tui":
                self.frames.echo_first.watch_input(socket_fd)
            await self._read_loop(client, reader)
        except framing.FrameError as exc:
            log.warning("client %s: %s", client.id, exc)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            client.closed = True
            client.gone.set()
            self.clients.pop(client.id, None)
            self.frames.echo_first.unwatch_input(socket_fd)
            writer.close()
            if self.git is not None:
                self.git.unwatch(str(client.id))
            if client.kind == "tui":
                log.info("client %s detached", client.id)
                self._on_client_gone(client)

    async def _handshake(self, client: ClientConnection, reader: asyncio.StreamReader) -> bool:
        body = await framing.read_frame(reader, framing.MAX_HELLO)
        if body is None:
            return False
        hello = framing.peek_handshake(body)
        if hello.get("t") != "hello":
            raise framing.FrameError("the first message must be a hello")
        protocol = hello.get("protocol")
        if protocol != PROTOCOL_VERSION:
            client.writer.write(
                framing.encode(
                    Refused(
                        protocol=PROTOCOL_VERSION,
                        daemon_version=self.version,
                        reason=f"protocol {protocol} is not the daemon's protocol "
                        f"{PROTOCOL_VERSION}",
                    )
                )
            )
            await client.writer.drain()
            return False
        message = framing.decode_client(body)
        assert isinstance(message, Hello)
        client.kind = message.kind
        # Sizes and the environment are bounded (core.limits): a screen of 10^9 rows
        # would exhaust memory, an env of a million entries would land in every shell.
        client.width, client.height = clamp_window(message.width, message.height)
        client.env = bounded_env(dict(message.env))
        client.cell = message.cell
        client.last_active = time.monotonic()
        client.send(
            Welcome(
                protocol=PROTOCOL_VERSION,
                daemon_version=self.version,
                daemon_pid=os.getpid(),
                client_id=client.id,
            )
        )
        if client.kind == "tui":
            try:
                client.window_id = self._choose_window(message.window)
            except IdeaError as exc:
                client.send(Detached(reason=exc.message, error=True))
                await client.writer.drain()
                return False
        return True

    def _choose_window(self, name: str | None) -> str:
        service = self._service()
        if name:
            return service.lookups.window_by_name(name).id
        return service.project_ops.default_window().id

    def _attach(self, client: ClientConnection) -> None:
        service = self._service()
        service.programs.set_client_env(client.env)
        assert client.window_id is not None
        self.claim_size(client)
        window = next(w for w in service.workspace.windows if w.id == client.window_id)
        problems = list(service.problems)
        notices: list[str] = []
        for root in window.tabs:
            runtime = service.projects.get(root)
            if runtime is not None:
                problems.extend(runtime.problems)
                notices.extend(runtime.notices)
        for notice in notices:
            client.send(Notice(text=notice, level="info"))
        for problem in problems:
            client.send(Notice(text=problem, level="error"))
        self.frames.repaint(client.window_id)

    def claim_size(self, client: ClientConnection) -> None:
        """The most recently active client's size wins (tmux `window-size latest`)."""
        if client.window_id is not None:
            self._service().project_ops.set_window_size(
                client.window_id, client.width, client.height)

    def _on_client_gone(self, client: ClientConnection) -> None:
        # A client that detaches (prefix d, a closed terminal) leaves its edits on disk.
        self._service().persistence.layout_saver.flush()
        # Another client of the same window takes over the size.
        others = [
            c for c in self.clients.values() if c.attached and c.window_id == client.window_id
        ]
        if others:
            self.claim_size(max(others, key=lambda c: c.last_active))

    async def _read_loop(self, client: ClientConnection, reader: asyncio.StreamReader) -> None:
        try:
            await self._read_messages(client, reader)
        finally:
            # A client that goes away takes its pending commands with it (a `capture
            # --wait` stops watching the cell).
            for task in list(client.tasks):
                task.cancel()

    async def _read_messages(self, client: ClientConnection,
                             reader: asyncio.StreamReader) -> None:
        while True:
            body = await framing.read_frame(reader)
            if body is None:
                return
            if self._stopping:
                continue  # read to its end, but the server is going: nothing more is done
            message = framing.decode_client(body)
            if isinstance(message, Request):
                if client.kind == "control":
                    # A script's command (an `idea ask`...) starts after a typed key's echo.
                    await self.frames.echo_first.after_echo()
                self._dispatch(client, message)
                with contextlib.suppress(ConnectionError):
                    await client.writer.drain()
            elif isinstance(message, FramesShown):
                self.frames.shown(client, message.count)
            elif isinstance(message, ClientSize):
                size = clamp_window(message.width, message.height)
                # Only a real change of the client's terminal is activity: a client
                # repeating the size it already has (its first layout, the end of its
                # first-run check) must not take the window back from the client that
                # attached or typed after it.
                if size != (client.width, client.height):
                    client.width, client.height = size
                    client.last_active = time.monotonic()
                    self.claim_size(client)
            else:
                self._input(client, message)
            if client.closed:
                return

    def _input(
        self,
        client: ClientConnection,
        message: KeyInput | RawInput | PasteInput | MouseInput | Hello,
    ) -> None:
        from idea_daemon import input_encoding

        service = self._service()
        if isinstance(message, Hello):
            raise framing.FrameError("hello sent twice")
        previous = client.last_active
        client.last_active = time.monotonic()
        if not isinstance(message, MouseInput):
            client.typed_at, client.echo_frame = client.last_active, None
            client.typed_cell = message.cell
        if client.attached and self._is_latest(client, previous):
            self.claim_size(client)
        session = self._session_for_cell(message.cell)
        if session is None:
            return
        if session.attention:
            session.attention = ""
            self.frames.scene_changed(client.window_id)
        data = input_encoding.encode(
            message, session.emulator.modes, agent=session.agent_id is not None
        )
        if data and not isinstance(message, MouseInput):
            self.frames.echo_first.typed(session.id, client.last_active)
        if data and not session.write(data):
            self.frames.notify(client.window_id, "input refused: the program is not reading",
                               "error")
        elif data:
            session.note_human_input(data)
        del service

    def _is_latest(self, client: ClientConnection, previous: float) -> bool:
        return any(
            c.last_active > previous
            for c in self.clients.values()
            if c is not client and c.attached and c.window_id == client.window_id
        )

    def _session_for_cell(self, cell_id: str) -> TerminalSession | None:
        service = self._service()
        try:
            ref = service.lookups.find_cell(cell_id)
        except IdeaError:
            return None
        return service.lookups.session_of(ref)

    def _dispatch(self, client: ClientConnection, request: Request) -> None:
        """Run a command. Synchronous commands run at once, in the order they came, between
        the input messages around them; a command that waits (`capture --wait`, profile
        detection, git) goes on in its own task, so the client's keys and other commands
        are not held up behind it."""
        started = self._start(client, request)
        if isinstance(started, Response):
            client.send(started)
            return
        if len(client.tasks) >= MAX_PENDING_COMMANDS:
            started.close()
            client.send(Response(id=request.id, error=ErrorInfo(
                code="busy", message=f"{MAX_PENDING_COMMANDS} commands of this connection "
                                     "are still running; wait for some to finish")))
            return
        assert self._loop is not None
        task = self._loop.create_task(self._answer_when_done(client, request, started))
        client.tasks.add(task)
        task.add_done_callback(client.tasks.discard)

    async def _answer_when_done(self, client: ClientConnection, request: Request,
                                pending: Coroutine[Any, Any, Any]) -> None:
        client.send(await self._complete(client, request, pending))
        with contextlib.suppress(ConnectionError):
            await client.writer.drain()

    async def run_command(self, client: ClientConnection, request: Request) -> Response:
        """Run one request for a client and make its answer (the scene it changed is sent
        first, see `flush_scenes`)."""
        started = self._start(client, request)
        if isinstance(started, Response):
            return started
        return await self._complete(client, request, started)

    def _start(self, client: ClientConnection,
               request: Request) -> Response | Coroutine[Any, Any, Any]:
        """The answer of a command that does not wait, or the coroutine of one that does."""
        entry = self.handlers.get(request.method)
        if entry is None:
            return Response(
                id=request.id,
                error=ErrorInfo(
                    code="unknown_command", message=f"unknown command: {request.method}"
                ),
            )
        try:
            # Parameters are decoded into the command's Struct first (a `bad_request` error
            # names the field), then the handler runs.
            result = entry.invoke(self, client, request.params)
        except Exception as exc:
            return self._error(request, exc)
        if asyncio.iscoroutine(result):
            return result
        self._settle(client)
        return Response(id=request.id, result=result)

    async def _complete(self, client: ClientConnection, request: Request,
                        pending: Coroutine[Any, Any, Any]) -> Response:
        try:
            result = await pending
        except Exception as exc:
            return self._error(request, exc)
        self._settle(client)
        return Response(id=request.id, result=result)

    def _settle(self, client: ClientConnection) -> None:
        """Before a command's answer: the scene it changed goes out first, and a one-shot
        command's change is on disk (a script may read `layouts.json` next). Attached
        clients' edits come in bursts (a border drag): theirs are written after the burst."""
        self.frames.flush_scenes()
        if client.kind == "control":
            self._service().persistence.layout_saver.flush()

    @staticmethod
    def _error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, IdeaError):
            code = getattr(exc, "code", type(exc).__name__)
            return Response(id=request.id, error=ErrorInfo(code=code, message=exc.message))
        # Anything else is a bug in the daemon, not a bad request: logged with its
        # traceback, and said as such.
        log.error("command %s failed", request.method, exc_info=exc)
        return Response(
            id=request.id,
            error=ErrorInfo(
                code="internal",
                message=f"{request.method} failed: {exc} (see the daemon log)",
            ),
        )

    def tell_changed(self, topic: str, key: str, client_ids: set[str]) -> None:
        """Send `Changed(topic, key)` to those clients (by id) still connected."""
        for client in list(self.clients.values()):
            if str(client.id) in client_ids and not client.closed:
                client.send(Changed(topic=topic, key=key))

    def _service(self) -> WorkspaceService:
        assert self.service is not None
        return self.service
