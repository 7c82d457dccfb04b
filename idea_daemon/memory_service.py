"""Project memory in the daemon: reads and writes of notes and the index, for agents (MCP
tools) and the user (commands, panel), all through one path (MCP-6).

A write takes the FileGuard's leases — the note, then the index (always in that order, so
two writers never deadlock) — and does its file I/O in a worker thread, so the loop never
waits on the disk and two agents writing the same note take turns: the file is one or the
other, never a mix. A note or index that cannot be parsed is never rewritten: the write is
refused with the file and the line.
"""

from __future__ import annotations

import asyncio

from adapters.store.memory_store import FsMemoryStore, NoteInfo
from core.knowledge.errors import NoteNotFound, TooLarge
from core.knowledge.guard import Memory, MemoryIndex, Party
from core.knowledge.limits import MEMORY_MAX_NOTES
from core.knowledge.memory_index import IndexEntry, new_index
from core.knowledge.note import note_to_save
from core.knowledge.slugs import checked_slug
from idea_daemon.file_guard import FileGuard

NO_NOTES = (
    "The project has no memory notes yet. Save durable knowledge (decisions, user "
    "preferences, workflow rules, references) with idea_memory_write."
)


class MemoryService:
    def __init__(self, guard: FileGuard, store: FsMemoryStore | None = None) -> None:
        self.guard = guard
        self.store = store or FsMemoryStore()

    async def read(self, party: Party, root: str, slug: str | None) -> str:
        """A note's text, or with no slug the index (with notes it does not list).

        Raises:
            InvalidSlug, NoteNotFound, CorruptFile, FileAccessError, Busy.
        """
        if slug is None:
            async with self.guard.read(party, MemoryIndex()):
                return await asyncio.to_thread(self._index_text, root)
        slug = checked_slug(slug)
        async with self.guard.read(party, Memory(slug)):
            return await asyncio.to_thread(self.store.note_text, root, slug)

    def _index_text(self, root: str) -> str:
        path = self.store.index_path(root)
        index = self.store.index(root)
        files = set(self.store.note_files(root))
        if index is None and not files:
            return NO_NOTES
        text = index.render() if index is not None else ""
        listed = {entry.slug for entry in index.entries} if index else set()
        unlisted = sorted(files - listed)
        if unlisted:
            text += ("\nNotes present but not in the index: " + ", ".join(unlisted) + "\n")
        if index is None:
            text = f"({path.name} does not exist yet.)\n" + text
        return text

    async def write(
        self,
        party: Party,
        root: str,
        slug: str,
        content: str,
        *,
        description: str | None = None,
        kind: str | None = None,
    ) -> str:
        """Save (create or replace) a note and keep the index in step.

        Raises:
            InvalidSlug, InvalidNote, TooLarge, CorruptFile (the note or the index cannot be
            parsed: nothing is written), FileAccessError, Busy.
        """
        slug = checked_slug(slug)
        async with self.guard.write(party, Memory(slug)), \
                self.guard.write(party, MemoryIndex()):
            return await asyncio.to_thread(self._write, root, slug, content, description, kind)

    def _write(self, root: str, slug: str, content: str, description: str | None,
               kind: str | None) -> str:
        previous = self.store.note(root, slug)  # CorruptFile: never overwritten
        index = self.store.index(root) or new_index()
        note = note_to_save(slug, content, description=description, kind=kind,
                            previous=previous)
        if previous is None and len(index.entries) >= MEMORY_MAX_NOTES:
            raise TooLarge("memory", len(index.entries), MEMORY_MAX_NOTES, "notes")
        self.store.write_note(root, note)
        self.store.write_index(root, index.upsert(IndexEntry(slug, note.description)))
        verb = "updated" if previous is not None else "saved"
        return (f"{verb} memory note {slug!r} (.ideai/memory/{slug}.md); MEMORY.md lists it "
                f"as: {note.description}")

    async def delete(self, party: Party, root: str, slug: str) -> str:
        """Remove a note and its index line.

        Raises:
            InvalidSlug, NoteNotFound, CorruptFile (the index: nothing is removed), Busy.
        """
        slug = checked_slug(slug)
        async with self.guard.write(party, Memory(slug)), \
                self.guard.write(party, MemoryIndex()):
            return await asyncio.to_thread(self._delete, root, slug)

    def _delete(self, root: str, slug: str) -> str:
        index = self.store.index(root)
        listed = index is not None and index.find(slug) is not None
        if not listed and slug not in self.store.note_files(root):
            raise NoteNotFound(slug)
        if index is not None and listed:
            self.store.write_index(root, index.remove(slug))
        self.store.delete_note(root, slug)
        return f"deleted memory note {slug!r}"

    async def listing(self, party: Party, root: str) -> list[NoteInfo]:
        async with self.guard.read(party, MemoryIndex()):
            return await asyncio.to_thread(self.store.notes, root)

