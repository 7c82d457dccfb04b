"""The files of one project's conversations (FEATURES.md §3.10, §3.11, LOG-1, LOG-4, LOG-5).

    .ideai/conversations/<conversation-id>/
        log.jsonl        the active transcript: one turn a line, appended, fsynced per turn
        log.<N>.jsonl    archived segments (the highest N is the most recent)
        handoff.md       the bounded summary, rewritten atomically (not fsynced: the log is)
        providers.json   each profile's resumable session id for this thread (LOG-4)

An append is one `write` of one line plus `fsync`, whatever the log's size (O(1)); it never
rotates. A line cut by a crash (no newline at the end of the file) is skipped when reading
and the next append starts on a fresh line, so one bad line never hides the others. A file
that cannot be parsed is reported and never overwritten.

Every method here blocks (fsync, reading a segment): the daemon calls them from its worker
thread (`idea_daemon.conversations.recorder`), never from its loop.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters.store.atomic import (
    _fsync_directory,
    write_json_atomic,
    write_text_atomic,
)
from core.agents.errors import UnsafePath
from core.conversations import handoff as handoffs
from core.conversations.handoff import BadHandoff, Handoff
from core.conversations.rotation import Line, RotationPlan, rotation_plan
from core.conversations.turns import BadTurn, Turn, decode_turn, encode_turn
from core.errors import CorruptFile, FileAccessError
from core.ids import id_problem

CONVERSATIONS_DIR = Path(".ideai") / "conversations"
LOG = "log.jsonl"
HANDOFF = "handoff.md"
PROVIDERS = "providers.json"
PROVIDERS_VERSION = 1
MAX_LOG_BYTES = 256 * 1024 * 1024
"""A log is read whole by the viewer and the rotation (cold paths); beyond this it is refused
rather than loaded into the daemon's memory."""
MAX_HANDOFF_BYTES = 1024 * 1024
_SEGMENT = re.compile(r"log\.([1-9][0-9]{0,5})\.jsonl")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass(frozen=True, slots=True)
class LogRead:
    """The turns of one log file.

    Attributes:
        turns: The readable turns, in order.
        skipped: 1-based line numbers that could not be read (a torn last line included).
        problems: What was wrong with them, one message each.
    """

    turns: list[Turn] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def is_conversation_id(value: str) -> bool:
    return _UUID.fullmatch(value) is not None


