"""A memory note: YAML frontmatter, then Markdown (FEATURES.md MEM-2, §3.9).

    ---
    name: git-owns-commit-merge-decisions
    description: Ne jamais demander a l'utilisateur s'il faut committer ...
    metadata:
      type: feedback
    ---
    <Markdown body, links to other notes as [[slug]]>

Only this small YAML subset is read (top-level `key: value`, one level of nested mapping),
without a YAML library (core stays pure and dependency-free). Keys we do not know are kept
verbatim when a note is rewritten. A file whose frontmatter does not parse is reported with
the line, and never rewritten by idea.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.knowledge.errors import InvalidNote, TooLarge
from core.knowledge.limits import MEMORY_DESCRIPTION_MAX, MEMORY_NOTE_MAX_CHARS

NOTE_TYPES = ("project", "feedback", "reference", "user")
"""`metadata.type`: the seed wrote `project` and `feedback`; `reference` and `user` are the
other kinds of durable knowledge MEM-5 names (references, user preferences)."""

DEFAULT_TYPE = "project"
FENCE = "---"
_MAX_FRONTMATTER_LINES = 60
_KEY = re.compile(r"(?P<indent> *)(?P<key>[A-Za-z_][A-Za-z0-9_-]*):(?: (?P<value>.*)|)$")
_ITEM = re.compile(r" +- .*")


class NoteFormatError(ValueError):
    """The frontmatter of a note file cannot be read (`line` is 1-based)."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"line {line}: {problem}")
        self.line = line
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Note:
    """A parsed note. `extra` holds the frontmatter lines of top-level keys idea does not
    use (with their nested lines), `metadata_extra` those under `metadata:` besides `type`;
    both are written back verbatim."""

    slug: str
    description: str
    type: str = DEFAULT_TYPE
    body: str = ""
    extra: tuple[str, ...] = field(default=(), compare=False)
    metadata_extra: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class Frontmatter:
    name: str | None
    description: str | None
    type: str | None
    extra: tuple[str, ...]
    metadata_extra: tuple[str, ...]
    body: str


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        inner = value[1:-1]
        return inner.replace("''", "'") if value[0] == "'" else inner.replace('\\"', '"')
    return value


def split_frontmatter(text: str) -> Frontmatter | None:
    """The frontmatter of `text`, or None when it has none (plain Markdown).

    Raises:
        NoteFormatError: It starts with `---` but the block is not closed or a line is not
            `key: value`.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != FENCE:
        return None
    name = description = kind = None
    extra: list[str] = []
    metadata_extra: list[str] = []
    section: str | None = None
    for number, line in enumerate(lines[1:], start=2):
        if line.strip() == FENCE:
            body = "\n".join(lines[number:])
            return Frontmatter(name, description, kind, tuple(extra), tuple(metadata_extra),
                               body)
        if number > _MAX_FRONTMATTER_LINES:
            break
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY.fullmatch(line)
        if match is None and section is not None and _ITEM.fullmatch(line):
            (metadata_extra if section == "metadata" else extra).append(line)
            continue
        if match is None:
            raise NoteFormatError(number, f"expected `key: value`, found {line[:60]!r}")
        key, value, nested = match["key"], match["value"], bool(match["indent"])
        if not nested:
            section = key if value is None or not value.strip() else None
            if key == "name" and value is not None:
                name = _unquote(value)
            elif key == "description" and value is not None:
                description = _unquote(value)
            elif key != "metadata":
                extra.append(line)
        elif section == "metadata" and key == "type" and value is not None:
            kind = _unquote(value)
        elif section is None:
            raise NoteFormatError(number, "an indented key outside a mapping")
        else:
            (metadata_extra if section == "metadata" else extra).append(line)
    raise NoteFormatError(1, "the frontmatter is not closed by a `---` line")


def parse_note(slug: str, text: str) -> Note:
    """The note stored as `<slug>.md`.

    Raises:
        NoteFormatError: The frontmatter is malformed, lacks a description, or its name is
            not the file's.
    """
    front = split_frontmatter(text)
    if front is None:
        raise NoteFormatError(1, "no frontmatter (a note starts with a `---` block)")
    if front.name is not None and front.name != slug:
        raise NoteFormatError(2, f"name {front.name!r} is not the file name {slug!r}")
    if not front.description:
        raise NoteFormatError(2, "no description")
    return Note(slug, front.description, front.type or DEFAULT_TYPE, front.body, front.extra,
                front.metadata_extra)


def _quoted(value: str) -> str:
    # Quote only what plain YAML would misread, so seed-style notes stay byte-identical.
    if value != value.strip() or value[:1] in "'\"[{&*!|>%@`#" or ": " in value \
            or value.endswith(":") or " #" in value:
        return "'" + value.replace("'", "''") + "'"
    return value


def render_note(note: Note) -> str:
    """The file text of `note`, in the seed's layout."""
    lines = [FENCE, f"name: {note.slug}", f"description: {_quoted(note.description)}"]
    lines += [*note.extra, "metadata:", f"  type: {note.type}", *note.metadata_extra, FENCE]
    text = "\n".join(lines) + "\n" + note.body
    return text if text.endswith("\n") else text + "\n"


def one_line(text: str) -> str:
    """`text` on one line (an index line holds one description)."""
    return " ".join(text.split())


def derived_description(body: str) -> str:
    """A description for a note given without one: its first heading or line."""
    for line in body.split("\n"):
        stripped = line.strip().lstrip("#").strip()
        if stripped and stripped != FENCE:
            return _cut(one_line(stripped), MEMORY_DESCRIPTION_MAX)
    return ""


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def note_to_save(
    slug: str,
    content: str,
    *,
    description: str | None,
    kind: str | None,
    previous: Note | None,
) -> Note:
    """The note an agent's `idea_memory_write(slug, content, description?, type?)` saves.

    `content` is either a whole note (frontmatter and body) or the Markdown body alone.
    The description comes from the argument, else the frontmatter, else the note being
    updated, else the body's first line; the type likewise, else `project`.

    Raises:
        TooLarge: `content` or the description is above its limit.
        InvalidNote: The frontmatter is malformed or names another note, no description can
            be found, or the type is unknown.
    """
    if len(content) > MEMORY_NOTE_MAX_CHARS:
        raise TooLarge("content", len(content), MEMORY_NOTE_MAX_CHARS)
    try:
        front = split_frontmatter(content)
    except NoteFormatError as error:
        raise InvalidNote(f"its frontmatter, {error}") from error
    extra: tuple[str, ...] = previous.extra if previous else ()
    metadata_extra: tuple[str, ...] = previous.metadata_extra if previous else ()
    body = content
    if front is not None:
        if front.name is not None and front.name != slug:
            raise InvalidNote(f"its frontmatter names {front.name!r}, not {slug!r}")
        body, extra, metadata_extra = front.body, front.extra, front.metadata_extra
        description = description or front.description
        kind = kind or front.type
    description = one_line(
        description or (previous.description if previous else "") or derived_description(body)
    )
    if not description:
        raise InvalidNote("it has no description (pass `description`, one line)")
    if len(description) > MEMORY_DESCRIPTION_MAX:
        raise TooLarge("description", len(description), MEMORY_DESCRIPTION_MAX)
    kind = (kind or (previous.type if previous else None) or DEFAULT_TYPE).strip()
    if kind not in NOTE_TYPES:
        raise InvalidNote(f"type {kind!r} is not one of {', '.join(NOTE_TYPES)}")
    if not body.strip():
        raise InvalidNote("its body is empty")
    return Note(slug, description, kind, body, extra, metadata_extra)
