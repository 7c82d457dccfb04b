"""Project memory, pure: slugs, the note format and the index (§3.9), on the seed's own files."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.knowledge.errors import InvalidNote, InvalidSlug, TooLarge
from core.knowledge.limits import MEMORY_DESCRIPTION_MAX, MEMORY_NOTE_MAX_CHARS, MEMORY_SLUG_MAX
from core.knowledge.memory_index import IndexEntry, IndexFormatError, new_index, parse_index
from core.knowledge.note import (
    Note,
    NoteFormatError,
    note_to_save,
    parse_note,
    render_note,
    split_frontmatter,
)
from core.knowledge.slugs import checked_slug, slug_problem
from tests.core.test_ids import HOSTILE

SEED = Path(__file__).parent.parent / "fixtures" / "seed_memory"
SEED_NOTES = sorted(p for p in SEED.glob("*.md") if p.stem != "MEMORY")


# ─── slugs ───────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("value", [*HOSTILE, "MEMORY", "memory", "a" * (MEMORY_SLUG_MAX + 1)])
def test_hostile_slugs_are_refused(value: str) -> None:
    with pytest.raises(InvalidSlug):
        checked_slug(value)


def test_a_slug_is_forgiven_its_md_and_spaces() -> None:
    assert checked_slug(" git-rules.md ") == "git-rules"
    assert checked_slug("git-rules") == "git-rules"
    assert slug_problem("x.md") is not None  # but never stored with it
    with pytest.raises(InvalidSlug, match="index"):
        checked_slug("MEMORY.md")


# ─── notes ───────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("path", SEED_NOTES, ids=lambda p: p.stem)
def test_seed_notes_parse_and_render_byte_for_byte(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    note = parse_note(path.stem, text)
    assert note.slug == path.stem and note.description and note.type in ("project", "feedback")
    assert render_note(note) == text


def test_seed_feedback_note_is_read_as_such() -> None:
    note = parse_note("git-owns-commit-merge-decisions",
                      (SEED / "git-owns-commit-merge-decisions.md").read_text())
    assert note.type == "feedback"
    assert "[[session-limit-handling-design]]" in note.body


def test_unknown_frontmatter_keys_survive_a_rewrite() -> None:
    text = ("---\nname: a\ndescription: 'x: y'\ntags:\n  - one\n  - two\nmetadata:\n"
            "  type: user\n  origin: seed\n---\nbody\n")
    note = parse_note("a", text)
    assert note.description == "x: y" and note.type == "user"
    again = parse_note("a", render_note(note))
    assert again == note and again.extra == note.extra == ("tags:", "  - one", "  - two")
    assert again.metadata_extra == ("  origin: seed",)


@pytest.mark.parametrize("text, line", [
    ("---\nname: a\ndescription: d\n", 1),             # never closed
    ("---\nname: a\nthis is prose\n---\nbody", 3),     # not key: value
    ("---\n  type: project\n---\n", 2),                # indented outside a mapping
    ("---\nname: b\ndescription: d\n---\n", 2),        # another note's name
    ("---\nname: a\n---\nbody\n", 2),                  # no description
    ("no frontmatter at all\n", 1),
])
def test_broken_frontmatter_says_where(text: str, line: int) -> None:
    with pytest.raises(NoteFormatError) as caught:
        parse_note("a", text)
    assert caught.value.line == line


def test_a_body_alone_becomes_a_note_with_a_derived_description() -> None:
    note = note_to_save("build", "# Build with make\n\nRun `make check`.\n",
                        description=None, kind=None, previous=None)
    assert note.description == "Build with make" and note.type == "project"
    text = render_note(note)
    assert text.startswith("---\nname: build\ndescription: Build with make\nmetadata:\n"
                           "  type: project\n---\n# Build with make\n")
    assert parse_note("build", text) == note


def test_an_update_keeps_the_previous_description_and_type() -> None:
    previous = Note("prefs", "User prefers French commit messages", "feedback", "old\n")
    note = note_to_save("prefs", "new body\n", description=None, kind=None, previous=previous)
    assert (note.description, note.type, note.body) == (previous.description, "feedback",
                                                         "new body\n")


def test_a_whole_note_is_accepted_and_checked() -> None:
    whole = "---\nname: prefs\ndescription: One line\nmetadata:\n  type: feedback\n---\nBody\n"
    note = note_to_save("prefs", whole, description=None, kind=None, previous=None)
    assert (note.description, note.type, note.body) == ("One line", "feedback", "Body\n")
    with pytest.raises(InvalidNote, match="names 'prefs'"):
        note_to_save("other", whole, description=None, kind=None, previous=None)
    with pytest.raises(InvalidNote, match="frontmatter"):
        note_to_save("prefs", "---\nname: prefs\n", description=None, kind=None, previous=None)


def test_bad_values_are_refused_with_the_limit() -> None:
    with pytest.raises(TooLarge, match=f"{MEMORY_NOTE_MAX_CHARS:,}"):
        note_to_save("a", "x" * (MEMORY_NOTE_MAX_CHARS + 1), description="d", kind=None,
                     previous=None)
    with pytest.raises(TooLarge, match=f"{MEMORY_DESCRIPTION_MAX:,}"):
        note_to_save("a", "x", description="d" * (MEMORY_DESCRIPTION_MAX + 1), kind=None,
                     previous=None)
    with pytest.raises(InvalidNote, match="type 'diary'"):
        note_to_save("a", "x", description="d", kind="diary", previous=None)
    with pytest.raises(InvalidNote, match="body is empty"):
        note_to_save("a", "---\ndescription: d\n---\n", description=None, kind=None,
                     previous=None)


@given(st.text(min_size=1, max_size=200), st.text(min_size=0, max_size=400))
def test_any_description_and_body_round_trip(description: str, body: str) -> None:
    one = " ".join(description.replace("\r", " ").split())
    if not one or body.startswith("---") or "\r" in body:
        return
    note = Note("n", one, "project", body)
    parsed = parse_note("n", render_note(note))
    assert parsed.description == one
    assert parsed.body == (body if body.endswith("\n") or not body else body + "\n")


def test_text_without_frontmatter_has_none() -> None:
    assert split_frontmatter("# Title\n") is None


# ─── the index ───────────────────────────────────────────────────────────────────────────


def test_seed_index_parses_and_renders_unchanged() -> None:
    text = (SEED / "MEMORY.md").read_text(encoding="utf-8")
    index = parse_index(text)
    assert [e.slug for e in index.entries] == [
        "agent-context-memory-and-profile-handoff", "idea-product-directives-main-handoff",
        "remaining-work-idea-agent-control-ide", "mcp-bridge-and-delegation-runtime-notes",
        "permissions-sandbox-system-state", "session-limit-handling-design",
        "git-owns-commit-merge-decisions",
    ]
    assert index.render() == text
    assert all(e.line in text for e in index.entries)


def test_upsert_replaces_in_place_and_appends_new_notes() -> None:
    text = "# Memory Index\n\nSome prose the user wrote.\n\n- [a](a.md) — first\n- [b](b.md) — b\n"
    index = parse_index(text)
    changed = index.upsert(IndexEntry("a", "first, revised"))
    assert changed.render() == text.replace("— first", "— first, revised")
    added = changed.upsert(IndexEntry("c", "third"))
    assert added.render().endswith("- [b](b.md) — b\n- [c](c.md) — third\n")
    assert "Some prose the user wrote." in added.render()
    assert [e.slug for e in added.remove("a").entries] == ["b", "c"]


def test_a_new_index_gets_the_seed_layout() -> None:
    index = new_index().upsert(IndexEntry("a", "first"))
    assert index.render() == "# Memory Index\n\n- [a](a.md) — first\n"


@pytest.mark.parametrize("line, problem", [
    ("- [a](b.md) — x", "link"),
    ("- [../../etc](../../etc.md) — x", "slug"),
    ("- [a] — no link", "expected"),
    ("- [MEMORY](MEMORY.md) — x", "index"),
])
def test_a_malformed_entry_makes_the_index_corrupt(line: str, problem: str) -> None:
    with pytest.raises(IndexFormatError, match=problem) as caught:
        parse_index(f"# Memory Index\n\n- [ok](ok.md) — fine\n{line}\n")
    assert caught.value.line == 4


def test_a_slug_listed_twice_is_corrupt() -> None:
    with pytest.raises(IndexFormatError, match="twice"):
        parse_index("- [a](a.md) — x\n- [a](a.md) — y\n")
