"""Finding, starting and talking to the daemon from a client process (no Textual here).

`ControlClient` is a blocking one-request-at-a-time connection used by the command-line
subcommands; the attached TUI uses the asyncio gateway (`idea_tui.gateway`) but starts the
daemon through `ensure_daemon` here.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import itertools
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from adapters.ipc import framing
from adapters.ipc.commands import BadParams, encode_params
from adapters.ipc.messages import PROTOCOL_VERSION, Hello, Refused, Request, Response, Welcome
from adapters.ipc.peer import UnsafeRuntimePath, check_reusable, is_own_peer
from adapters.locations import Locations
from core.environment import refreshed_variables
from core.version import VERSION

START_TIMEOUT = 10.0


class DaemonError(Exception):
    """A problem reaching the daemon, worded for the user."""


class NoDaemon(DaemonError):
    pass


class VersionMismatch(DaemonError):
    def __init__(self, daemon_version: str, daemon_protocol: int) -> None:
        self.daemon_version = daemon_version
        self.daemon_protocol = daemon_protocol
        super().__init__(
            f"the running idea daemon is version {daemon_version} (protocol {daemon_protocol}) "
            f"but this idea is {VERSION} (protocol {PROTOCOL_VERSION}).\n"
            f"Either run the idea {daemon_version} that matches it, or restart the daemon with "
            "`idea kill-server` (this ends the programs running in it) and run idea again."
        )


class CommandFailed(DaemonError):
    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message)


def checked_params(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A command's parameters (None meaning "not given") checked against the command's
    Struct, the one the daemon decodes them into (`adapters.ipc.commands`)."""
    clean = {key: value for key, value in params.items() if value is not None}
    try:
        return encode_params(method, clean)
    except BadParams as exc:
        raise CommandFailed("bad_request", str(exc)) from None


def client_env(extra_names: Sequence[str] = ()) -> dict[str, str]:
    """The variables of this terminal that the daemon refreshes for new cells (D22): tmux's
    list and the user's `refresh_env` names (the daemon may have read an older config)."""
    return refreshed_variables(os.environ, extra_names)


def configured_refresh_env(locations: Locations) -> list[str]:
    """The user's extra `refresh_env` names (none when the config cannot be used: the
    attached client reports that problem, a one-shot command stays quiet)."""
    from adapters.config import load_config

    return load_config(locations.config_file)[0].refresh_env


def check_socket(locations: Locations) -> None:
    """Refuse a socket path another user could have planted (it may be in /tmp).

    Raises:
        DaemonError: The path exists and is not this user's socket.
    """
    try:
        check_reusable(locations.socket, "socket")
    except UnsafeRuntimePath as exc:
        raise DaemonError(str(exc)) from exc


def refuse_foreign_daemon(sock: Any, path: str) -> None:
    """The process serving the socket must run as this user: keys typed into another
    user's "daemon" would go to them (SO_PEERCRED).

    Raises:
        DaemonError: It runs as another user.
    """
    if not is_own_peer(sock):
        raise DaemonError(f"the process serving {path} runs as another user; idea will not "
                          "talk to it. Remove the socket, or set XDG_RUNTIME_DIR / IDEA_HOME.")


def _connect_socket(locations: Locations) -> socket.socket:
    path = str(locations.socket)
    check_socket(locations)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as exc:
        sock.close()
        if exc.errno in (errno.ENOENT, errno.ECONNREFUSED, errno.ENOTSOCK):
            raise NoDaemon(f"no idea daemon is running (socket {path})") from exc
        raise DaemonError(f"cannot reach the idea daemon at {path}: {exc.strerror}") from exc
    try:
        refuse_foreign_daemon(sock, path)
    except DaemonError:
        sock.close()
        raise
    return sock


