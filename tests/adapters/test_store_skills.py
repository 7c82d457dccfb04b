"""The skill stores on real files: both scopes, the seed's own skill, bad files (SKL-2, §3.8)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from adapters.store.skills_store import SkillStore
from core.agents.agent import SkillScope
from core.agents.errors import DuplicateSkill, InvalidSkill, SkillNotFound, UnsafePath
from core.agents.skills import MAX_CONTENT, skill_hash
from core.errors import CorruptFile, FileAccessError, NewerVersion

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "seed_skills"
SEED_ID = "a72dac60-641c-4417-b0d7-94b8539f817a"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".ideai").mkdir(parents=True)
    return root


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data" / "idea"


def index_of(store: SkillStore) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(store.index_path.read_text(encoding="utf-8"))
    return loaded


def test_the_seeds_own_project_skill_loads_as_is(project: Path) -> None:
    shutil.copytree(SEED, project / ".ideai" / "skills")
    store = SkillStore.project_skills(project)
    [skill] = store.load().skills
    assert (skill.id, skill.name, skill.scope) == (SEED_ID, "build-appimage", SkillScope.PROJECT)
    assert skill.content_hash == "77cb33b978b242f6"
    assert skill.content_md.startswith("# Build de l'AppImage IdeA (Linux)\n")
    assert skill.description == "Build de l'AppImage IdeA (Linux)"
    before = (project / ".ideai" / "skills" / "index.json").read_bytes()
    store.load()
    assert (project / ".ideai" / "skills" / "index.json").read_bytes() == before


def test_adding_to_the_seed_keeps_its_entry_byte_for_byte_in_meaning(project: Path) -> None:
    shutil.copytree(SEED, project / ".ideai" / "skills")
    store = SkillStore.project_skills(project)
    store.create("release-checklist", "# Release\n\n1. tag\n")
    entries = index_of(store)["skills"]
    assert entries[0] == {"id": SEED_ID, "name": "build-appimage",
                          "contentHash": "77cb33b978b242f6"}
    assert entries[1] == {"id": "release-checklist", "name": "release-checklist",
                          "contentHash": skill_hash("# Release\n\n1. tag\n")}


def test_create_edit_delete_round_trip_in_both_scopes(project: Path, data: Path) -> None:
    local, shared = SkillStore.project_skills(project), SkillStore.global_skills(data)
    made = local.create("Release checklist", "# Release\n\nsteps\n")
    assert made.id == "release-checklist"
    assert (project / ".ideai" / "skills" / "md" / "release-checklist.md").read_text() == \
        "# Release\n\nsteps\n"
    shared.create("Release checklist", "the global one")
    assert [s.scope for s in local.load().skills] == [SkillScope.PROJECT]
    assert [s.content_md for s in shared.load().skills] == ["the global one"]
    edited = local.update(made.id, name="Release steps", content="# Release\n\nnew steps\n")
    assert local.get(made.id) == edited
    assert index_of(local)["skills"] == [{"id": "release-checklist", "name": "Release steps",
                                          "contentHash": skill_hash(edited.content_md)}]
    local.delete(made.id)
    assert local.load().skills == ()
    assert shared.get("release-checklist").content_md == "the global one"


def test_delete_keeps_the_markdown_and_a_new_skill_never_takes_its_file(project: Path) -> None:
    store = SkillStore.project_skills(project)
    store.create("Deploy", "old text")
    store.delete("deploy")
    md = project / ".ideai" / "skills" / "md"
    assert (md / "deploy.md").read_text() == "old text"
    again = store.create("Deploy", "new text")
    assert again.id == "deploy-2"
    assert (md / "deploy.md").read_text() == "old text"
    with pytest.raises(SkillNotFound):
        store.delete("deploy")


def test_names_are_unique_per_scope_without_regard_to_case(project: Path) -> None:
    store = SkillStore.project_skills(project)
    store.create("Deploy", "x")
    store.create("Other", "y")
    with pytest.raises(DuplicateSkill):
        store.create("  deploy ", "z")
    with pytest.raises(DuplicateSkill):
        store.update("other", name="DEPLOY")
    assert [s.name for s in store.load().skills] == ["Deploy", "Other"]


def test_bad_input_writes_nothing(project: Path) -> None:
    store = SkillStore.project_skills(project)
    for name, content in (("", "x"), ("ok", ""), ("ok", "x" * (MAX_CONTENT + 1))):
        with pytest.raises(InvalidSkill):
            store.create(name, content)
    assert not (project / ".ideai" / "skills").exists()


@pytest.mark.parametrize(("text", "words"), [
    ("{not json", "invalid JSON"),
    ('{"version": 1, "skills": [{"id": "../x", "name": "n"}]}', "skills[0].id"),
    ('{"version": 1, "skills": [{"id": "a", "name": ""}]}', "skills[0].name: must not be empty"),
    ('{"version": 1, "skills": [{"id": "a", "name": "n"}, {"id": "a", "name": "m"}]}',
     "used twice"),
    ('{"version": 1, "skills": {"id": "a"}}', "skills: expected an array"),
])
def test_a_corrupt_index_is_reported_with_its_place_and_never_overwritten(
    project: Path, text: str, words: str
) -> None:
    folder = project / ".ideai" / "skills"
    folder.mkdir()
    (folder / "index.json").write_text(text)
    store = SkillStore.project_skills(project)
    with pytest.raises(CorruptFile) as caught:
        store.load()
    assert words in caught.value.message and "index.json" in caught.value.message
    with pytest.raises(CorruptFile):
        store.create("New", "body")
    assert (folder / "index.json").read_text() == text
    assert not (folder / "md").exists()


def test_an_index_from_a_newer_idea_is_left_alone(data: Path) -> None:
    store = SkillStore.global_skills(data)
    store.index_path.parent.mkdir(parents=True)
    store.index_path.write_text('{"version": 9, "skills": []}')
    with pytest.raises(NewerVersion):
        store.create("x", "y")
    assert store.index_path.read_text() == '{"version": 9, "skills": []}'


def test_a_missing_or_non_utf8_body_is_a_problem_and_the_rest_loads(project: Path) -> None:
    store = SkillStore.project_skills(project)
    store.create("Good", "fine")
    store.create("Gone", "soon gone")
    store.create("Binary", "soon bad")
    md = project / ".ideai" / "skills" / "md"
    (md / "gone.md").unlink()
    (md / "binary.md").write_bytes(b"\xff\xfe bad")
    snapshot = store.load()
    assert [s.id for s in snapshot.skills] == ["good"]
    messages = sorted(problem.message for problem in snapshot.problems)
    assert any("missing" in m and "gone.md" in m for m in messages)
    assert any("not UTF-8" in m and "binary.md" in m for m in messages)
    with pytest.raises(FileAccessError):
        store.get("gone")
    assert [e["id"] for e in index_of(store)["skills"]] == ["good", "gone", "binary"]


def test_unknown_keys_are_written_back(project: Path) -> None:
    folder = project / ".ideai" / "skills"
    (folder / "md").mkdir(parents=True)
    (folder / "md" / "a.md").write_text("body")
    (folder / "index.json").write_text(json.dumps(
        {"version": 1, "owner": "me", "skills": [{"id": "a", "name": "A", "pinned": True}]}))
    store = SkillStore.project_skills(project)
    store.create("B", "other")
    written = index_of(store)
    assert written["owner"] == "me"
    assert written["skills"][0] == {"id": "a", "name": "A", "pinned": True}


def test_a_link_out_of_ideai_is_refused(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, project / ".ideai" / "skills")
    store = SkillStore.project_skills(project)
    with pytest.raises(UnsafePath):
        store.create("x", "y")
    with pytest.raises(UnsafePath):
        store.load()
    assert list(outside.iterdir()) == []


def test_a_project_folder_deleted_meanwhile_is_not_recreated(tmp_path: Path) -> None:
    store = SkillStore.project_skills(tmp_path / "gone")
    with pytest.raises(FileAccessError):
        store.create("x", "y")
    assert not (tmp_path / "gone").exists()
