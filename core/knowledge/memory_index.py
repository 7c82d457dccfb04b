"""`.ideai/memory/MEMORY.md`, the index of the notes (FEATURES.md §3.9):

    # Memory Index

    - [<slug>](<slug>.md) — <description>

The index is Markdown that people edit too, so every line idea does not own (headings, prose,
blank lines) is kept as is and in place; an entry is updated where it stands and a new one is
appended. A list line that looks like an entry but is not a valid one (a bad slug, a link to
another file, a slug listed twice) makes the index corrupt: it is reported with its line
number and idea then refuses to rewrite the file rather than guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.knowledge.note import one_line
from core.knowledge.slugs import slug_problem

HEADER = "# Memory Index"
_ENTRY = re.compile(r"- \[(?P<slug>[^\]]*)\]\((?P<file>[^)]*)\)\s*(?:(?:—|–|--|-|:)\s*)?(?P<d>.*)")


@dataclass(frozen=True, slots=True)
class IndexEntry:
    slug: str
    description: str

    @property
    def line(self) -> str:
        return f"- [{self.slug}]({self.slug}.md) — {self.description}"


class IndexFormatError(ValueError):
    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line = line
        self.problem = problem


@dataclass(frozen=True, slots=True)
class MemoryIndex:
    """The index as lines (kept verbatim) and the entries they hold, in order."""

    lines: tuple[str, ...]
    entries: tuple[IndexEntry, ...]

    def find(self, slug: str) -> IndexEntry | None:
        return next((entry for entry in self.entries if entry.slug == slug), None)

    def upsert(self, entry: IndexEntry) -> MemoryIndex:
        """The index with `entry` in place of the slug's line, or appended."""
        lines = list(self.lines)
        for number, line in enumerate(lines):
            parsed = _entry_of(line)
            if parsed is not None and parsed.slug == entry.slug:
                lines[number] = entry.line
                break
        else:
            while lines and not lines[-1].strip():
                lines.pop()
            if not any(_entry_of(line) for line in lines) and lines:
                lines.append("")  # a blank line between the heading and the list
            lines.append(entry.line)
        return parse_index("\n".join(lines) + "\n")

    def remove(self, slug: str) -> MemoryIndex:
        lines = [line for line in self.lines if (e := _entry_of(line)) is None or e.slug != slug]
        return parse_index("\n".join(lines) + "\n")

    def render(self) -> str:
        text = "\n".join(self.lines)
        return text if text.endswith("\n") else text + "\n"


EMPTY_INDEX_TEXT = f"{HEADER}\n"


def _entry_of(line: str) -> IndexEntry | None:
    match = _ENTRY.fullmatch(line.rstrip())
    if match is None:
        return None
    return IndexEntry(match["slug"].strip(), one_line(match["d"]))


def parse_index(text: str) -> MemoryIndex:
    """The index in `text`.

    Raises:
        IndexFormatError: An entry line is not valid (see the module docstring).
    """
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    entries: list[IndexEntry] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        if not line.startswith("- ["):
            continue
        match = _ENTRY.fullmatch(line.rstrip())
        if match is None:
            raise IndexFormatError(number, "expected `- [slug](slug.md) — description`")
        slug = match["slug"].strip()
        problem = slug_problem(slug)
        if problem is not None:
            raise IndexFormatError(number, f"slug {slug[:60]!r}: {problem}")
        if match["file"].strip() != f"{slug}.md":
            raise IndexFormatError(number, f"the link of {slug!r} is not {slug}.md")
        if slug in seen:
            raise IndexFormatError(number, f"{slug!r} is listed twice")
        seen.add(slug)
        entries.append(IndexEntry(slug, one_line(match["d"])))
    return MemoryIndex(tuple(lines), tuple(entries))


def new_index() -> MemoryIndex:
    return parse_index(EMPTY_INDEX_TEXT)
