"""A child process on a real pseudo-terminal, owned by the daemon.

Spawning avoids `fork()` in the daemon (a fork in a threaded process can deadlock): the
PTY is opened with `openpty()` and the child started with `subprocess.Popen`, through
`setsid -c` (util-linux) which makes the PTY its controlling terminal. Where `setsid` is
missing (macOS) a tiny Python trampoline does the same with `os.login_tty`.

The master side is non-blocking; the daemon's loop reads it with `add_reader`.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import shutil
import signal
import struct
import subprocess
import sys
import termios
from collections.abc import Mapping, Sequence
from pathlib import Path

log = logging.getLogger(__name__)

_TRAMPOLINE = "import os,sys\nos.login_tty(0)\nos.execvp(sys.argv[1], sys.argv[1:])\n"


def _lowered(nice: int) -> list[str]:
    """The exec-chain prefix that runs a program `nice` steps lower (none if 0, or if the
    system has no `nice`, which POSIX requires: then the program runs at the same priority)."""
    if nice <= 0:
        return []
    program = shutil.which("nice")
    if program is None:
        log.warning("no nice(1) on PATH: programs run at the daemon's priority")
        return []
    return [program, "-n", str(nice)]


class PtySpawnError(Exception):
    """The program could not be started on a PTY (message is for the user)."""


def _set_winsize(fd: int, cols: int, rows: int) -> None:
    packed = struct.pack("HHHH", max(1, rows), max(1, cols), 0, 0)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, packed)


def _launcher() -> list[str]:
    setsid = shutil.which("setsid")
    if setsid is not None and sys.platform.startswith("linux"):
        return [setsid, "-c"]
    return [sys.executable, "-I", "-S", "-c", _TRAMPOLINE]


class PtyProcess:
    """One program on one PTY. Create it with `PtyProcess.spawn`."""

    def __init__(self, popen: subprocess.Popen[bytes], master_fd: int) -> None:
        self._popen = popen
        self.fd = master_fd
        self.pid = popen.pid
        self._closed = False

    @classmethod
    def spawn(
        cls,
        argv: Sequence[str],
        *,
        cwd: str,
        env: Mapping[str, str],
        cols: int,
        rows: int,
        nice: int = 0,
    ) -> PtyProcess:
        """Start `argv` on a new PTY of `cols` × `rows`, `nice` steps below the daemon's
        CPU priority (through `nice(1)` in the exec chain: the program's first thread, and
        every one it makes, starts at that priority).

        Raises:
            PtySpawnError: the command is not found, the directory is missing or the
                system has no PTY left; the message says which.
        """
        if not argv:
            raise PtySpawnError("no command to run")
        program = argv[0]
        if shutil.which(program, path=env.get("PATH", os.defpath)) is None:
            raise PtySpawnError(f"command not found: {program} (check PATH or the profile)")
        if not Path(cwd).is_dir():
            raise PtySpawnError(f"working directory does not exist: {cwd}")
        try:
            master, slave = os.openpty()
        except OSError as exc:
            raise PtySpawnError(f"cannot open a PTY: {exc.strerror}") from exc
        try:
            _set_winsize(slave, cols, rows)
            os.set_inheritable(slave, False)
            popen = subprocess.Popen(
                [*_launcher(), *_lowered(nice), *argv],
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=cwd,
                env=dict(env),
                close_fds=True,
            )
        except OSError as exc:
            os.close(master)
            raise PtySpawnError(f"cannot start {program}: {exc.strerror or exc}") from exc
        finally:
            os.close(slave)
        os.set_blocking(master, False)
        # The program and the number of arguments only: an agent's argv can carry its whole
        # composed context (the flag strategy) or a secret, and the log must hold neither.
        log.info("spawned pid %s: %s (%d arguments) in %s (%sx%s)",
                 popen.pid, program, len(argv) - 1, cwd, cols, rows)
        return cls(popen, master)

    def read(self, size: int = 16384) -> bytes | None:
        """Read what is available. `None` means nothing now; `b""` means the end."""
        try:
            return os.read(self.fd, size)
        except BlockingIOError:
            return None
        except OSError as exc:
            # Linux reports EIO once every process holding the slave side has exited.
            if exc.errno in (errno.EIO, errno.EBADF):
                return b""
            raise

    def write(self, data: bytes) -> int:
        """Write without blocking; returns how many bytes the PTY took."""
        try:
            return os.write(self.fd, data)
        except BlockingIOError:
            return 0
        except OSError as exc:
            if exc.errno in (errno.EIO, errno.EBADF):
                return len(data)  # the child is gone: drop the input
            raise

    def resize(self, cols: int, rows: int) -> None:
        try:
            _set_winsize(self.fd, cols, rows)
        except OSError:
            log.debug("resize of pid %s failed (already gone?)", self.pid)

    def poll(self) -> int | None:
        """The exit status once the child ended (negative: killed by that signal)."""
        return self._popen.poll()

    def wait(self, timeout: float | None = None) -> int:
        return self._popen.wait(timeout)

    def signal(self, signum: int) -> None:
        """Signal the child's whole process group (the shell and its jobs)."""
        try:
            os.killpg(self.pid, signum)
        except (ProcessLookupError, PermissionError):
            try:
                os.kill(self.pid, signum)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.signal(signal.SIGHUP)

    def kill(self) -> None:
        self.signal(signal.SIGKILL)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                os.close(self.fd)
            except OSError:
                pass

    def cwd(self) -> str | None:
        """The working directory of the program in the foreground, else the child's."""
        for pid in (self.foreground_pgid(), self.pid):
            if pid is None or pid <= 0:
                continue
            try:
                return os.readlink(f"/proc/{pid}/cwd")
            except OSError:
                continue
        return None

    def foreground_pgid(self) -> int | None:
        try:
            return os.tcgetpgrp(self.fd)
        except OSError:
            return None

    def foreground_command(self) -> str | None:
        """Name of the program in the foreground when it is not the child itself.

        `None` means the child (e.g. the shell at its prompt) is in the foreground: a cell
        can then be closed without asking.
        """
        pgid = self.foreground_pgid()
        # 0: no foreground group yet (the child has not taken the terminal).
        if pgid is None or pgid <= 0 or pgid == self.pid:
            return None
        try:
            return Path(f"/proc/{pgid}/comm").read_text().strip() or str(pgid)
        except OSError:
            return str(pgid)

    def command_name(self) -> str:
        try:
            return Path(f"/proc/{self.pid}/comm").read_text().strip()
        except OSError:
            return Path(
                str(
                    self._popen.args[-1] if isinstance(self._popen.args, list) else self._popen.args
                )
            ).name