class ConversationFiles:
    """The conversations of the project rooted at `root`."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self.base = self.root / CONVERSATIONS_DIR
        self._checked: dict[str, Path] = {}
        """Folders already checked and existing (each turn would resolve them again)."""

    # ─── paths ───────────────────────────────────────────────────────────────────────

    def folder(self, conversation: str) -> Path:
        """`.ideai/conversations/<id>/`, checked before any I/O (a UUID, no symbolic link
        leading out of `.ideai/`).

        Raises:
            UnsafePath: The id or the folder is refused.
        """
        known = self._checked.get(conversation)
        if known is not None:
            return known
        if not is_conversation_id(conversation) or id_problem(conversation) is not None:
            raise UnsafePath(conversation, "conversation id", "expected a lowercase UUID")
        ideai = (self.root / ".ideai").resolve()
        folder = self.base / conversation
        if not folder.resolve().is_relative_to(ideai):
            raise UnsafePath(str(folder), "conversation folder",
                             "a symbolic link leads it outside .ideai/")
        if folder.is_dir() and not folder.is_symlink():
            # Checked once it exists as a real folder inside .ideai/; its files are still
            # opened without following links (O_NOFOLLOW).
            self._checked[conversation] = folder
        return folder

    def conversations(self) -> list[str]:
        """The ids of the conversations on disk (folders named by a UUID)."""
        try:
            entries = list(os.scandir(self.base))
        except OSError:
            return []
        return sorted(e.name for e in entries if is_conversation_id(e.name) and e.is_dir())

    def exists(self, conversation: str) -> bool:
        return (self.folder(conversation) / LOG).is_file()

    # ─── the log ─────────────────────────────────────────────────────────────────────

    def append(self, turn: Turn) -> None:
        """Append one turn and fsync it (O(1): the file is never read but for its last byte).

        Raises:
            UnsafePath: The conversation id or its folder is refused.
            FileAccessError: The system refused.
        """
        folder = self.folder(turn.conversation)
        line = (encode_turn(turn) + "\n").encode("utf-8")
        path = folder / LOG
        try:
            if not folder.is_dir():
                folder.mkdir(parents=True, exist_ok=True)
                _fsync_directory(folder.parent)
            # O_NOFOLLOW: a cloned project may hold a log.jsonl that is a link elsewhere.
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
                         | os.O_NOFOLLOW, 0o644)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    line = b"\n" + line  # the last line was cut by a crash: start afresh
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as error:
            raise FileAccessError(path, "append to", _why(error)) from error

    def read(self, conversation: str, segment: int | None = None) -> LogRead:
        """The turns of the active log, or of archived segment `segment`.

        Raises:
            UnsafePath: The conversation id or its folder is refused.
            CorruptFile: The file is larger than `MAX_LOG_BYTES`.
            FileAccessError: The system refused.
        """
        path = self._log_path(conversation, segment)
        try:
            raw = _read_bounded(path, MAX_LOG_BYTES)
        except FileNotFoundError:
            return LogRead()
        return _parse_log(raw, path)

    def read_since(self, conversation: str, up_to: str | None) -> list[Turn]:
        """Turns of the active log after `up_to` (all of them when `up_to` is None; none
        when the log does not hold `up_to`: folding them again would repeat them)."""
        turns = self.read(conversation).turns
        if up_to is None:
            return turns
        ids = [turn.id for turn in turns]
        return turns[ids.index(up_to) + 1:] if up_to in ids else []

    def segments(self, conversation: str) -> list[int]:
        """Archived segment numbers, oldest first."""
        try:
            names = os.listdir(self.folder(conversation))
        except OSError:
            return []
        return sorted(int(m[1]) for name in names if (m := _SEGMENT.fullmatch(name)))

    def _log_path(self, conversation: str, segment: int | None) -> Path:
        name = LOG if segment is None else f"log.{int(segment)}.jsonl"
        return self.folder(conversation) / name

    # ─── the handoff ─────────────────────────────────────────────────────────────────

    def handoff_path(self, conversation: str) -> Path:
        return self.folder(conversation) / HANDOFF

    def read_handoff(self, conversation: str) -> Handoff | None:
        """The handoff on disk, None when there is none.

        Raises:
            CorruptFile: It cannot be parsed (it is then never overwritten).
            FileAccessError: The system refused.
        """
        path = self.handoff_path(conversation)
        try:
            raw = _read_bounded(path, MAX_HANDOFF_BYTES)
        except FileNotFoundError:
            return None
        if not raw:
            return None  # a crash right after a write that was not fsynced: none yet
        try:
            return handoffs.parse(raw.decode("utf-8"))
        except UnicodeDecodeError as error:
            raise CorruptFile(path, f"not UTF-8 text (bad byte at offset {error.start})") from None
        except BadHandoff as error:
            raise CorruptFile(path, str(error)) from None

    def handoff_stamp(self, conversation: str) -> tuple[int, int] | None:
        """(mtime_ns, size) of the handoff file, None when absent: tells a write whether
        someone else changed the file since it was read."""
        try:
            info = self.handoff_path(conversation).stat()
        except OSError:
            return None
        return info.st_mtime_ns, info.st_size

    def write_handoff(self, conversation: str, handoff: Handoff) -> tuple[int, int] | None:
        """Write the handoff atomically; returns its new stamp. Not fsynced (LOG-1 fsyncs
        the log line only): after a crash the previous handoff (or an empty file, read as
        none) is folded forward again from the log, which has every turn."""
        path = self.handoff_path(conversation)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, handoffs.render(handoff), durable=False)
        return self.handoff_stamp(conversation)

    # ─── providers.json (LOG-4) ──────────────────────────────────────────────────────

    def providers(self, conversation: str) -> dict[str, str]:
        """Profile id → resumable session id recorded for this conversation.

        Raises:
            CorruptFile: The file cannot be parsed.
        """
        path = self.folder(conversation) / PROVIDERS
        try:
            raw = _read_bounded(path, MAX_HANDOFF_BYTES)
        except FileNotFoundError:
            return {}
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise CorruptFile(path, f"invalid JSON ({error})") from None
        return _decode_providers(data, path)

    def set_provider(self, conversation: str, profile_id: str, resumable_id: str) -> None:
        """Record a profile's resumable id (the file is left alone if it cannot be read)."""
        current = self.providers(conversation)
        if current.get(profile_id) == resumable_id:
            return
        current[profile_id] = resumable_id
        folder = self.folder(conversation)
        folder.mkdir(parents=True, exist_ok=True)
        write_json_atomic(
            folder / PROVIDERS,
            {"version": PROVIDERS_VERSION,
             "providers": {k: {"resumableId": v} for k, v in sorted(current.items())}},
        )

    # ─── rotation (LOG-5), off the hot path ──────────────────────────────────────────

    def rotate(self, conversation: str) -> RotationPlan:
        """Apply the rotation plan of one conversation (idempotent; see core.rotation).

        Raises:
            CorruptFile: The handoff cannot be parsed (nothing rotates then).
            FileAccessError: The system refused.
        """
        handoff = self.read_handoff(conversation)
        up_to = handoff.up_to if handoff else None
        path = self._log_path(conversation, None)
        try:
            raw = _read_bounded(path, MAX_LOG_BYTES)
        except FileNotFoundError:
            return RotationPlan()
        chunks = raw.splitlines(keepends=True)
        lines = [Line(_line_id(chunk), len(chunk)) for chunk in chunks]
        segments = self.segments(conversation)
        newest = None
        if segments:
            archived = self.read(conversation, segments[-1]).turns
            newest = archived[-1].id if archived else None
        plan = rotation_plan(lines, up_to, segments, newest)
        if plan.nothing:
            return plan
        if plan.move and plan.new_segment is not None:
            moved = b"".join(_ended(c) for c in chunks[plan.drop:plan.drop + plan.move])
            _write_bytes_atomic(self._log_path(conversation, plan.new_segment), moved)
        if plan.drop or plan.move:
            _write_bytes_atomic(path, b"".join(chunks[plan.drop + plan.move:]))
        for number in plan.prune:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._log_path(conversation, number))
        return plan


