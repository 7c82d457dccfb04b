"""Skills: rules, lookup, idempotent assignment and what a launch injects (SKL-1..SKL-4)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.agents.agent import Agent, AgentManifest, SkillRef, SkillScope
from core.agents.context import ContextSections, compose_context
from core.agents.errors import (
    AgentNotFound,
    AmbiguousSkill,
    InvalidSkill,
    SkillNotFound,
    UnsafePath,
)
from core.agents.skills import (
    BODIES_MAX_CHARS,
    LIST_MAX,
    MAX_CONTENT,
    MAX_NAME,
    Skill,
    assign,
    assigned_skills,
    check_draft,
    describe,
    edit_skill,
    find_skill,
    new_skill,
    skill_hash,
    skill_id_for,
    skill_sections,
    unassign,
)

P, G = SkillScope.PROJECT, SkillScope.GLOBAL


def skill(skill_id: str, name: str | None = None, body: str = "# Steps\n\n1. do it\n",
          scope: SkillScope = P) -> Skill:
    return new_skill(skill_id, name or skill_id, body, scope)


def manifest(*skills: SkillRef) -> AgentManifest:
    return AgentManifest((Agent("a1", "QA", "agents/qa.md", "claude-code", skills=skills),))


# ─── rules ───────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(("name", "content", "field", "words"), [
    ("", "body", "name", "must not be empty"),
    ("   ", "body", "name", "must not be empty"),
    ("x" * (MAX_NAME + 1), "body", "name", f"the limit is {MAX_NAME}"),
    ("two\nlines", "body", "name", "one line"),
    ("ok", "", "content", "must not be empty"),
    ("ok", " \n\t", "content", "must not be empty"),
    ("ok", "x" * (MAX_CONTENT + 1), "content", f"the limit is {MAX_CONTENT:,}"),
    ("ok", "nul\x00", "content", "NUL"),
    (3, "body", "name", "must be text"),
    ("ok", ["body"], "content", "must be text"),
])
def test_a_bad_name_or_body_is_refused_with_the_rule_and_its_limit(
    name: object, content: object, field: str, words: str
) -> None:
    with pytest.raises(InvalidSkill) as caught:
        check_draft(name, content)
    assert caught.value.field == field
    assert words in caught.value.message


def test_the_longest_name_and_body_are_accepted() -> None:
    made = new_skill("s", "n" * MAX_NAME, "b" * MAX_CONTENT, G)
    assert made.scope is G and made.content_hash == skill_hash("b" * MAX_CONTENT)


@pytest.mark.parametrize("bad", ["../x", "a/b", "-rf", "", ".hidden", "a b"])
def test_an_id_that_is_not_one_safe_path_component_is_refused(bad: str) -> None:
    with pytest.raises(UnsafePath):
        Skill(bad, "name", "body", P, "0" * 16)


def test_the_hash_is_16_hex_and_ignores_line_endings() -> None:
    assert len(skill_hash("a\nb")) == 16
    assert int(skill_hash("a\nb"), 16) >= 0
    assert skill_hash("a\r\nb\r\n") == skill_hash("a\nb\n") != skill_hash("a\nc\n")


def test_editing_keeps_the_id_and_moves_the_hash_only_with_the_content() -> None:
    first = Skill("release", "Release", "v1", P, "seedhash00000000")
    renamed = edit_skill(first, name="  Release steps ")
    assert (renamed.id, renamed.name, renamed.content_hash) == ("release", "Release steps",
                                                               "seedhash00000000")
    rewritten = edit_skill(first, content="v2")
    assert rewritten.content_hash == skill_hash("v2") and rewritten.content_md == "v2"
    with pytest.raises(InvalidSkill):
        edit_skill(first, content="")


def test_new_ids_are_slugs_numbered_when_taken() -> None:
    assert skill_id_for("Release checklist", []) == "release-checklist"
    assert skill_id_for("Release checklist", ["release-checklist"]) == "release-checklist-2"
    assert skill_id_for("Équipe !", []) == "equipe"
    assert skill_id_for("???", []) == "skill"


@pytest.mark.parametrize(("body", "name", "expected"), [
    ("---\nname: x\ndescription: \"Build the image\"\n---\n# T\n", "x", "Build the image"),
    ("# Release\n\nBefore tagging a version.\n", "Release", "Before tagging a version."),
    ("\n\n## Deploy to staging\nsteps", "deploy", "Deploy to staging"),
    ("---\nname: x\n---\nFirst line\n", "x", "First line"),
    ("word " * 100, "w", ("word " * 100).strip()[:119] + "…"),
])
def test_the_description_is_one_line(body: str, name: str, expected: str) -> None:
    assert describe(body, name) == expected


# ─── finding ─────────────────────────────────────────────────────────────────────────────


def test_a_skill_is_found_by_id_or_by_name_in_any_case() -> None:
    skills = [skill("release", "Release checklist"), skill("deploy", "Deploy", scope=G)]
    assert find_skill(skills, "release").id == "release"
    assert find_skill(skills, "RELEASE CHECKLIST").id == "release"
    assert find_skill(skills, " deploy ").scope is G
    with pytest.raises(SkillNotFound, match="'nope'"):
        find_skill(skills, "nope")
    with pytest.raises(SkillNotFound, match="global"):
        find_skill(skills, "release", G)


def test_the_project_skill_wins_over_a_global_one_of_the_same_name() -> None:
    skills = [skill("build", scope=G), skill("build", scope=P)]
    assert find_skill(skills, "build").scope is P
    assert find_skill(skills, "build", G).scope is G


def test_two_skills_of_one_scope_with_one_name_are_ambiguous() -> None:
    skills = [skill("a", "Same"), skill("b", "same")]
    with pytest.raises(AmbiguousSkill, match="a, b"):
        find_skill(skills, "same")


# ─── assignment ──────────────────────────────────────────────────────────────────────────


def test_assigning_is_idempotent_and_appends_in_order() -> None:
    base = manifest()
    one, changed = assign(base, "a1", SkillRef("release", P))
    assert changed
    again, changed_again = assign(one, "a1", SkillRef("release", P))
    assert not changed_again and again is one
    two, _ = assign(again, "a1", SkillRef("release", G))  # same id, other scope: another
    assert two.get("a1").skills == (SkillRef("release", P), SkillRef("release", G))


def test_unassigning_is_idempotent_and_keeps_the_others() -> None:
    held = manifest(SkillRef("a", P), SkillRef("b", G))
    gone, changed = unassign(held, "a1", SkillRef("a", P))
    assert changed and gone.get("a1").skills == (SkillRef("b", G),)
    same, changed_again = unassign(gone, "a1", SkillRef("a", P))
    assert not changed_again and same is gone
    with pytest.raises(AgentNotFound):
        assign(held, "nobody", SkillRef("a", P))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from(["a", "b", "c"]),
                          st.sampled_from([P, G])), max_size=20))
def test_any_sequence_of_assignments_leaves_no_duplicate(
    steps: list[tuple[bool, str, SkillScope]]
) -> None:
    current = manifest()
    expected: list[SkillRef] = []
    for on, skill_id, scope in steps:
        ref = SkillRef(skill_id, scope)
        current, _ = (assign if on else unassign)(current, "a1", ref)
        if on and ref not in expected:
            expected.append(ref)
        if not on and ref in expected:
            expected.remove(ref)
    assert list(current.get("a1").skills) == expected


def test_assigned_skills_follow_the_manifest_and_skip_dangling_refs() -> None:
    skills = [skill("a"), skill("b", scope=G), skill("c")]
    refs = (SkillRef("c", P), SkillRef("gone", P), SkillRef("b", G), SkillRef("b", P),
            SkillRef("c", P))
    assert [s.id for s in assigned_skills(refs, skills)] == ["c", "b"]


# ─── injection ───────────────────────────────────────────────────────────────────────────


def test_with_mcp_only_names_and_descriptions_are_listed() -> None:
    skills = [skill("release", "Release", "# Release\n\nBefore a tag.\n\nSECRET-STEP"),
              skill("deploy", "Deploy", "Push it.", G)]
    parts = skill_sections(skills, mcp=True)
    assert parts.bodies is None
    assert parts.listing is not None
    assert "idea_skill_read(name=NAME)" in parts.listing
    assert "- Release — Before a tag.\n- Deploy — Push it.\n" in parts.listing
    assert "SECRET-STEP" not in parts.listing


def test_without_mcp_the_bodies_come_in_order_at_the_end_of_the_context() -> None:
    skills = [skill("b", "Second", "BODY-B"), skill("a", "First", "BODY-A")]
    parts = skill_sections(skills, mcp=False)
    assert parts.listing is not None and "idea_skill_read" not in parts.listing
    text = compose_context(ContextSections(project_root="/p", skills=parts.listing,
                                           persona="# QA\n", memory="- note",
                                           skill_bodies=parts.bodies))
    assert text.index("# Available skills") < text.index("# QA") < text.index("# Project memory")
    assert text.endswith("# Skills\n\n## Second\n\nBODY-B\n\n## First\n\nBODY-A\n")
    assert skill_sections(skills, mcp=False) == parts  # deterministic


def test_no_assigned_skill_gives_no_section() -> None:
    parts = skill_sections([], mcp=False)
    assert parts.listing is None and parts.bodies is None
    assert "# Available skills" not in compose_context(
        ContextSections(persona="x", skills=parts.listing, skill_bodies=parts.bodies))


def test_bodies_are_bounded_and_a_cut_says_how_to_read_the_rest() -> None:
    big = "x" * (BODIES_MAX_CHARS // 2)
    skills = [skill(f"s{i}", f"S{i}", big) for i in range(4)]
    bodies = skill_sections(skills, mcp=False).bodies
    assert bodies is not None
    assert len(bodies) <= BODIES_MAX_CHARS + 400
    assert "cut here" in bodies and "`idea skill show s1`" in bodies
    assert "## S3\n\n(left out: no room; `idea skill show s3` prints it)" in bodies


def test_the_list_is_bounded_too() -> None:
    skills = [skill(f"s{i}") for i in range(LIST_MAX + 5)]
    listing = skill_sections(skills, mcp=True).listing
    assert listing is not None
    assert listing.count("\n- ") == LIST_MAX + 1
    assert "… and 5 more" in listing
