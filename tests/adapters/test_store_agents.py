"""`.ideai/agents.json` (both seed schemas) and persona files, on real files (AGT-2, D12, D23)."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.store.agents_codec import AgentStore, PersonaStore, decode_manifest, encode_manifest
from core.agents.agent import (
    Agent,
    AgentManifest,
    FromTemplate,
    Scratch,
    SkillRef,
    SkillScope,
    create_agent,
)
from core.agents.errors import MissingPersona, UnsafePath
from core.agents.profile import CLAUDE_CODE_ID, SEED_CLAUDE_ID, canonical_profile_id
from core.errors import CorruptFile, FileAccessError, NewerVersion

FIXTURES = Path(__file__).parent.parent / "fixtures"
PERSISTED = FIXTURES / "seed_agents.json"
DOCUMENTED = FIXTURES / "seed_agents_documented.json"


def load_fixture(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".ideai").mkdir()
    return tmp_path


def manifest_file(project: Path) -> Path:
    return project / ".ideai" / "agents.json"


# ─── The seed's files ────────────────────────────────────────────────────────────────────


def test_the_persisted_seed_loads_and_saves_back_as_the_same_data(project: Path) -> None:
    manifest_file(project).write_bytes(PERSISTED.read_bytes())
    store = AgentStore()
    manifest = store.load(project)
    assert [a.name for a in manifest.agents] == [
        "Main",
        "Architect",
        "DevBackend",
        "DevFrontend",
        "QA",
        "Git",
    ]
    main = manifest.agents[0]
    assert main == Agent(
        "a6ced819-b893-4213-b003-9e9dc79b9641", "Main", "agents/main.md", SEED_CLAUDE_ID
    )
    assert all(isinstance(a.origin, Scratch) and not a.synchronized for a in manifest.agents)
    assert {canonical_profile_id(a.profile_id) for a in manifest.agents} == {CLAUDE_CODE_ID}
    store.save(project, manifest)
    assert json.loads(manifest_file(project).read_text()) == load_fixture(PERSISTED)


def test_the_documented_seed_loads_and_is_written_in_the_persisted_schema() -> None:
    manifest = decode_manifest(load_fixture(DOCUMENTED))
    backend, adhoc = manifest.agents
    assert backend == Agent(
        "a3f1...",
        "Backend Dev",
        "agents/backend-dev.md",
        "claude-code",
        FromTemplate("tpl-backend", 4),
        synchronized=True,
    )
    assert adhoc == Agent("b7c2...", "Ad-hoc", "agents/adhoc.md", "codex-cli")
    assert encode_manifest(manifest) == {
        "version": 1,
        "agents": [
            {
                "agentId": "a3f1...",
                "name": "Backend Dev",
                "mdPath": "agents/backend-dev.md",
                "profileId": "claude-code",
                "origin": {
                    "type": "fromTemplate",
                    "templateId": "tpl-backend",
                    "syncedTemplateVersion": 4,
                },
                "synchronized": True,
            },
            {
                "agentId": "b7c2...",
                "name": "Ad-hoc",
                "mdPath": "agents/adhoc.md",
                "profileId": "codex-cli",
                "synchronized": False,
            },
        ],
    }


def test_the_seed_manifest_entry_form_with_flat_template_keys() -> None:
    data = {
        "version": 1,
        "agents": [
            {
                "agentId": "x",
                "name": "X",
                "mdPath": "agents/x.md",
                "profileId": "p",
                "templateId": "tpl",
                "syncedTemplateVersion": 2,
                "synchronized": True,
            }
        ],
    }
    agent = decode_manifest(data).agents[0]
    assert agent.origin == FromTemplate("tpl", 2) and agent.synchronized
    assert encode_manifest(decode_manifest(data))["agents"][0]["origin"] == {
        "type": "fromTemplate",
        "templateId": "tpl",
        "syncedTemplateVersion": 2,
    }


def test_skills_hash_and_unknown_keys_round_trip() -> None:
    data = {
        "version": 1,
        "sortBy": "name",
        "agents": [
            {
                "agentId": "x",
                "name": "X",
                "mdPath": "agents/x.md",
                "profileId": "p",
                "origin": {
                    "type": "fromTemplate",
                    "templateId": "tpl",
                    "syncedTemplateVersion": 2,
                    "syncedContentHash": "sha256:ab",
                    "note": "kept",
                },
                "synchronized": True,
                "skills": [{"skillId": "s1", "scope": "global", "pinned": True}],
                "color": "teal",
            },
            {
                "agentId": "y",
                "name": "Y",
                "mdPath": "agents/y.md",
                "profileId": "p",
                "origin": {"type": "scratch", "why": "kept too"},
                "synchronized": False,
            },
        ],
    }
    manifest = decode_manifest(copy.deepcopy(data))
    x = manifest.agents[0]
    assert x.skills == (SkillRef("s1", SkillScope.GLOBAL),)
    assert x.origin == FromTemplate("tpl", 2, "sha256:ab")
    assert encode_manifest(manifest) == data


def test_empty_skills_are_not_written_and_a_missing_agents_key_is_empty() -> None:
    agent = Agent("x", "X", "agents/x.md", "p", skills=())
    assert "skills" not in encode_manifest(AgentManifest((agent,)))["agents"][0]
    assert decode_manifest({"version": 1}) == AgentManifest()


def _entry(**changes: Any) -> dict[str, Any]:
    entry = {"agentId": "x", "name": "X", "mdPath": "agents/x.md", "profileId": "p"}
    entry.update(changes)
    return {key: value for key, value in entry.items() if value is not None}


@pytest.mark.parametrize(
    ("agents", "location"),
    [
        ([_entry(agentId=None)], "agents[0].agentId: missing"),
        ([_entry(mdPath=None)], "agents[0].mdPath: missing"),
        ([_entry(name=3)], "agents[0].name: expected a string, found a number"),
        ([_entry(mdPath="../../etc/x.md")], "agents[0].mdPath: The persona path"),
        ([_entry(mdPath=None, md="/abs.md")], "agents[0].md: The persona path"),
        ([_entry(id="other")], "agents[0].id: disagrees with agentId"),
        ([_entry(), _entry(agentId="y", name="Y")], "agents[1].mdPath: Another agent"),
        ([_entry(), _entry(mdPath="agents/y.md")], "agents[1].agentId: Another agent"),
        ([_entry(synchronized=True)], "agents[0].synchronized: Agent X cannot be kept in sync"),
        ([_entry(name=" ")], "agents[0].name: must not be blank"),
        ([_entry(agentId=None, id="")], "agents[0].id: must not be blank"),
        # Ids become `.ideai/run/<id>/` (issue 7): one rule, before any I/O.
        ([_entry(agentId="../../../x")], "agents[0].agentId: '../../../x' is not a safe id"),
        ([_entry(agentId=None, id="a/b")], "agents[0].id: 'a/b' is not a safe id"),
        ([_entry(agentId="-rf")], "agents[0].agentId: '-rf' is not a safe id"),
        ([_entry(skills=[{"skillId": "../s", "scope": "project"}])],
         "agents[0].skills[0].skillId: '../s' is not a safe id"),
        ([_entry(agentId="x\x1b]0;t\x07")], "agents[0].agentId: 'x\\x1b]0;t\\x07' is not"),
        ([_entry(skills="s1")], "agents[0].skills: expected an array"),
        ([_entry(origin={"type": "clone"})], "agents[0].origin.type: unknown origin type"),
        (
            [
                _entry(
                    origin={"type": "fromTemplate", "templateId": "t", "syncedTemplateVersion": "4"}
                )
            ],
            "agents[0].origin.syncedTemplateVersion: expected an integer",
        ),
        ([_entry(skills=[{"skillId": "s", "scope": "team"}])], "agents[0].skills[0].scope"),
        ({"not": "a list"}, "agents: expected an array"),
    ],
)
def test_malformed_manifests_name_the_location(agents: Any, location: str) -> None:
    with pytest.raises(CorruptFile) as caught:
        decode_manifest({"version": 1, "agents": agents}, "/p/.ideai/agents.json")
    assert f"/p/.ideai/agents.json cannot be read: {location}" in caught.value.message


# ─── The store ───────────────────────────────────────────────────────────────────────────


def test_a_project_without_agents_json_has_no_agents_and_save_creates_it(project: Path) -> None:
    store = AgentStore()
    assert store.load(project) == AgentManifest()
    manifest, _ = create_agent(AgentManifest(), "id-1", "Backend Dev", "claude-code")
    store.save(project, manifest)
    assert store.load(project) == manifest
    assert json.loads(manifest_file(project).read_text())["agents"][0]["mdPath"] == (
        "agents/backend-dev.md"
    )


def test_save_never_recreates_a_deleted_project(tmp_path: Path) -> None:
    with pytest.raises(FileAccessError):
        AgentStore().save(tmp_path / "gone", AgentManifest())
    assert not (tmp_path / "gone").exists()


@pytest.mark.parametrize(
    "content",
    [
        b"{",
        b'{"version": 2, "agents": []}',
        b'{"version": 1, "agents": [{"agentId": "x"}]}',
    ],
)
def test_corrupt_and_newer_files_are_left_untouched(project: Path, content: bytes) -> None:
    manifest_file(project).write_bytes(content)
    store = AgentStore()
    with pytest.raises((CorruptFile, NewerVersion)) as loaded:
        store.load(project)
    assert str(manifest_file(project)) in loaded.value.message
    with pytest.raises((CorruptFile, NewerVersion)):
        store.save(project, AgentManifest())
    assert manifest_file(project).read_bytes() == content


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest_file(project).write_bytes(PERSISTED.read_bytes())

    def refuse(src: Any, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(FileAccessError, match="No space left"):
        AgentStore().save(project, AgentManifest())
    assert manifest_file(project).read_bytes() == PERSISTED.read_bytes()
    assert [p.name for p in (project / ".ideai").iterdir()] == ["agents.json"]


_names = st.text(alphabet="abcXYZ é-", min_size=1, max_size=8).filter(lambda s: s.strip())


@st.composite
def manifests(draw: st.DrawFn) -> AgentManifest:
    manifest = AgentManifest()
    for i in range(draw(st.integers(0, 5))):
        origin = draw(
            st.one_of(
                st.just(Scratch()),
                st.builds(
                    FromTemplate,
                    st.sampled_from(["t1", "t2"]),
                    st.integers(0, 9),
                    st.one_of(st.none(), st.just("sha256:00")),
                ),
            )
        )
        synced = isinstance(origin, FromTemplate) and draw(st.booleans())
        name = f"{draw(_names)} {i}"
        manifest, _ = create_agent(
            manifest,
            f"id-{i}",
            name,
            draw(st.sampled_from(["claude-code", SEED_CLAUDE_ID])),
            origin=origin,
            synchronized=synced,
        )
    return manifest


@settings(deadline=None, max_examples=60)
@given(manifests())
def test_any_manifest_round_trips_through_json(manifest: AgentManifest) -> None:
    text = json.dumps(encode_manifest(manifest))
    assert decode_manifest(json.loads(text)) == manifest


# ─── Personas ────────────────────────────────────────────────────────────────────────────


def test_persona_write_and_read_are_exact(project: Path) -> None:
    personas = PersonaStore()
    text = "# Équipe\r\nline two\n\n"
    assert personas.write(project, "agents/team/lead.md", text)
    assert (project / ".ideai" / "agents" / "team" / "lead.md").read_bytes() == text.encode()
    assert personas.load(project, "agents/team/lead.md") == text
    agent = Agent("1", "Lead", "agents/team/lead.md", "p")
    assert personas.read(project, agent) == text


def test_a_missing_persona_is_a_clear_error(project: Path) -> None:
    personas = PersonaStore()
    assert personas.load(project, "agents/qa.md") is None
    with pytest.raises(MissingPersona) as caught:
        personas.read(project, Agent("1", "QA", "agents/qa.md", "p"))
    assert "agent QA" in caught.value.message
    assert str(project / ".ideai" / "agents" / "qa.md") in caught.value.message


def test_backups_never_overwrite(project: Path) -> None:
    personas = PersonaStore()
    assert personas.write(project, "agents/qa.md.bak-1-x", "first\n", overwrite=False)
    assert not personas.write(project, "agents/qa.md.bak-1-x", "second\n", overwrite=False)
    assert personas.load(project, "agents/qa.md.bak-1-x") == "first\n"


def test_delete_persona(project: Path) -> None:
    personas = PersonaStore()
    personas.write(project, "agents/qa.md", "x")
    assert personas.delete(project, "agents/qa.md")
    assert not personas.delete(project, "agents/qa.md")


@pytest.mark.parametrize("md_path", ["../outside.md", "/tmp/abs.md", "agents/../../x.md", ""])
def test_persona_paths_escaping_ideai_are_refused(project: Path, md_path: str) -> None:
    personas = PersonaStore()
    with pytest.raises(UnsafePath):
        personas.write(project, md_path, "x")
    with pytest.raises(UnsafePath):
        personas.load(project, md_path)
    assert sorted(p.name for p in project.iterdir()) == [".ideai"]


def test_a_symlink_out_of_ideai_is_refused(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (project / ".ideai" / "agents").symlink_to(outside, target_is_directory=True)
    with pytest.raises(UnsafePath, match=r"outside \.ideai"):
        PersonaStore().write(project, "agents/qa.md", "x")
    assert list(outside.iterdir()) == []


def test_a_persona_that_is_not_utf8_is_corrupt(project: Path) -> None:
    (project / ".ideai" / "agents").mkdir()
    (project / ".ideai" / "agents" / "qa.md").write_bytes(b"caf\xe9\n")
    with pytest.raises(CorruptFile, match="not UTF-8"):
        PersonaStore().load(project, "agents/qa.md")
