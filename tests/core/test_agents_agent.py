"""Agents and their manifest: invariants (AGT-1, AGT-2) and pure operations (AGT-3, SWP-1)."""

from __future__ import annotations

import pytest

from core.agents.agent import (
    SCRATCH,
    Agent,
    AgentManifest,
    FromTemplate,
    add_agent,
    change_profile,
    create_agent,
    find_agent,
    remove_agent,
    rename_agent,
    set_synchronized,
    starter_persona,
)
from core.agents.errors import (
    AgentNotFound,
    AmbiguousAgent,
    DuplicateAgent,
    EmptyName,
    SynchronizedWithoutTemplate,
    UnsafePath,
)


def team() -> AgentManifest:
    manifest = AgentManifest()
    manifest, _ = create_agent(manifest, "a6ced819", "Main", "claude-code")
    manifest, _ = create_agent(manifest, "a6c00000", "Backend Dev", "claude-code")
    manifest, _ = create_agent(manifest, "dce19c75", "QA", "codex-cli")
    return manifest


def test_create_agent_derives_a_unique_persona_path() -> None:
    manifest = team()
    assert [a.md_path for a in manifest.agents] == [
        "agents/main.md",
        "agents/backend-dev.md",
        "agents/qa.md",
    ]
    manifest, agent = create_agent(manifest, "n1", "  Q A  ", "claude-code")
    assert agent == Agent("n1", "Q A", "agents/q-a.md", "claude-code")
    _, other = create_agent(manifest, "n2", "Qa!", "x", also_taken=["agents/qa-2.md"])
    assert other.md_path == "agents/qa-3.md"  # qa.md in the manifest, qa-2.md on disk


def test_names_are_unique_without_regard_to_case() -> None:
    with pytest.raises(DuplicateAgent) as caught:
        create_agent(team(), "x", "qa", "claude-code")
    assert caught.value.field == "name"
    with pytest.raises(DuplicateAgent):
        rename_agent(team(), "a6ced819", " QA ")
    with pytest.raises(EmptyName):
        create_agent(team(), "x", "   ", "claude-code")


def test_rename_keeps_the_persona_file() -> None:
    manifest = rename_agent(team(), "dce19c75", "Tester")
    tester = manifest.get("dce19c75")
    assert (tester.name, tester.md_path) == ("Tester", "agents/qa.md")
    # Renaming to the same name in another case is not a conflict with itself.
    assert rename_agent(manifest, "dce19c75", "TESTER").get("dce19c75").name == "TESTER"


def test_change_profile_remove_and_order() -> None:
    manifest = change_profile(team(), "dce19c75", "claude-code")
    assert manifest.get("dce19c75").profile_id == "claude-code"
    manifest = remove_agent(manifest, "a6c00000")
    assert [a.name for a in manifest.agents] == ["Main", "QA"]
    with pytest.raises(AgentNotFound):
        remove_agent(manifest, "a6c00000")
    with pytest.raises(AgentNotFound):
        change_profile(manifest, "nope", "x")


def test_operations_return_new_values() -> None:
    original = team()
    rename_agent(original, "dce19c75", "Tester")
    remove_agent(original, "a6ced819")
    assert [a.name for a in original.agents] == ["Main", "Backend Dev", "QA"]


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("dce19c75", "QA"),
        ("qa", "QA"),
        ("  backend dev ", "Backend Dev"),
        ("dce", "QA"),
        ("A6CED", "Main"),
    ],
)
def test_find_agent_by_id_name_or_prefix(query: str, name: str) -> None:
    assert find_agent(team(), query).name == name


def test_find_agent_reports_ambiguity_and_absence() -> None:
    with pytest.raises(AmbiguousAgent) as caught:
        find_agent(team(), "a6c")
    assert caught.value.names == ["Main", "Backend Dev"]
    for query in ("zzz", "", "  "):
        with pytest.raises(AgentNotFound):
            find_agent(team(), query)


def test_a_duplicate_name_in_a_file_is_ambiguous_not_fatal() -> None:
    manifest = AgentManifest(
        (Agent("1", "Dev", "agents/dev.md", "p"), Agent("2", "dev", "agents/dev-2.md", "p"))
    )
    with pytest.raises(AmbiguousAgent):
        find_agent(manifest, "DEV")
    assert find_agent(manifest, "2").md_path == "agents/dev-2.md"


def test_manifest_invariants() -> None:
    a = Agent("1", "A", "agents/a.md", "p")
    with pytest.raises(DuplicateAgent) as caught:
        AgentManifest((a, Agent("1", "B", "agents/b.md", "p")))
    assert caught.value.field == "id"
    with pytest.raises(DuplicateAgent) as caught:
        AgentManifest((a, Agent("2", "B", "agents/./a.md", "p")))
    assert caught.value.field == "mdPath"
    with pytest.raises(DuplicateAgent):
        add_agent(AgentManifest((a,)), Agent("2", "B", "agents/a.md", "p"))


@pytest.mark.parametrize("md_path", ["../x.md", "/abs/x.md", "agents/../../x.md", ""])
def test_persona_paths_stay_inside_ideai(md_path: str) -> None:
    with pytest.raises(UnsafePath):
        Agent("1", "A", md_path, "p")


def test_synchronized_requires_a_template_origin() -> None:
    with pytest.raises(SynchronizedWithoutTemplate):
        Agent("1", "A", "agents/a.md", "p", SCRATCH, synchronized=True)
    synced = Agent("1", "A", "agents/a.md", "p", FromTemplate("tpl", 1), synchronized=True)
    manifest = AgentManifest((synced, Agent("2", "B", "agents/b.md", "p")))
    assert not set_synchronized(manifest, "1", False).get("1").synchronized
    with pytest.raises(SynchronizedWithoutTemplate):
        set_synchronized(manifest, "2", True)
    with pytest.raises(SynchronizedWithoutTemplate):
        create_agent(manifest, "3", "C", "p", synchronized=True)


def test_blank_ids_and_names_are_refused() -> None:
    with pytest.raises(EmptyName):
        Agent(" ", "A", "agents/a.md", "p")
    with pytest.raises(EmptyName):
        Agent("1", "", "agents/a.md", "p")


def test_starter_persona_is_headed_by_the_name() -> None:
    text = starter_persona(" Backend Dev ")
    assert text.startswith("# Backend Dev\n\n")
    assert "## Done means" in text and text.endswith("\n")
