"""Keyword recall: which memory notes an agent gets pointers to at launch (MEM-3, D17).

No embeddings and no dependency: the query is the agent's name and persona, a document is a
note's index line (slug and description), and notes are ranked by the IDF-weighted terms
they share with the query, so a term every note has counts for little and a rare one for
much. Accents and case are folded (the seed's notes mix French and English), short words
and common stop words are dropped, and a plural `s` is folded into the singular.

The selection is bounded (`MEMORY_INJECT_MAX_NOTES` lines, `MEMORY_INJECT_MAX_CHARS`): the
best matches first; if room is left, the most recent notes (the end of the index) follow,
so a project whose notes match nothing still shows what is newest. Deterministic: equal
scores keep index order.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from core.knowledge.limits import (
    MEMORY_INJECT_LINE_MAX,
    MEMORY_INJECT_MAX_CHARS,
    MEMORY_INJECT_MAX_NOTES,
    RECALL_QUERY_MAX_CHARS,
)
from core.knowledge.memory_index import IndexEntry

_WORD = re.compile(r"[a-z0-9]+")
_STOP_WORDS = """
    the and for with that this from are was were not but you your our have has had can will
    into onto about when what which who how all any its their there then than them they
    les des une pour par avec dans sur pas est sont qui que quoi son ses aux elle ils nous
    vous mais sans tout tous toute plus leur leurs cette ces etre avoir fait faire
    agent agents idea
"""
_STOP = frozenset(_STOP_WORDS.split())
"""Words too common to tell notes apart ("agent" and "idea" are in every persona here)."""


def terms(text: str) -> list[str]:
    """The recall terms of `text`, in order (with repeats)."""
    plain = text.lower()
    if not plain.isascii():
        folded = unicodedata.normalize("NFKD", plain)
        plain = "".join(ch for ch in folded if not unicodedata.combining(ch))
    found: list[str] = []
    for word in _WORD.findall(plain):
        if len(word) < 3 or word in _STOP or word.isdigit():
            continue
        if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        found.append(word)
    return found


@dataclass(frozen=True, slots=True)
class Recalled:
    entries: tuple[IndexEntry, ...]
    """The chosen notes, best first."""
    matched: int
    """How many of them share a term with the query (the rest are the most recent)."""
    total: int


def document_terms(entries: Sequence[IndexEntry]) -> list[frozenset[str]]:
    """Each entry's terms (slug and description): what `rank` matches a query against.
    The daemon computes them once per version of the index."""
    return [frozenset(terms(entry.slug.replace("-", " ").replace("_", " "))
                      + terms(entry.description)) for entry in entries]


def rank(entries: Sequence[IndexEntry], query: str,
         documents: Sequence[frozenset[str]] | None = None) -> list[tuple[float, int]]:
    """(score, position) of every entry with a score above zero, best first."""
    query_terms = Counter(terms(query[:RECALL_QUERY_MAX_CHARS]))
    if not query_terms or not entries:
        return []
    if documents is None or len(documents) != len(entries):
        documents = document_terms(entries)
    frequency: Counter[str] = Counter()
    for document in documents:
        frequency.update(document)
    count = len(documents)
    scored: list[tuple[float, int]] = []
    for position, document in enumerate(documents):
        score = 0.0
        for term in document & query_terms.keys():
            idf = math.log(1.0 + count / frequency[term])
            score += idf * (1.0 + math.log(query_terms[term]))
        if score > 0:
            scored.append((score, position))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return scored


def line_of(entry: IndexEntry) -> str:
    line = entry.line
    return line if len(line) <= MEMORY_INJECT_LINE_MAX else line[: MEMORY_INJECT_LINE_MAX - 1] + "…"


def recall(
    entries: Sequence[IndexEntry],
    query: str,
    *,
    max_notes: int = MEMORY_INJECT_MAX_NOTES,
    max_chars: int = MEMORY_INJECT_MAX_CHARS,
    documents: Sequence[frozenset[str]] | None = None,
) -> Recalled:
    """The notes an agent whose persona is `query` gets pointers to (see the module);
    `documents` are `document_terms(entries)` when the caller keeps them."""
    ranked = [position for _, position in rank(entries, query, documents)]
    matching = set(ranked)
    recent = [p for p in range(len(entries) - 1, -1, -1) if p not in matching]
    chosen: list[IndexEntry] = []
    used = 0
    matched = 0
    for position in ranked + recent:
        if len(chosen) >= max_notes:
            break
        line = line_of(entries[position])
        if used + len(line) + 1 > max_chars:
            continue  # a long line is skipped; a shorter one may still fit
        chosen.append(entries[position])
        used += len(line) + 1
        if position in matching:
            matched += 1
    return Recalled(tuple(chosen), matched, len(entries))

