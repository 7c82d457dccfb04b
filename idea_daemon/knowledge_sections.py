"""`# Project context` and `# Project memory` of the composed context (D7, CTX-1, MEM-3).

Both are bounded before they reach an agent (PRN-8): the project context is cut at
`CONTEXT_INJECT_MAX_CHARS` (at a line end, with a pointer to the rest), and memory is given
as pointers — index lines chosen by keyword recall (`core.knowledge.recall`) — never bodies.
A launch reads these in an executor thread (`AgentRuntime.launch_async`; a few callers still
launch on the loop), and the reads stay small and bounded all the same: the project
context's first bytes only, and the index, parsed again only when its inode, size or mtime
changed.
A file that cannot be used leaves its section out (and is logged); the launch goes on.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from adapters.store.memory_store import FsMemoryStore
from core.agents.errors import UnsafePath
from core.errors import StoreError
from core.knowledge.limits import CONTEXT_INJECT_MAX_CHARS
from core.knowledge.memory_index import IndexEntry
from core.knowledge.recall import document_terms, line_of, recall

log = logging.getLogger(__name__)

CONTEXT_FILE = Path(".ideai") / "CONTEXT.md"


def context_path(root: str) -> Path | None:
    """`.ideai/CONTEXT.md` when it is a regular file inside the project, else None."""
    path = Path(root) / CONTEXT_FILE
    try:
        if not path.is_file():
            return None
        if not path.resolve().is_relative_to((Path(root) / ".ideai").resolve()):
            log.warning("%s: a symbolic link leads outside .ideai/; not injected", path)
            return None
    except OSError:
        return None
    return path


def project_context_section(root: str, *, mcp: bool) -> str | None:
    """The project context for a launch, bounded, or None when there is none."""
    path = context_path(root)
    if path is None:
        return None
    try:
        with open(path, "rb") as handle:
            raw = handle.read(CONTEXT_INJECT_MAX_CHARS * 4 + 4)
            rest = len(handle.read(1)) > 0
    except OSError as error:
        log.warning("%s not injected: %s", path, error)
        return None
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
    if rest or len(text) > CONTEXT_INJECT_MAX_CHARS:
        try:
            total = os.path.getsize(path)
        except OSError:
            total = len(raw)
        cut = text[:CONTEXT_INJECT_MAX_CHARS]
        if "\n" in cut:
            cut = cut[: cut.rindex("\n")]
        where = "`idea_context_read()`" if mcp else "`.ideai/CONTEXT.md`"
        text = (f"{cut}\n\n[The project context continues ({total:,} bytes in all): read it "
                f"whole with {where}.]")
    return text if text.strip() else None


@dataclass(frozen=True, slots=True)
class _Cached:
    key: tuple[int, int, int]
    entries: tuple[IndexEntry, ...]
    documents: tuple[frozenset[str], ...]


class MemorySections:
    """The memory section of launches; caches each project's parsed index."""

    def __init__(self, store: FsMemoryStore | None = None) -> None:
        self.store = store or FsMemoryStore()
        self._cache: dict[str, _Cached] = {}

    def entries(self, root: str) -> _Cached | None:
        try:
            path = self.store.index_path(root)
            info = path.stat()
        except (OSError, UnsafePath):
            self._cache.pop(root, None)
            return None
        # idea replaces the index atomically (a new inode), so a rewrite is always seen.
        key = (info.st_ino, info.st_mtime_ns, info.st_size)
        cached = self._cache.get(root)
        if cached is not None and cached.key == key:
            return cached
        try:
            index = self.store.index(root)
        except (StoreError, UnsafePath) as error:
            log.warning("project memory not injected: %s", error.message)
            return None
        entries = index.entries if index is not None else ()
        cached = self._cache[root] = _Cached(key, entries, tuple(document_terms(entries)))
        return cached

    def section(self, root: str, query: str, *, mcp: bool) -> str | None:
        """Pointers to the notes recalled for an agent whose name and persona are `query`."""
        cached = self.entries(root)
        if cached is None or not cached.entries:
            return None
        chosen = recall(cached.entries, query, documents=cached.documents)
        shown = len(chosen.entries)
        if shown == chosen.total:
            head = f"The project keeps {chosen.total} durable notes in `.ideai/memory/`:"
        else:
            head = (f"The project keeps {chosen.total} durable notes in `.ideai/memory/`; "
                    f"the {shown} most related to your role (or newest):")
        if mcp:
            tail = ("Read a note with `idea_memory_read(slug=...)` before relying on it; "
                    "`idea_memory_read()` lists them all.")
        else:
            tail = ("Read a note in `.ideai/memory/<slug>.md` before relying on it; "
                    "`.ideai/memory/MEMORY.md` lists them all.")
        return "\n".join([head, "", *(line_of(e) for e in chosen.entries), "", tail])


MEMORY_SECTIONS = MemorySections()
"""The daemon's one cache (keyed by project root, checked against the index's mtime)."""
