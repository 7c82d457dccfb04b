"""Project memory on disk: `.ideai/memory/<slug>.md` notes and the `MEMORY.md` index
(FEATURES.md MEM-1, MEM-2, §3.9). Versioned with the project: nothing here is runtime state.

The folder is created by the first save, never before. Every path comes from a slug checked
by `core.knowledge.slugs`, and from a folder that no symbolic link leads out of `.ideai/`
(a clone could commit one). Reads are bounded; a file that cannot be parsed is reported
(`CorruptFile`, naming the file and the line) and never rewritten. Writes are atomic
(temp + fsync + rename), the note before the index, so a crash leaves at worst a note the
index does not list yet — which `notes()` still shows.

Blocking: the daemon calls these from a worker thread under the FileGuard.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from adapters.store.atomic import ensure_directory, read_bytes_bounded, write_text_atomic
from core.agents.errors import UnsafePath
from core.errors import CorruptFile, FileAccessError
from core.knowledge.errors import NoteNotFound
from core.knowledge.limits import MEMORY_INDEX_MAX_BYTES, MEMORY_NOTE_MAX_BYTES
from core.knowledge.memory_index import IndexFormatError, MemoryIndex, parse_index
from core.knowledge.note import Note, NoteFormatError, parse_note, render_note, split_frontmatter
from core.knowledge.slugs import INDEX_STEM, checked_slug, slug_problem

IDEAI = ".ideai"
MEMORY_DIR = Path(IDEAI) / "memory"
INDEX_FILE = f"{INDEX_STEM}.md"


@dataclass(frozen=True, slots=True)
class NoteInfo:
    """One row of the Memory panel / `idea memory list`."""

    slug: str
    description: str
    type: str
    indexed: bool
    """Listed in MEMORY.md."""
    present: bool
    """The note file exists."""
    problem: str | None = None
    """Why the file cannot be read (shown; the file is left alone)."""
    size: int = 0


def _decode(path: Path, raw: bytes) -> str:
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CorruptFile(path, f"not UTF-8 text (bad byte at offset {error.start})") from error


class FsMemoryStore:
    """The memory of projects, by root."""

    def folder(self, root: str | os.PathLike[str]) -> Path:
        """`.ideai/memory/`, checked: no symbolic link leads it (or `.ideai/`) elsewhere.

        Raises:
            UnsafePath: It resolves outside the project's `.ideai/`.
        """
        base = Path(root) / IDEAI
        folder = Path(root) / MEMORY_DIR
        inside = folder.resolve().is_relative_to(base.resolve())
        if not inside or not base.resolve().is_relative_to(Path(root).resolve()):
            raise UnsafePath(str(folder), "memory folder",
                             "a symbolic link leads it outside .ideai/")
        return folder

    def _path(self, root: str | os.PathLike[str], slug: str) -> Path:
        folder = self.folder(root)
        path = folder / f"{checked_slug(slug)}.md"
        if path.is_symlink() and not path.resolve().parent == folder.resolve():
            raise UnsafePath(str(path), "memory note", "it is a symbolic link out of the folder")
        return path

    # ─── the index ───────────────────────────────────────────────────────────────────

    def index_path(self, root: str | os.PathLike[str]) -> Path:
        return self.folder(root) / INDEX_FILE

    def index(self, root: str | os.PathLike[str]) -> MemoryIndex | None:
        """The index, or None when there is none yet.

        Raises:
            CorruptFile: Not UTF-8, too large, or an entry line is malformed (with its line).
            FileAccessError, UnsafePath.
        """
        path = self.index_path(root)
        try:
            raw = read_bytes_bounded(path, MEMORY_INDEX_MAX_BYTES)
        except FileNotFoundError:
            return None
        text = _decode(path, raw)
        try:
            return parse_index(text)
        except IndexFormatError as error:
            raise CorruptFile(path, str(error)) from error

    def write_index(self, root: str | os.PathLike[str], index: MemoryIndex) -> None:
        folder = self.folder(root)
        ensure_directory(Path(root) / IDEAI, parents=False)
        ensure_directory(folder, parents=False)
        write_text_atomic(folder / INDEX_FILE, index.render())

    # ─── notes ───────────────────────────────────────────────────────────────────────

    def note_text(self, root: str | os.PathLike[str], slug: str) -> str:
        """A note file's text as stored.

        Raises:
            NoteNotFound, CorruptFile (not UTF-8, too large), FileAccessError (a folder, not
            allowed), InvalidSlug, UnsafePath.
        """
        path = self._path(root, slug)
        try:
            raw = read_bytes_bounded(path, MEMORY_NOTE_MAX_BYTES)
        except FileNotFoundError:
            raise NoteNotFound(slug) from None
        return _decode(path, raw)

    def note(self, root: str | os.PathLike[str], slug: str) -> Note | None:
        """The parsed note, or None when there is no such file.

        Raises:
            CorruptFile: The frontmatter cannot be read (the line is in the message).
        """
        try:
            text = self.note_text(root, slug)
        except NoteNotFound:
            return None
        try:
            return parse_note(slug, text)
        except NoteFormatError as error:
            raise CorruptFile(self._path(root, slug), str(error)) from error

    def write_note(self, root: str | os.PathLike[str], note: Note) -> None:
        folder = self.folder(root)
        ensure_directory(Path(root) / IDEAI, parents=False)
        ensure_directory(folder, parents=False)
        write_text_atomic(self._path(root, note.slug), render_note(note))

    def delete_note(self, root: str | os.PathLike[str], slug: str) -> bool:
        path = self._path(root, slug)
        try:
            os.unlink(path)
        except FileNotFoundError:
            return False
        except OSError as error:
            raise FileAccessError(path, "delete", error.strerror or str(error)) from error
        return True

    def note_files(self, root: str | os.PathLike[str]) -> list[str]:
        """The slugs of the note files present (valid names only), sorted."""
        folder = self.folder(root)
        try:
            names = os.listdir(folder)
        except FileNotFoundError:
            return []
        except OSError as error:
            raise FileAccessError(folder, "list", error.strerror or str(error)) from error
        return sorted(
            name[:-3] for name in names
            if name.endswith(".md") and name != INDEX_FILE and slug_problem(name[:-3]) is None
        )

    def notes(self, root: str | os.PathLike[str]) -> list[NoteInfo]:
        """Index entries in order, then files the index does not list.

        Raises:
            CorruptFile: The index cannot be read (the notes are still shown by `files`).
        """
        index = self.index(root)
        files = set(self.note_files(root))
        rows: list[NoteInfo] = []
        for entry in index.entries if index else ():
            rows.append(self.info(root, entry.slug, entry.description, True, entry.slug in files))
        listed = {entry.slug for entry in index.entries} if index else set()
        for slug in sorted(files - listed):
            rows.append(self.info(root, slug, "", False, True))
        return rows

    def info(self, root: str | os.PathLike[str], slug: str, description: str,
              indexed: bool, present: bool) -> NoteInfo:
        if not present:
            return NoteInfo(slug, description, "", indexed, False, "the note file is missing")
        try:
            text = self.note_text(root, slug)
            front = split_frontmatter(text)
        except (CorruptFile, FileAccessError, NoteNotFound, UnsafePath) as error:
            return NoteInfo(slug, description, "", indexed, True, error.message)
        except NoteFormatError as error:
            return NoteInfo(slug, description, "", indexed, True, f"frontmatter {error}")
        kind = (front.type if front else None) or "project"
        return NoteInfo(slug, description or (front.description if front else "") or "",
                        kind, indexed, True, None, len(text))
