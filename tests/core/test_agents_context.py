"""The composed context: D7 order, empty sections omitted, deterministic (PRF-7)."""

from __future__ import annotations

from dataclasses import fields

from hypothesis import given, settings
from hypothesis import strategies as st

from core.agents.context import TITLES, ContextSections, compose_context

FULL = ContextSections(
    project_root="/home/me/shop",
    orchestration="Delegate with idea_ask_agent; answer with idea_reply(result=…, ticket=…).",
    skills="- release-notes",
    project_context="A web shop.",
    persona="# Backend Dev\n\nYou write the API.\n",
    memory="- [Decisions](decisions.md)",
    state="QA: working on checkout",
    resume="We were fixing the cart total.",
)


def test_sections_come_in_d7_order_with_english_headings() -> None:
    assert compose_context(FULL) == (
        "# Project root\n\n/home/me/shop\n\n"
        "# idea orchestration\n\nDelegate with idea_ask_agent; answer with "
        "idea_reply(result=…, ticket=…).\n\n"
        "# Available skills\n\n- release-notes\n\n"
        "# Project context\n\nA web shop.\n\n"
        "# Backend Dev\n\nYou write the API.\n\n"
        "# Project memory\n\n- [Decisions](decisions.md)\n\n"
        "# Project state\n\nQA: working on checkout\n\n"
        "# Conversation resume\n\nWe were fixing the cart total.\n"
    )


def test_empty_sections_are_omitted_heading_included() -> None:
    text = compose_context(
        ContextSections(project_root="/p", skills="  \n", persona="Be brief.", memory="")
    )
    assert text == "# Project root\n\n/p\n\nBe brief.\n"
    assert compose_context(ContextSections()) == ""


def test_the_persona_is_kept_as_written_apart_from_surrounding_blank_lines() -> None:
    persona = "\n\n  indented first line\n\n\n## Keep   spacing  \ntext\n\n"
    text = compose_context(ContextSections(persona=persona))
    assert text == "  indented first line\n\n\n## Keep   spacing  \ntext\n"


def test_titles_cover_every_field_in_order() -> None:
    assert [f.name for f in fields(ContextSections)] == [name for name, _ in TITLES]


_part = st.one_of(st.none(), st.text(alphabet="ab #\n", max_size=12))


@settings(deadline=None)
@given(st.tuples(*([_part] * len(TITLES))))
def test_composition_is_ordered_and_ends_with_one_newline(parts: tuple[str | None, ...]) -> None:
    sections = ContextSections(*parts)
    text = compose_context(sections)
    assert compose_context(sections) == text  # deterministic
    present = [
        title
        for (_, title), part in zip(TITLES, parts, strict=True)
        if part is not None and part.strip() and title is not None
    ]
    positions = [text.find(f"# {title}\n\n") for title in present]
    assert all(p >= 0 for p in positions) and positions == sorted(positions)
    if any(part is not None and part.strip() for part in parts):
        assert text.endswith("\n") and not text.endswith("\n\n")
    else:
        assert text == ""
