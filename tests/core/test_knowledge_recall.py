"""Keyword recall (D17): which index lines an agent gets at launch, bounded."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from core.knowledge.limits import MEMORY_INJECT_MAX_CHARS, MEMORY_INJECT_MAX_NOTES
from core.knowledge.memory_index import IndexEntry, parse_index
from core.knowledge.recall import document_terms, line_of, rank, recall, terms

SEED_INDEX = parse_index(
    (Path(__file__).parent.parent / "fixtures" / "seed_memory" / "MEMORY.md").read_text()
)


def test_terms_fold_case_accents_plurals_and_stop_words() -> None:
    assert terms("Les Décisions sur la mémoire des agents, and the Branches") == [
        "decision", "memoire", "branche"]


def test_a_git_persona_gets_the_git_note_first() -> None:
    chosen = recall(SEED_INDEX.entries, "Git\nYou own commits, merges and every branch.")
    assert chosen.entries[0].slug == "git-owns-commit-merge-decisions"
    assert chosen.matched >= 1 and chosen.total == 7


def test_a_permissions_persona_gets_the_sandbox_note_first() -> None:
    chosen = recall(SEED_INDEX.entries, "Security reviewer: permissions and the sandbox.")
    assert chosen.entries[0].slug == "permissions-sandbox-system-state"


def test_rare_terms_outrank_common_ones() -> None:
    entries = [IndexEntry(f"n{i}", "testing the build") for i in range(5)]
    entries.append(IndexEntry("rare", "testing the flaky websocket"))
    ranked = rank(entries, "websocket testing")
    assert ranked[0][1] == 5  # the one with the rare term
    assert len(ranked) == 6


def test_with_no_match_the_newest_notes_come() -> None:
    entries = [IndexEntry(f"note-{i}", f"topic {i}") for i in range(30)]
    chosen = recall(entries, "zebra")
    assert chosen.matched == 0
    assert [e.slug for e in chosen.entries] == [f"note-{i}" for i in range(29, 17, -1)]


def test_equal_scores_keep_index_order() -> None:
    entries = [IndexEntry(s, "deploy steps") for s in ("b", "a", "c")]
    assert [e.slug for e in recall(entries, "deploy").entries] == ["b", "a", "c"]


def test_long_lines_are_cut() -> None:
    entry = IndexEntry("long", "word " * 200)
    assert len(line_of(entry)) == 240 and line_of(entry).endswith("…")


entries_strategy = st.lists(
    st.builds(IndexEntry, st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True),
              st.text(max_size=400)),
    max_size=300,
    unique_by=lambda e: e.slug,
)


@given(entries_strategy, st.text(max_size=2000))
def test_recall_is_bounded_deterministic_and_drawn_from_the_index(
    entries: list[IndexEntry], query: str
) -> None:
    chosen = recall(entries, query)
    assert len(chosen.entries) <= MEMORY_INJECT_MAX_NOTES
    assert sum(len(line_of(e)) + 1 for e in chosen.entries) <= MEMORY_INJECT_MAX_CHARS
    assert len({e.slug for e in chosen.entries}) == len(chosen.entries)
    assert all(e in entries for e in chosen.entries)
    assert recall(entries, query) == chosen
    # The daemon's cached terms give the very same choice.
    assert recall(entries, query, documents=document_terms(entries)) == chosen
    assert chosen.matched <= len(chosen.entries)
    if entries and len(entries) <= MEMORY_INJECT_MAX_NOTES and all(
            len(line_of(e)) <= 150 for e in entries):
        assert len(chosen.entries) == len(entries)  # a small memory is shown whole
