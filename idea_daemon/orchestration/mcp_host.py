"""Hosting idea's MCP server (D11): both listeners, the agents' secrets, the config each
agent is launched with, and the MCP worker process that serves them.

Both listeners are bound by the daemon when it starts — the Unix socket for the stdio
bridge and a 127.0.0.1 port for streamable HTTP — so configs can be written at once and the
addresses never change. They are served by a child process, the MCP worker
(`adapters/mcp/worker.py`, which loads the mcp SDK): connections wait in the listeners'
backlogs while it starts. The worker reaches the orchestration service through a channel
(`adapters/mcp/channel.py`): a tool call is a `Call` frame the daemon's loop runs as a short
coroutine, answered by a `Result` or a `Failure`; cancelling the call cancels that run
(an abandoned ask frees its target, DLG-7).

Why a process: the SDK's per-call work (validation, streams, serialization, about 2 ms of
Python) ran in a thread of the daemon and held the interpreter lock against the daemon's
loop — every PTY's echo waited for it. The daemon issues the secrets and sends each to the
worker (`Grant`); a worker that exits unexpectedly is started again with all of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from adapters.mcp import channel
from adapters.mcp.identity import Caller, SecretRegistry
from adapters.mcp.port import Orchestrator
from adapters.mcp.port_context import ContextPort
from adapters.mcp.port_memory import MemoryPort
from adapters.mcp.port_skills import SkillsPort
from adapters.mcp.port_workstate import WorkState
from core.agents.profile import AgentProfile, ConfigFile, McpTransport
from core.errors import IdeaError

log = logging.getLogger(__name__)
worker_log = logging.getLogger("idea_mcp_worker")

STOP_WAIT = 2.0
"""Seconds the worker has to end once its channel is closed, before it is killed."""
RESTART_DELAYS = (0.5, 2.0, 10.0)
"""Waits before starting a worker that exited again (then the last, each time)."""

_PORTS: tuple[tuple[str, type], ...] = (
    ("", Orchestrator), ("", SkillsPort), ("", WorkState),
    ("knowledge.", MemoryPort), ("knowledge.", ContextPort),
)


def served_methods(orchestrator: object) -> list[str]:
    """The paths of the ports' coroutine methods the orchestrator has (`ask`,
    `knowledge.memory_read`, ...): what the worker may call, and nothing else."""
    paths: list[str] = []
    for prefix, port in _PORTS:
        owner = orchestrator
        if prefix:
            owner = getattr(orchestrator, prefix.rstrip("."), None)
            if owner is None:
                continue
        for name, member in vars(port).items():
            if inspect.iscoroutinefunction(member) and inspect.iscoroutinefunction(
                    getattr(owner, name, None)) and prefix + name not in paths:
                paths.append(prefix + name)
    return paths


async def _at_once() -> None:
    return None


class McpHost:
    def __init__(self, socket_path: Path, orchestrator: Orchestrator) -> None:
        self.socket_path = socket_path
        self.orchestrator = orchestrator
        self.registry = SecretRegistry()
        self._granted: dict[str, tuple[str, Caller]] = {}
        """The secrets issued, by agent (what a new worker is told)."""
        self._unix_socket: socket.socket | None = None
        self._http_socket: socket.socket | None = None
        self._worker: subprocess.Popen[bytes] | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._channel: asyncio.Task[None] | None = None
        self._calls: dict[int, asyncio.Task[None]] = {}
        self._methods: list[str] = []
        self._ready = False
        self._failed: str | None = None
        self._stopping = False
        self._restarts = 0
        self.after_echo: Callable[[], Awaitable[None]] = _at_once
        """Awaited before each tool call (the composition root hands in the frame sender's
        `EchoFirst.after_echo`: a typed key's echo goes first)."""

    @property
    def ready(self) -> bool:
        """Whether the worker serves (or failed to start): a CLI launched now connects at
        once instead of waiting in the backlog."""
        return self._ready

    @property
    def url(self) -> str:
        port = self._http_socket.getsockname()[1] if self._http_socket else 0
        return f"http://127.0.0.1:{port}/mcp"

    @property
    def worker_pid(self) -> int | None:
        return self._worker.pid if self._worker is not None else None

    async def start(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()  # a killed daemon's socket (we hold the daemon lock)
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        unix.bind(str(self.socket_path))
        os.chmod(self.socket_path, 0o600)
        unix.listen(128)
        self._unix_socket = unix
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        self._http_socket = sock
        self._methods = served_methods(self.orchestrator)
        self._channel = asyncio.get_running_loop().create_task(self._keep_worker())

    # ─── the worker ──────────────────────────────────────────────────────────────────

    async def _keep_worker(self) -> None:
        """Run the worker; start it again when it exits while the daemon serves."""
        while not self._stopping:
            started = time.monotonic()
            try:
                await self._run_worker()
            except Exception:
                log.exception("the MCP worker failed")
            if self._stopping:
                return
            self._ready = False
            if time.monotonic() - started > 60:
                self._restarts = 0
            delay = RESTART_DELAYS[min(self._restarts, len(RESTART_DELAYS) - 1)]
            self._restarts += 1
            log.error("the MCP worker exited (code %s); starting it again in %g s",
                      self._worker.poll() if self._worker else None, delay)
            await asyncio.sleep(delay)

    async def _run_worker(self) -> None:
        assert self._unix_socket is not None and self._http_socket is not None
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        fds = (theirs.fileno(), self._unix_socket.fileno(), self._http_socket.fileno())
        try:
            self._worker = subprocess.Popen(
                [sys.executable, "-m", "adapters.mcp.worker", "--channel", str(fds[0]),
                 "--unix", str(fds[1]), "--http", str(fds[2])],
                pass_fds=fds, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                close_fds=True,
            )
        finally:
            theirs.close()
        log.info("MCP worker started (pid %s)", self._worker.pid)
        reader, writer = await asyncio.open_unix_connection(sock=ours)
        self._writer = writer
        try:
            while (body := await channel.read_body(reader)) is not None:
                self._handle(channel.decode_to_daemon(body))
        except channel.ChannelError as exc:
            log.error("the MCP worker's channel broke: %s", exc)
        finally:
            self._writer = None
            writer.close()
            for task in list(self._calls.values()):
                task.cancel()  # the worker is gone: its callers are too
            await self._reap()

    async def _reap(self) -> None:
        worker = self._worker
        if worker is None:
            return
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, worker.wait, STOP_WAIT)
        except subprocess.TimeoutExpired:
            worker.kill()
            await loop.run_in_executor(None, worker.wait)

    def _send(self, frame: Any) -> None:
        writer = self._writer
        if writer is not None and not writer.is_closing():
            writer.write(channel.encode(frame))

    def _handle(self, frame: channel.ToDaemon) -> None:
        if isinstance(frame, channel.Call):
            task = asyncio.get_running_loop().create_task(self._call(frame))
            self._calls[frame.id] = task
            task.add_done_callback(self._call_ended(frame.id))
        elif isinstance(frame, channel.Cancel):
            running = self._calls.get(frame.id)
            if running is not None:
                running.cancel()
        elif isinstance(frame, channel.Connected):
            self.orchestrator.connected(frame.caller.caller())
        elif isinstance(frame, channel.Sync):
            self._send(channel.Synced(id=frame.id))
        elif isinstance(frame, channel.Hello):
            grants = [channel.Grant(secret=secret, caller=channel.Who.of(caller))
                      for secret, caller in self._granted.values()]
            self._send(channel.Serve(methods=self._methods, secrets=grants))
        elif isinstance(frame, channel.Ready):
            self._ready = True
            self._failed = frame.error or None
            if frame.error:
                log.error("the MCP server did not start: %s", frame.error)
            else:
                log.info("MCP server ready: %s and %s", self.socket_path, self.url)
        elif isinstance(frame, channel.Log):
            worker_log.log(frame.level, "%s: %s", frame.name, frame.message)

    async def _call(self, call: channel.Call) -> None:
        """Run one tool's call into the service, on the daemon's loop (after a typed key's
        echo, if one is on its way: `after_echo`)."""
        await self.after_echo()
        if call.method not in self._methods:
            self._send(channel.Failure(id=call.id, message=f"no such call {call.method!r}"))
            return
        owner: Any = self.orchestrator
        *path, name = call.method.split(".")
        for part in path:
            owner = getattr(owner, part)
        args = list(call.args)
        if 0 <= call.progress < len(args):
            args[call.progress] = self._progress_of(call.id)
        try:
            value = await getattr(owner, name)(call.caller.caller(), *args)
        except asyncio.CancelledError:
            raise
        except IdeaError as exc:
            self._send(channel.Failure(id=call.id, message=exc.message,
                                       code=str(getattr(exc, "code", ""))))
            return
        except Exception as exc:
            log.exception("MCP call %s failed", call.method)
            self._send(channel.Failure(id=call.id, message=f"idea failed: {exc}"))
            return
        self._send(channel.Result(id=call.id, value=channel.plain(value)))

    def _call_ended(self, number: int) -> Callable[[asyncio.Task[None]], None]:
        def ended(_task: asyncio.Task[None]) -> None:
            self._calls.pop(number, None)

        return ended

    def _progress_of(self, number: int) -> Callable[[str], Any]:
        async def progress(message: str) -> None:
            self._send(channel.Progress(id=number, message=message))

        return progress

    async def stop(self) -> None:
        self._stopping = True
        worker = self._worker
        if worker is not None and not self._ready and worker.poll() is None:
            # Still loading the SDK (seconds under load): it serves nothing yet and would
            # see its channel close only after the import; `idea kill-server` need not wait.
            worker.kill()
        writer = self._writer
        if writer is not None:
            writer.close()  # the worker ends when its channel closes
        if self._channel is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._channel, STOP_WAIT + 1)
            self._channel.cancel()
        if self._worker is not None and self._worker.poll() is None:
            self._worker.kill()
        for sock in (self._unix_socket, self._http_socket):
            if sock is not None:
                sock.close()
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()

    # ─── per agent ───────────────────────────────────────────────────────────────────

    def write_agent_config(self, caller: Caller, profile: AgentProfile, run_dir: Path) -> Path:
        """A fresh secret and the agent's MCP config in its run dir; returns the file."""
        from adapters.mcp.config import http_entry, stdio_entry, write_config

        assert profile.mcp is not None
        secret = self.registry.issue(caller)
        self._granted[_key(caller)] = (secret, caller)
        # Sent before the CLI exists: the worker knows the secret before it can be shown.
        self._send(channel.Grant(secret=secret, caller=channel.Who.of(caller)))
        entry: Callable[[Path], dict[str, Any]]
        if profile.mcp.transport is McpTransport.HTTP:
            url = self.url

            def entry(_path: Path) -> dict[str, Any]:
                return http_entry(url, secret)
        else:
            socket_path = str(self.socket_path)

            def entry(path: Path) -> dict[str, Any]:
                return stdio_entry(path, socket_path, secret)

        name = "mcp.json"
        if isinstance(profile.mcp.config, ConfigFile):
            name = profile.mcp.config.target
        folder = (run_dir / name).parent
        folder.mkdir(parents=True, exist_ok=True)
        return write_config(folder, entry, (run_dir / name).name)

    def forget(self, caller: Caller) -> None:
        self.registry.revoke(caller)
        self._granted.pop(_key(caller), None)
        self._send(channel.Revoke(caller=channel.Who.of(caller)))


def _key(caller: Caller) -> str:
    return f"{caller.project_root}\0{caller.agent_id}"
