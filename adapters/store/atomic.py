"""Atomic JSON files, and the rule that a file we could not read is never overwritten.

How stores use this module (DECISIONS D12):

1. Read with `read_json`, then decode; a `CorruptFile` or `NewerVersion` goes to the user
   (its message names the file and says what to do) and the rest of the project opens.
2. Write with `replace_json`, passing the same decoder as `check`: it re-reads the file on
   disk first and refuses (raising that same error) when it cannot be decoded. So even a
   caller that fell back to defaults after a failed load cannot clobber the user's file,
   and a file upgraded by a newer idea meanwhile is left alone too.
3. `write_json_atomic` alone is for files with no previous content worth protecting.

A write goes to a temporary file in the same directory, is flushed and fsynced, renamed over
the target (atomic on POSIX) and the directory is fsynced, so a crash leaves either the old
or the new file, never a truncated one.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.errors import CorruptFile, FileAccessError

DEFAULT_MODE = 0o644
MAX_FILE_BYTES = 16 * 1024 * 1024
"""No file idea reads is anywhere near this: a larger one is damaged (or not ours), and is
refused before it is read into memory."""


def dumps(data: Any) -> str:
    """The text idea writes for a JSON value: 2-space indent, UTF-8, trailing newline."""
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_text_atomic(
    path: Path, text: str, *, mode: int | None = None, overwrite: bool = True,
    durable: bool = True,
) -> bool:
    """Write a text file atomically.

    Args:
        path: The target; its directory must exist.
        text: The content, written as UTF-8.
        mode: Permission bits for a new file (default 0o644); an existing file keeps its own.
        overwrite: When False, leave an existing file alone (checked atomically with a hard
            link where the filesystem allows it).
        durable: fsync the file and its directory. False for a file rebuilt from another
            one after a crash (a handoff from its fsynced log): still never torn for a
            reader, but a crash may leave the previous version, or an empty file.

    Returns:
        True if the file was written, False if it existed and `overwrite` was False.

    Raises:
        FileAccessError: The system refused (permissions, missing directory, disk full...).
    """
    path = Path(path)
    try:
        existing = path.stat().st_mode
    except FileNotFoundError:
        existing = None
    except OSError as error:
        raise FileAccessError(path, "write", _reason(error)) from error
    if existing is not None and not overwrite:
        return False
    file_mode = stat.S_IMODE(existing) if existing is not None else (mode or DEFAULT_MODE)
    remove_stale_temps(path)
    try:
        fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as error:
        raise FileAccessError(path, "write", _reason(error)) from error
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fchmod(handle.fileno(), file_mode)
            if durable:
                os.fsync(handle.fileno())
        if overwrite:
            os.replace(temp, path)
        elif not _link_no_clobber(temp, path):
            return False
        if durable:
            _fsync_directory(path.parent)
    except OSError as error:
        raise FileAccessError(path, "write", _reason(error)) from error
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
    return True


STALE_TEMP_SECONDS = 60.0
"""A temp file of ours this old belongs to no write in progress (a write takes milliseconds):
it was left by a process killed between writing it and renaming it."""

_TEMP_NAME = re.compile(r"\.(?P<name>.+)\.[a-z0-9_]{8}\.tmp")


def remove_stale_temps(path: Path, *, now: float | None = None) -> int:
    """Remove the temp files a killed writer of `path` left beside it; how many went.

    `kill -9` of the daemon between the temp file and the rename leaves `.NAME.XXXXXXXX.tmp`
    in the folder; in `.ideai/` that would show in `git status` (and could be committed)
    forever. Only files of exactly that pattern for this `path`, regular, owned by this
    user and older than `STALE_TEMP_SECONDS` are removed: a write in progress elsewhere is
    never touched.
    """
    now = time.time() if now is None else now
    removed = 0
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return 0
    for entry in entries:
        match = _TEMP_NAME.fullmatch(entry.name)
        if match is None or match["name"] != path.name:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if (stat.S_ISREG(info.st_mode) and info.st_uid == os.getuid()
                    and now - info.st_mtime > STALE_TEMP_SECONDS):
                os.unlink(entry.path)
                removed += 1
        except OSError:
            continue  # gone meanwhile, or not ours to remove: harmless either way
    return removed


def _link_no_clobber(temp: Path, path: Path) -> bool:
    """Publish `temp` at `path` unless `path` exists; a hard link fails if it does."""
    try:
        os.link(temp, path)
    except FileExistsError:
        return False
    except OSError:
        # Some filesystems refuse hard links; a check-then-rename is the best left there.
        if path.exists():
            return False
        os.replace(temp, path)
    return True


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable (the directory entry), where the OS allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def write_json_atomic(path: Path, data: Any, *, mode: int | None = None) -> None:
    """Write a JSON value atomically (2-space indent, trailing newline).

    Raises:
        FileAccessError: The system refused the write.
    """
    write_text_atomic(path, dumps(data), mode=mode)


class _Constant(ValueError):
    """NaN or Infinity in a file: not JSON, though Python's parser accepts them."""