def start_daemon(locations: Locations) -> None:
    """Start a daemon in the background and wait until it accepts connections."""
    log_path = locations.log_file
    process = subprocess.Popen(
        [sys.executable, "-m", "idea_daemon"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=os.environ.copy(),
    )
    # The launcher forks the real daemon and returns at once.
    _, stderr = process.communicate(timeout=START_TIMEOUT)
    if process.returncode != 0:
        detail = stderr.decode(errors="replace").strip()
        raise DaemonError(f"the idea daemon did not start: {detail or 'see ' + str(log_path)}")
    started = time.monotonic()
    delay = 0.005
    while time.monotonic() < started + START_TIMEOUT:
        try:
            _connect_socket(locations).close()
            return
        except NoDaemon:
            # A daemon that died while starting releases its lock: stop waiting then.
            if time.monotonic() > started + 1.0 and not _daemon_alive(locations):
                break
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
    tail = ""
    with contextlib.suppress(OSError):
        tail = "\n".join(log_path.read_text(errors="replace").splitlines()[-5:])
    raise DaemonError(f"the idea daemon did not start. Its log ({log_path}) ends with:\n{tail}")


def _daemon_alive(locations: Locations) -> bool:
    """Whether a daemon holds the instance lock."""
    try:
        check_reusable(locations.lock_file, "file")
        fd = os.open(locations.lock_file, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o644)
        handle = os.fdopen(fd, "a+")
    except (OSError, UnsafeRuntimePath):
        return False
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(handle, fcntl.LOCK_UN)
        return False


def ensure_daemon(locations: Locations) -> None:
    try:
        _connect_socket(locations).close()
    except NoDaemon:
        start_daemon(locations)


def daemon_pid(locations: Locations) -> int | None:
    try:
        return int(locations.pid_file.read_text().strip())
    except (OSError, ValueError):
        return None


def wait_daemon_gone(locations: Locations, timeout: float = 5.0) -> bool:
    """Wait until no daemon holds the instance lock.

    The lock, not the pid, tells: the kernel releases it when the process exits, while the
    pid of a double-forked daemon lingers as a zombie until init reaps it.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not _daemon_alive(locations):
            return True
        time.sleep(0.01)
    return False


def terminate_daemon(locations: Locations, timeout: float = 5.0) -> bool:
    """Stop a daemon by signal (works whatever its protocol version)."""
    pid = daemon_pid(locations)
    if pid is None:
        return False
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    if not wait_daemon_gone(locations, timeout):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        wait_daemon_gone(locations, 2.0)
    return True


class ControlClient:
    """A blocking connection for one-shot commands."""

    def __init__(self, sock: socket.socket, welcome: Welcome) -> None:
        self._sock = sock
        self.welcome = welcome
        self._ids = itertools.count(1)

    @classmethod
    def connect(
        cls, locations: Locations, *, start: bool = False, kind: str = "control"
    ) -> ControlClient:
        if start:
            ensure_daemon(locations)
        sock = _connect_socket(locations)
        hello = Hello(
            protocol=PROTOCOL_VERSION,
            client_version=VERSION,
            kind=kind,
            env=client_env(configured_refresh_env(locations)),
            cell=os.environ.get("IDEA_CELL"),
        )
        sock.sendall(framing.encode(hello))
        body = framing.recv_frame(sock)
        if body is None:
            raise DaemonError("the idea daemon closed the connection during the handshake")
        reply = framing.peek_handshake(body)
        if reply.get("t") == "refused":
            refused = Refused(
                protocol=int(reply.get("protocol", 0)),
                daemon_version=str(reply.get("daemon_version", "?")),
                reason=str(reply.get("reason", "")),
            )
            raise VersionMismatch(refused.daemon_version, refused.protocol)
        welcome = framing.decode_daemon(body)
        if not isinstance(welcome, Welcome):
            raise DaemonError("unexpected answer from the idea daemon")
        return cls(sock, welcome)

    def call(self, method: str, **params: Any) -> Any:
        request_id = next(self._ids)
        clean = checked_params(method, params)
        self._sock.sendall(framing.encode(Request(id=request_id, method=method, params=clean)))
        while True:
            body = framing.recv_frame(self._sock)
            if body is None:
                raise DaemonError("the idea daemon closed the connection")
            message = framing.decode_daemon(body)
            if isinstance(message, Response) and message.id == request_id:
                if message.error is not None:
                    raise CommandFailed(message.error.code, message.error.message)
                return message.result

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> ControlClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
