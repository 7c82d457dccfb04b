"""Reaching this user's daemon: the errors worded for the user, and a checked connection.

Apart from `idea_tui.control` (the request/answer client) because the early frame of an
attach (`idea_tui.early_attach`) connects before msgspec is loaded: nothing here needs it.
"""

from __future__ import annotations

import errno
import socket

from adapters.ipc.peer import UnsafeRuntimePath, check_reusable, is_own_peer
from adapters.locations import Locations
from core.version import VERSION

TYPE_CHECKING = False  # typing is not imported before the first frame
if TYPE_CHECKING:
    from typing import Any


class DaemonError(Exception):
    """A problem reaching the daemon, worded for the user."""


class NoDaemon(DaemonError):
    pass


class VersionMismatch(DaemonError):
    def __init__(self, daemon_version: str, daemon_protocol: int) -> None:
        from adapters.ipc.messages import PROTOCOL_VERSION

        self.daemon_version = daemon_version
        self.daemon_protocol = daemon_protocol
        super().__init__(
            f"the running idea daemon is version {daemon_version} (protocol {daemon_protocol}) "
            f"but this idea is {VERSION} (protocol {PROTOCOL_VERSION}).\n"
            f"Either run the idea {daemon_version} that matches it, or restart the daemon with "
            "`idea kill-server` (this ends the programs running in it) and run idea again."
        )


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


def connect_socket(locations: Locations) -> socket.socket:
    """A blocking connection to this user's daemon (the socket and its peer checked).

    Raises:
        NoDaemon: None runs.
        DaemonError: It cannot be reached, or is not this user's.
    """
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