def _why(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "it is a symbolic link (idea reads and writes conversation files only as files)"
    return error.strerror or str(error)


def _read_bounded(path: Path, limit: int) -> bytes:
    """A conversation file's bytes, never through a symbolic link (a cloned project's link
    to a file of the user's would otherwise be shown, or injected into an agent).

    Raises:
        FileNotFoundError: It does not exist.
        CorruptFile: It is larger than `limit`.
        FileAccessError: It is a link, or the system refused.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise FileAccessError(path, "read", _why(error)) from error
    with os.fdopen(fd, "rb") as handle:
        raw = handle.read(limit + 1)
    if len(raw) > limit:
        raise CorruptFile(path, f"it is larger than {limit // (1024 * 1024)} MiB")
    return raw


def _ended(chunk: bytes) -> bytes:
    return chunk if chunk.endswith(b"\n") else chunk + b"\n"


def _line_id(chunk: bytes) -> str | None:
    try:
        return decode_turn(chunk).id
    except BadTurn:
        return None


def _parse_log(raw: bytes, path: Path) -> LogRead:
    read = LogRead()
    chunks = raw.split(b"\n")
    torn = bool(chunks) and chunks[-1] != b""
    if not torn:
        chunks.pop()  # after the final newline
    for number, chunk in enumerate(chunks, start=1):
        if not chunk.strip():
            continue
        try:
            read.turns.append(decode_turn(chunk))
        except BadTurn as error:
            read.skipped.append(number)
            last = torn and number == len(chunks)
            why = "cut by a crash (no end of line)" if last else str(error)
            read.problems.append(f"{path.name} line {number} skipped: {why}")
    return read


def _decode_providers(data: Any, path: Path) -> dict[str, str]:
    if not isinstance(data, dict) or not isinstance(data.get("providers"), dict):
        raise CorruptFile(path, "expected {version, providers: {profile: {resumableId}}}")
    found: dict[str, str] = {}
    for profile, entry in data["providers"].items():
        value = entry.get("resumableId") if isinstance(entry, dict) else None
        if isinstance(value, str) and id_problem(value) is None:
            found[str(profile)] = value
    return found


def _write_bytes_atomic(path: Path, data: bytes) -> None:
    """Bytes copied line for line (a foreign line that is not UTF-8 stays as it was)."""
    temp = path.with_name(f".{path.name}.rotating.tmp")
    try:
        with open(temp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
        _fsync_directory(path.parent)
    except OSError as error:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise FileAccessError(path, "rotate", error.strerror or str(error)) from error
