"""Names and paths of agents: kebab-case slugs, unique Markdown paths, safe relative paths.

An agent's persona lives at `.ideai/agents/<slug>.md` (AGT-3). The slug comes from the name
the user typed: "Backend Dev" → `backend-dev`, the seed's "DevBackend" → `devbackend` (no
camel-case split: the seed's own file is `agents/devbackend.md`). Paths stored in files are
relative, POSIX-style, and must not leave the folder they are relative to.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable

AGENTS_DIR = "agents"
"""Folder of the personas, relative to `.ideai/`."""

DEFAULT_SLUG = "agent"
MAX_SLUG_LENGTH = 64

_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def slugify(name: str, default: str = DEFAULT_SLUG) -> str:
    """A kebab-case file stem for a name.

    Accents are folded (NFKD, combining marks dropped), everything else that is not an ASCII
    letter or digit becomes a single hyphen. A name with nothing left gives `default`.

    >>> slugify("Backend Dev"), slugify("DevBackend"), slugify("Équipe QA !"), slugify("  ")
    ('backend-dev', 'devbackend', 'equipe-qa', 'agent')
    """
    folded = unicodedata.normalize("NFKD", name)
    ascii_only = "".join(ch for ch in folded if not unicodedata.combining(ch))
    slug = _NOT_SLUG.sub("-", ascii_only.lower()).strip("-")
    # Long names would make unwieldy file names; cut on the character limit, then drop a
    # trailing hyphen the cut may leave.
    slug = slug[:MAX_SLUG_LENGTH].rstrip("-")
    return slug or default


def unique_slug(name: str, taken: Iterable[str], default: str = DEFAULT_SLUG) -> str:
    """`slugify(name)`, else numbered (`qa-2`, `qa-3`, ...) until it is not in `taken`;
    compared without regard to case (file names on macOS).

    >>> unique_slug("QA", ["qa", "QA-2"])
    'qa-3'
    """
    used = {item.casefold() for item in taken}
    base = slugify(name, default)
    candidate, number = base, 2
    while candidate.casefold() in used:
        candidate, number = f"{base}-{number}", number + 1
    return candidate


def unique_md_path(name: str, taken: Iterable[str]) -> str:
    """The persona path for a new agent: `agents/<slug>.md`, else `agents/<slug>-2.md`, ...

    Taken paths are compared without regard to case, so two agents never get files that
    collide on a case-insensitive filesystem (macOS).

    >>> unique_md_path("QA", ["agents/qa.md"])
    'agents/qa-2.md'
    """
    used = {posixpath.normpath(path).casefold() for path in taken}
    slug = slugify(name)
    candidate = f"{AGENTS_DIR}/{slug}.md"
    number = 2
    while candidate.casefold() in used:
        candidate = f"{AGENTS_DIR}/{slug}-{number}.md"
        number += 1
    return candidate


def relative_path_problem(path: str) -> str | None:
    """Why a relative path could escape its base folder, or None when it is safe.

    Safe means: not empty, not absolute, no `..` component, no NUL, and naming something
    below the base (not the base itself).
    """
    if not path or not path.strip():
        return "it is empty"
    if "\x00" in path:
        return "it contains a NUL character"
    if posixpath.isabs(path) or path.startswith("~"):
        return "it must be relative, not absolute"
    if ".." in path.replace("\\", "/").split("/"):
        return "it must not contain '..'"
    if posixpath.normpath(path) == ".":
        return "it names the folder itself, not a file in it"
    return None
