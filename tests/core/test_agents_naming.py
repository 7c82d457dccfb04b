"""Agent names → kebab-case slugs and unique persona paths; safe relative paths (AGT-3)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.agents.naming import (
    DEFAULT_SLUG,
    MAX_SLUG_LENGTH,
    relative_path_problem,
    slugify,
    unique_md_path,
)


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Backend Dev", "backend-dev"),
        ("DevBackend", "devbackend"),  # the seed's own file is agents/devbackend.md
        ("QA", "qa"),
        ("Git Keeper", "git-keeper"),
        ("  Équipe   Données!! ", "equipe-donnees"),
        ("Ça_va / ok?", "ca-va-ok"),
        ("naïve café", "naive-cafe"),
        ("v2 (beta)", "v2-beta"),
        ("", DEFAULT_SLUG),
        ("!!!", DEFAULT_SLUG),
        ("開発者", DEFAULT_SLUG),
    ],
)
def test_slugify(name: str, slug: str) -> None:
    assert slugify(name) == slug


def test_long_names_are_cut_without_a_trailing_hyphen() -> None:
    slug = slugify("a" * (MAX_SLUG_LENGTH - 1) + " b" * 10)
    assert len(slug) <= MAX_SLUG_LENGTH
    assert not slug.endswith("-")


@settings(deadline=None)
@given(st.text())
def test_every_name_gives_a_safe_kebab_slug(name: str) -> None:
    slug = slugify(name)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug)
    assert len(slug) <= MAX_SLUG_LENGTH
    assert slugify(slug) == slug  # idempotent: a slug is its own slug


def test_unique_md_path_numbers_collisions_from_two() -> None:
    assert unique_md_path("QA", []) == "agents/qa.md"
    assert unique_md_path("QA", ["agents/qa.md"]) == "agents/qa-2.md"
    assert unique_md_path("qa", ["agents/qa.md", "agents/qa-2.md"]) == "agents/qa-3.md"


def test_unique_md_path_ignores_case_and_normalises_taken_paths() -> None:
    # Two files differing only by case collide on macOS: never produce such a pair.
    assert unique_md_path("QA", ["agents/QA.md"]) == "agents/qa-2.md"
    assert unique_md_path("QA", ["agents/./qa.md"]) == "agents/qa-2.md"


@settings(deadline=None)
@given(st.lists(st.sampled_from(["QA", "qa", "Q A", "Backend Dev", "", "!"]), max_size=12))
def test_successive_unique_paths_never_collide(names: list[str]) -> None:
    taken: list[str] = []
    for name in names:
        path = unique_md_path(name, taken)
        assert path.casefold() not in {t.casefold() for t in taken}
        assert relative_path_problem(path) is None
        taken.append(path)


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("agents/qa.md", None),
        ("CLAUDE.md", None),
        ("sub/dir/AGENTS.md", None),
        ("", "empty"),
        ("   ", "empty"),
        ("/etc/passwd", "relative"),
        ("~/notes.md", "relative"),
        ("../CLAUDE.md", ".."),
        ("agents/../../x.md", ".."),
        ("agents\\..\\x.md", ".."),
        (".", "folder itself"),
        ("agents/..", ".."),
        ("a\x00b", "NUL"),
    ],
)
def test_relative_path_problem(path: str, problem: str | None) -> None:
    found = relative_path_problem(path)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found
