"""Log files only their owner can read, rotated ones too (issue 7).

The daemon's log names projects, programs and clients; on a shared machine it is nobody
else's business. `logging.handlers.RotatingFileHandler` opens each new file with the
process umask (0644 usually) after a rollover, so the first rotation used to make the
current `daemon.log` world-readable. `PrivateRotatingFileHandler` opens every file it writes
with mode 0600 (and sets it back to 0600 if an older idea left it wider), never follows a
symbolic link planted where the log goes, and can keep a file descriptor (stderr of the
daemon) pointed at the current file across rotations, so a crash in a C extension lands in
the file being read, not in `daemon.log.2`.
"""

from __future__ import annotations

import logging.handlers
import os
import stat
from typing import Any

LOG_MODE = 0o600


def open_private(path: str | os.PathLike[str]) -> int:
    """An append-only descriptor of `path`, created 0600, refusing a symbolic link.

    Raises:
        OSError: The file cannot be opened (ELOOP for a symbolic link).
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC,
                 LOG_MODE)
    try:
        info = os.fstat(fd)
        if stat.S_IMODE(info.st_mode) != LOG_MODE and info.st_uid == os.getuid():
            os.fchmod(fd, LOG_MODE)
    except OSError:
        os.close(fd)
        raise
    return fd


class PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """A `RotatingFileHandler` whose files, current and rotated, are all 0600.

    Args:
        filename: The log file.
        max_bytes, backup_count: As for `RotatingFileHandler`.
        mirror_fd: A descriptor (2 for stderr) re-pointed at the current file after each
            rotation, or None.
    """

    def __init__(self, filename: str | os.PathLike[str], max_bytes: int, backup_count: int,
                 mirror_fd: int | None = None) -> None:
        self.mirror_fd = mirror_fd
        super().__init__(filename, maxBytes=max_bytes, backupCount=backup_count,
                         encoding="utf-8")

    def _open(self) -> Any:
        fd = open_private(self.baseFilename)
        if self.mirror_fd is not None:
            os.dup2(fd, self.mirror_fd)
        return open(fd, "a", encoding=self.encoding or "utf-8", errors=self.errors)

    def doRollover(self) -> None:
        super().doRollover()
        # Rotated files were renamed, so they keep their mode; one left 0644 by an older
        # idea (or another tool) is narrowed here.
        for index in range(1, self.backupCount + 1):
            rotated = f"{self.baseFilename}.{index}"
            try:
                info = os.lstat(rotated)
            except FileNotFoundError:
                continue
            if stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) != LOG_MODE:
                os.chmod(rotated, LOG_MODE)