def _reject_constant(name: str) -> Any:
    raise _Constant(name)


def read_json(path: Path) -> Any:
    """Read and parse a JSON file (UTF-8, a leading BOM tolerated).

    Raises:
        FileNotFoundError: The file does not exist (for stores, a normal case).
        CorruptFile: The content is not JSON.
        FileAccessError: The system refused the read.
    """
    path = Path(path)
    raw = read_bytes_bounded(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CorruptFile(path, f"not UTF-8 text (bad byte at offset {error.start})") from error
    if not text.strip():
        raise CorruptFile(path, "the file is empty")
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise CorruptFile(
            path, f"invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from error
    except _Constant as error:
        raise CorruptFile(path, f"{error} is not a JSON number") from error
    except RecursionError as error:
        raise CorruptFile(path, "the JSON is nested too deeply") from error


def read_text(path: Path) -> str:
    """A UTF-8 text file, exactly as stored (a Markdown body: a persona, a skill).

    Raises:
        FileNotFoundError: The file does not exist.
        CorruptFile: It is not UTF-8.
        FileAccessError: The system refused the read.
    """
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise
    except OSError as error:
        raise FileAccessError(path, "read", _reason(error)) from error
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CorruptFile(path, f"not UTF-8 text (bad byte at offset {error.start})") from error


def read_bytes_bounded(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """A file's bytes, refusing one larger than `limit` without reading it all.

    Raises:
        FileNotFoundError: The file does not exist.
        CorruptFile: It is larger than `limit`.
        FileAccessError: The system refused the read.
    """
    try:
        with open(path, "rb") as handle:
            raw = handle.read(limit + 1)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise FileAccessError(path, "read", _reason(error)) from error
    if len(raw) > limit:
        raise CorruptFile(path, f"it is larger than {limit // (1024 * 1024)} MiB")
    return raw


def set_aside(path: Path, now: float | None = None) -> Path:
    """Rename a damaged file idea alone writes to `NAME.corrupt-YYYYmmddTHHMMSS` beside it,
    so the daemon can start afresh while the bytes stay for the user to look at.

    Returns:
        Where the file went.

    Raises:
        FileAccessError: The rename was refused (the file is then left where it was).
    """
    path = Path(path)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.localtime(now))
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    number = 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{number}")
    try:
        os.rename(path, target)
    except OSError as error:
        raise FileAccessError(path, "set aside", _reason(error)) from error
    _fsync_directory(path.parent)
    return target


def replace_json(path: Path, data: Any, check: Callable[[Any], object]) -> None:
    """Write `data` over `path`, unless the file there cannot be decoded by `check`.

    Args:
        path: The target file.
        data: The JSON value to write.
        check: Decodes the current content; raises `CorruptFile`/`NewerVersion` when it
            cannot (use the store's own decoder so the rule matches what load accepts).

    Raises:
        CorruptFile: The file on disk cannot be parsed or decoded; it is left untouched.
        NewerVersion: The file on disk comes from a newer idea; it is left untouched.
        FileAccessError: The system refused the read or the write.
    """
    path = Path(path)
    try:
        current = read_json(path)
    except FileNotFoundError:
        pass
    else:
        check(current)
    write_json_atomic(path, data)


def ensure_directory(path: Path, *, parents: bool = True) -> None:
    """Create a directory if needed.

    Args:
        path: The directory.
        parents: Create missing parents too. Stores writing inside a project pass False,
            so that a project folder deleted meanwhile is not silently recreated.

    Raises:
        FileAccessError: It cannot be created.
    """
    try:
        Path(path).mkdir(parents=parents, exist_ok=True)
    except OSError as error:
        raise FileAccessError(path, "create the directory", _reason(error)) from error


def _reason(error: OSError) -> str:
    return error.strerror or str(error)
