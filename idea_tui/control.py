"""Finding, starting and talking to the daemon from a client process (no Textual here).

`ControlClient` is a blocking one-request-at-a-time connection used by the command-line
subcommands; the attached TUI uses the asyncio gateway (`idea_tui.gateway`) but starts the
daemon through `ensure_daemon` here.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import signal
import socket
import sys
import time
from collections.abc import Sequence
from typing import Any, TypeVar

from adapters.ipc import framing
from adapters.ipc.messages import PROTOCOL_VERSION, Hello, Refused, Request, Response, Welcome
from adapters.ipc.peer import UnsafeRuntimePath, check_reusable
from adapters.locations import Locations
from core.environment import refreshed_variables
from core.version import VERSION
from idea_tui.daemon_socket import DaemonError as DaemonError
from idea_tui.daemon_socket import NoDaemon as NoDaemon
from idea_tui.daemon_socket import VersionMismatch as VersionMismatch
from idea_tui.daemon_socket import check_socket as check_socket
from idea_tui.daemon_socket import connect_socket as connect_socket
from idea_tui.daemon_socket import refuse_foreign_daemon as refuse_foreign_daemon

START_TIMEOUT = 10.0

T = TypeVar("T")


class CommandFailed(DaemonError):
    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message)


def checked_params(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A command's parameters (None meaning "not given") checked against the command's
    Struct, the one the daemon decodes them into (`adapters.ipc.commands`)."""
    # Imported here: the Structs of every command are not needed for an attach's first frame.
    from adapters.ipc.commands import BadParams, encode_params

    clean = {key: value for key, value in params.items() if value is not None}
    try:
        return encode_params(method, clean)
    except BadParams as exc:
        raise CommandFailed("bad_request", str(exc)) from None


def checked_answer(method: str, result: Any) -> Any:
    """A command's result, refused (`CommandFailed` "bad_answer", naming what does not fit)
    when it is not the command's answer type (`adapters.ipc.answers`)."""
    from adapters.ipc.answers import BadAnswer, check_answer

    try:
        check_answer(method, result)
    except BadAnswer as exc:
        raise CommandFailed("bad_answer", str(exc)) from None
    return result


def decoded(kind: type[T], method: str, result: Any) -> T:
    """A command's result as its answer Struct (`CommandFailed` "bad_answer" when it does
    not fit): what clients read instead of the map."""
    from adapters.ipc.answers import BadAnswer, decode_answer

    try:
        return decode_answer(kind, method, result)
    except BadAnswer as exc:
        raise CommandFailed("bad_answer", str(exc)) from None


def decoded_list(kind: type[T], method: str, result: Any) -> list[T]:
    """A list answer (`agent_list`, `window_list`, ...) as a list of its Struct."""
    from adapters.ipc.answers import BadAnswer, decode_answers

    try:
        return decode_answers(kind, method, result)
    except BadAnswer as exc:
        raise CommandFailed("bad_answer", str(exc)) from None


def client_env(extra_names: Sequence[str] = ()) -> dict[str, str]:
    """The variables of this terminal that the daemon refreshes for new cells (D22): tmux's
    list and the user's `refresh_env` names (the daemon may have read an older config)."""
    return refreshed_variables(os.environ, extra_names)


def configured_refresh_env(locations: Locations) -> list[str]:
    """The user's extra `refresh_env` names (none when the config cannot be used: the
    attached client reports that problem, a one-shot command stays quiet)."""
    from adapters.config import load_config

    return load_config(locations.config_file)[0].refresh_env


def _launch_daemon(locations: Locations) -> None:
    import subprocess  # only here: an attach to a running daemon never needs it

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
        raise DaemonError(
            f"the idea daemon did not start: {detail or 'see ' + str(locations.log_file)}")


LAUNCHES = 2
"""Daemons started at most by one `start_daemon`: a second when the first found the lock
still held by a daemon on its way out (`idea kill-server` then `idea`, on a loaded
machine) and left, as a second daemon does."""
LOCK_GRACE = 1.0
"""Seconds a started daemon has to take the instance lock before it counts as gone."""


def start_daemon(locations: Locations) -> None:
    """Start a daemon in the background and wait until it accepts connections."""
    deadline = time.monotonic() + START_TIMEOUT
    launches = 0
    launched_at = 0.0
    delay = 0.005
    while time.monotonic() < deadline:
        try:
            connect_socket(locations).close()
            return
        except NoDaemon:
            pass
        if time.monotonic() > launched_at + LOCK_GRACE and not _daemon_alive(locations):
            # None holds the lock: start one (again, if the last left because a stopping
            # daemon still held it; or stop waiting for one that died while starting).
            if launches == LAUNCHES:
                break
            _launch_daemon(locations)
            launches += 1
            launched_at = time.monotonic()
            delay = 0.005
            continue
        time.sleep(delay)
        delay = min(delay * 2, 0.1)
    log_path = locations.log_file
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


def handshake(sock: socket.socket, hello: Hello) -> Welcome:
    """Say Hello on a blocking socket and return the daemon's Welcome.

    Raises:
        VersionMismatch: The daemon speaks another protocol version.
        DaemonError: It closed the connection or answered something else.
    """
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
    return welcome


def ensure_daemon(locations: Locations) -> None:
    try:
        connect_socket(locations).close()
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
        sock = connect_socket(locations)
        hello = Hello(
            protocol=PROTOCOL_VERSION,
            client_version=VERSION,
            kind=kind,
            env=client_env(configured_refresh_env(locations)),
            cell=os.environ.get("IDEA_CELL"),
        )
        try:
            welcome = handshake(sock, hello)
        except DaemonError:
            sock.close()
            raise
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
                return checked_answer(method, message.result)

    def call_as(self, answer: type[T], method: str, /, **params: Any) -> T:
        """Run a command whose answer is the Struct `answer` (`adapters.ipc.answers`)."""
        return decoded(answer, method, self.call(method, **params))

    def call_list(self, answer: type[T], method: str, /, **params: Any) -> list[T]:
        """Run a command whose answer is a list of the Struct `answer`."""
        return decoded_list(answer, method, self.call(method, **params))

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> ControlClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
