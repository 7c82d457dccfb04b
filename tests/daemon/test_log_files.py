"""The daemon's and the client's log files are 0600, rotated ones too, and never hold an
agent's composed context (issue 7)."""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.locations import locate
from adapters.private_log import PrivateRotatingFileHandler
from idea_daemon import main


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def root_logger() -> Iterator[logging.Logger]:
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    old_umask = os.umask(0o022)  # the usual umask: new files would be 0644
    try:
        yield root
    finally:
        os.umask(old_umask)
        for handler in root.handlers:
            handler.close()
        root.handlers[:] = handlers
        root.setLevel(level)


def test_the_daemon_log_stays_0600_across_rotations(
        tmp_path: Path, root_logger: logging.Logger) -> None:
    locations = locate({"IDEA_HOME": str(tmp_path)})
    locations.state.mkdir(parents=True)
    main._setup_logging(locations, True)
    line = "x" * 1000
    for _ in range(5_000):  # 5 MB: two rotations at 2 MB
        logging.getLogger("idea_daemon").info(line)
    files = sorted(locations.state.glob("daemon.log*"))
    assert [f.name for f in files] == ["daemon.log", "daemon.log.1", "daemon.log.2"]
    assert {f.name: mode(f) for f in files} == {f.name: 0o600 for f in files}


def test_a_log_left_world_readable_is_narrowed_and_a_symlink_is_refused(
        tmp_path: Path, root_logger: logging.Logger) -> None:
    path = tmp_path / "client.log"
    path.write_text("old\n")
    path.chmod(0o644)
    (tmp_path / "client.log.1").write_text("older\n")
    (tmp_path / "client.log.1").chmod(0o644)
    handler = PrivateRotatingFileHandler(path, 100, 1)
    assert mode(path) == 0o600
    record = logging.LogRecord("t", logging.INFO, __file__, 1, "y" * 200, None, None)
    handler.emit(record)
    handler.emit(record)
    handler.close()
    assert mode(path) == 0o600 and mode(tmp_path / "client.log.1") == 0o600
    # A symbolic link where the log goes (planted in a shared folder) is not followed.
    target = tmp_path / "elsewhere"
    link = tmp_path / "daemon.log"
    link.symlink_to(target)
    with pytest.raises(OSError):
        PrivateRotatingFileHandler(link, 100, 1)
    assert not target.exists()


def test_stderr_follows_the_current_log_after_a_rotation(
        tmp_path: Path, root_logger: logging.Logger) -> None:
    path = tmp_path / "daemon.log"
    mirror = os.open(os.devnull, os.O_WRONLY)
    try:
        handler = PrivateRotatingFileHandler(path, 100, 1, mirror_fd=mirror)
        handler.emit(logging.LogRecord("t", logging.INFO, __file__, 1, "y" * 200, None, None))
        handler.emit(logging.LogRecord("t", logging.INFO, __file__, 1, "z", None, None))
        os.write(mirror, b"from a C extension\n")
        handler.close()
        assert "from a C extension" in path.read_text()
        assert "from a C extension" not in (tmp_path / "daemon.log.1").read_text()
    finally:
        os.close(mirror)
