"""Memory slugs: the file stem of a note, its `name:` and its index link (FEATURES.md §3.9).

A slug becomes the path `.ideai/memory/<slug>.md`, so it follows the one rule for ids that
become paths (`core.ids`: one safe component, no `..`, no hidden file, no option), plus two
of its own: it is at most `MEMORY_SLUG_MAX` characters, and it is never `MEMORY` (the index).
A trailing `.md` is forgiven (models often name the file): `notes.md` means `notes`.
"""

from __future__ import annotations

from core.ids import id_problem
from core.knowledge.errors import InvalidSlug
from core.knowledge.limits import MEMORY_SLUG_MAX

INDEX_STEM = "MEMORY"


def slug_problem(slug: str) -> str | None:
    """Why `slug` cannot name a note, or None."""
    if not slug:
        return "it is empty"
    if len(slug) > MEMORY_SLUG_MAX:
        return f"it is longer than {MEMORY_SLUG_MAX} characters"
    if id_problem(slug) is not None:
        return "use letters, digits, '.', '_' or '-', starting with a letter or a digit"
    if slug.lower() == INDEX_STEM.lower():
        return "MEMORY is the index itself"
    if slug.lower().endswith(".md"):
        return "leave out the .md extension"
    return None


def checked_slug(raw: str) -> str:
    """The slug `raw` names (outer spaces and one `.md` suffix dropped), validated.

    Raises:
        InvalidSlug: It cannot name a note.
    """
    slug = raw.strip(" ")
    if slug.lower().endswith(".md") and len(slug) > 3:
        slug = slug[:-3]
    problem = slug_problem(slug)
    if problem is not None:
        raise InvalidSlug(raw, problem)
    return slug
