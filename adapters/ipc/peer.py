"""Who is at the other end of the socket, and whether a runtime path is safe to reuse (issue 7).

The daemon's socket is the keyboard of every program it runs: whoever connects can type
into the user's shells. The socket is 0600 in a 0700 folder, but the folder can be
`/tmp/idea-$UID` and a long `IDEA_HOME` puts the socket straight in `/tmp`, where anyone may
create a path first. So:

- the daemon asks the kernel for the uid of each connecting process (`SO_PEERCRED`) and
  refuses every uid but its own (root included: root can read the memory anyway, but a
  daemon that answers root can be driven by a setuid helper);
- the client checks the daemon's uid the same way, so a socket planted by another user in
  `/tmp` never gets the user's keys;
- every path reused in the runtime folder (socket, pid file, lock) is checked with `lstat`
  before use: it must be of the expected kind and owned by the user, never a symbolic link.

On systems without `SO_PEERCRED` (macOS) the uid checks are skipped; the path checks and
the 0600/0700 modes still apply.
"""

from __future__ import annotations

import os
import socket
import stat
import struct

_UCRED = struct.Struct("3i")  # pid, uid, gid

TYPE_CHECKING = False  # the attach's first frame checks its peer before typing is loaded
if TYPE_CHECKING:
    from typing import Protocol

    class _Socket(Protocol):
        """A socket, or asyncio's `TransportSocket` wrapper of one."""

        def getsockopt(self, level: int, option: int, buflen: int, /) -> bytes: ...


class UnsafeRuntimePath(Exception):
    """A runtime path exists but is not ours to reuse (message for the user)."""


def peer_uid(sock: _Socket) -> int | None:
    """The uid of the process at the other end of a Unix socket, or None when the system
    cannot tell (no `SO_PEERCRED`)."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return None
    try:
        raw = sock.getsockopt(socket.SOL_SOCKET, option, _UCRED.size)
    except OSError:
        return None
    _pid, uid, _gid = _UCRED.unpack(raw)
    return int(uid)


def is_own_peer(sock: _Socket | None) -> bool:
    """True unless the kernel says the peer runs as another user."""
    if sock is None:
        return True
    uid = peer_uid(sock)
    return uid is None or uid == os.getuid()


_KINDS = {"socket": stat.S_ISSOCK, "file": stat.S_ISREG, "folder": stat.S_ISDIR}


def check_reusable(path: str | os.PathLike[str], kind: str) -> bool:
    """Whether `path` exists; when it does, it must be a `kind` ("socket", "file" or
    "folder") owned by this user, not a symbolic link, and writable by nobody else.

    Raises:
        UnsafeRuntimePath: It exists and fails one of those checks.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return False
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeRuntimePath(f"{os.fspath(path)} is a symbolic link; idea will not use it. "
                                "Remove it, or set XDG_RUNTIME_DIR / IDEA_HOME.")
    if info.st_uid != os.getuid():
        raise UnsafeRuntimePath(
            f"{os.fspath(path)} belongs to another user (uid {info.st_uid}); idea will not "
            "use it. Remove it, or set XDG_RUNTIME_DIR / IDEA_HOME."
        )
    if not _KINDS[kind](info.st_mode):
        raise UnsafeRuntimePath(f"{os.fspath(path)} is not a {kind}; idea will not use it. "
                                "Remove it, or set XDG_RUNTIME_DIR / IDEA_HOME.")
    if info.st_mode & 0o022:
        raise UnsafeRuntimePath(
            f"{os.fspath(path)} can be changed by other users (mode "
            f"{stat.S_IMODE(info.st_mode):04o}); idea will not use it. Remove it, or set "
            "XDG_RUNTIME_DIR / IDEA_HOME."
        )
    return True
