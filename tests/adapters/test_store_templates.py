"""The global template store, outside edits, and the software-team pack, on real files (TPL)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from adapters.agents.team_pack import MEMBERS, load_team_pack
from adapters.store.templates_store import OutsideEdit, TemplateStore, decode_index
from core.agents.agent import Agent, AgentManifest
from core.agents.errors import DuplicateTemplate, TemplateNotFound, UnsafePath
from core.agents.naming import slugify
from core.agents.profile import CLAUDE_CODE_ID
from core.agents.templates import (
    AgentTemplate,
    Drift,
    TemplateDraft,
    content_hash,
    detect_drift,
    template_origin,
)
from core.errors import CorruptFile, FileAccessError, NewerVersion


@pytest.fixture
def store(tmp_path: Path) -> TemplateStore:
    return TemplateStore(tmp_path / "data" / "idea")


def index_of(store: TemplateStore) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(store.index_path.read_text())
    return data


def test_an_empty_store_lists_nothing_and_writes_nothing(store: TemplateStore) -> None:
    assert store.list_templates() == []
    assert not store.root.exists()


def test_create_writes_the_markdown_and_the_index(store: TemplateStore) -> None:
    made = store.create("tpl-backend", TemplateDraft("Backend", "# Backend\n", "claude-code"))
    assert store.md_path("tpl-backend").read_text() == "# Backend\n"
    assert index_of(store) == {
        "version": 1,
        "templates": [
            {
                "id": "tpl-backend",
                "name": "Backend",
                "version": 1,
                "contentHash": content_hash("# Backend\n"),
                "defaultProfileId": "claude-code",
            }
        ],
    }
    assert store.get("tpl-backend") == made
    with pytest.raises(DuplicateTemplate):
        store.create("tpl-backend", TemplateDraft("Again", ""))
    with pytest.raises(UnsafePath):
        store.create("../escape", TemplateDraft("X", ""))


def test_update_bumps_only_on_content_and_keeps_order(store: TemplateStore) -> None:
    store.create("a", TemplateDraft("A", "a\n"))
    store.create("b", TemplateDraft("B", "b\n"))
    assert store.update("a", name="Alpha").version == 1
    updated = store.update("a", content_md="a2\n", default_profile_id="codex-cli")
    assert (updated.version, updated.default_profile_id) == (2, "codex-cli")
    assert store.md_path("a").read_text() == "a2\n"
    assert [t.id for t in store.list_templates()] == ["a", "b"]
    assert store.get("a") == updated
    with pytest.raises(TemplateNotFound):
        store.update("zzz", name="x")


def test_delete_removes_entry_and_file(store: TemplateStore) -> None:
    store.create("a", TemplateDraft("A", "a\n"))
    store.delete("a")
    assert store.list_templates() == [] and not store.md_path("a").exists()
    with pytest.raises(TemplateNotFound):
        store.delete("a")
    with pytest.raises(TemplateNotFound):
        store.get("a")


# ─── Edits made outside idea ─────────────────────────────────────────────────────────────


def test_an_outside_edit_is_a_new_version_stored_at_the_next_write(store: TemplateStore) -> None:
    store.create("a", TemplateDraft("A", "v1\n"))
    store.create("b", TemplateDraft("B", "b\n"))
    store.md_path("a").write_text("edited in vim\n")

    snapshot = store.load()
    assert snapshot.edited_outside == (OutsideEdit("a", 1, 2),)
    edited = snapshot.by_id()["a"]
    assert (edited.version, edited.content_hash) == (2, content_hash("edited in vim\n"))
    # A load never writes, and repeated loads agree.
    assert index_of(store)["templates"][0]["version"] == 1
    store.md_path("a").write_text("edited again\n")
    assert store.load().by_id()["a"].version == 2

    # The next write (here an unrelated update) stores the bump and the hash.
    store.update("b", name="Bee")
    entry = index_of(store)["templates"][0]
    assert (entry["version"], entry["contentHash"]) == (2, content_hash("edited again\n"))
    assert store.load().edited_outside == ()
    # Further updates continue from the bumped version.
    assert store.update("a", content_md="v3\n").version == 3


def test_reconcile_stores_outside_edits_now(store: TemplateStore) -> None:
    store.create("a", TemplateDraft("A", "v1\n"))
    before = store.index_path.read_bytes()
    assert store.reconcile().edited_outside == ()
    assert store.index_path.read_bytes() == before  # nothing to store: nothing written
    store.md_path("a").write_text("v1 edited\n")
    assert store.reconcile().edited_outside == (OutsideEdit("a", 1, 2),)
    assert index_of(store)["templates"][0]["version"] == 2


def test_an_outside_edit_makes_synced_agents_drift(store: TemplateStore) -> None:
    made = store.create("a", TemplateDraft("A", "v1\n"))
    agent = Agent("1", "Dev", "agents/dev.md", "p", template_origin(made), synchronized=True)
    manifest = AgentManifest((agent,))
    assert detect_drift(manifest, store.load().by_id()) == []
    store.md_path("a").write_text("v1 edited\n")
    assert detect_drift(manifest, store.load().by_id()) == [Drift("1", "a", 1, 2)]


def test_a_foreign_hash_is_adopted_without_a_bump(store: TemplateStore) -> None:
    store.root.mkdir(parents=True)
    (store.root / "md").mkdir()
    store.md_path("seed").write_text("from the seed\n")
    store.index_path.write_text(
        json.dumps([{"id": "seed", "name": "Seed", "version": 4, "contentHash": "fnv1a:12ab"}])
    )
    snapshot = store.load()
    assert snapshot.edited_outside == ()
    assert snapshot.by_id()["seed"].version == 4
    store.reconcile()
    assert index_of(store)["templates"][0]["contentHash"] == content_hash("from the seed\n")


def test_a_crash_between_markdown_and_index_reads_as_the_intended_version(
    store: TemplateStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.create("a", TemplateDraft("A", "v1\n"))
    real_replace = os.replace

    def crash_on_index(src: Any, dst: Any) -> None:
        if str(dst).endswith("index.json"):
            raise OSError(5, "Input/output error")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash_on_index)
    with pytest.raises(FileAccessError):
        store.update("a", content_md="v2\n")
    monkeypatch.undo()
    recovered = store.get("a")
    assert (recovered.version, recovered.content_md) == (2, "v2\n")


def test_unreadable_markdown_is_reported_and_its_entry_kept(store: TemplateStore) -> None:
    store.create("a", TemplateDraft("A", "a\n"))
    store.create("b", TemplateDraft("B", "b\n"))
    store.md_path("a").unlink()
    store.md_path("b").write_bytes(b"\xff\xfe")
    snapshot = store.load()
    assert snapshot.templates == ()
    assert [type(p) for p in snapshot.problems] == [FileAccessError, CorruptFile]
    assert "missing" in snapshot.problems[0].message
    with pytest.raises(FileAccessError, match="missing"):
        store.update("a", name="x")
    store.create("c", TemplateDraft("C", "c\n"))
    assert [t["id"] for t in index_of(store)["templates"]] == ["a", "b", "c"]
    store.delete("a")  # an entry whose file is gone can still be deleted
    assert [t["id"] for t in index_of(store)["templates"]] == ["b", "c"]


@pytest.mark.parametrize(
    ("content", "location"),
    [
        (b"{", "invalid JSON"),
        (
            b'{"version": 1, "templates": [{"id": "../x", "name": "X", "version": 1}]}',
            "templates[0].id: '../x' cannot be a file name",
        ),
        (b'{"templates": [{"id": "a", "name": "A", "version": 0}]}', "templates[0].version"),
        (b'{"templates": [{"id": "a", "name": " ", "version": 1}]}', "templates[0].name"),
        (
            b'[{"id": "a", "name": "A", "version": 1}, {"id": "a", "name": "B", "version": 1}]',
            "[1].id: the id 'a' is used twice",
        ),
    ],
)
def test_a_corrupt_index_is_reported_and_never_overwritten(
    store: TemplateStore, content: bytes, location: str
) -> None:
    store.root.mkdir(parents=True)
    store.index_path.write_bytes(content)
    with pytest.raises(CorruptFile) as caught:
        store.load()
    assert str(store.index_path) in caught.value.message and location in caught.value.message
    with pytest.raises(CorruptFile):
        store.create("new", TemplateDraft("New", "x"))
    assert store.index_path.read_bytes() == content
    assert not store.md_path("new").exists()


def test_a_newer_index_is_never_overwritten(store: TemplateStore) -> None:
    store.root.mkdir(parents=True)
    store.index_path.write_bytes(b'{"version": 2, "templates": []}')
    with pytest.raises(NewerVersion):
        store.reconcile()
    assert store.index_path.read_bytes() == b'{"version": 2, "templates": []}'


def test_unknown_index_keys_are_kept(store: TemplateStore) -> None:
    store.root.mkdir(parents=True)
    (store.root / "md").mkdir()
    store.md_path("a").write_text("a\n")
    store.index_path.write_text(
        json.dumps(
            {
                "version": 1,
                "order": "manual",
                "templates": [
                    {
                        "id": "a",
                        "name": "A",
                        "version": 3,
                        "contentHash": content_hash("a\n"),
                        "tags": ["team"],
                    }
                ],
            }
        )
    )
    assert store.get("a").extra == {"tags": ["team"]}
    store.update("a", content_md="a2\n")
    data = index_of(store)
    assert data["order"] == "manual" and data["templates"][0]["tags"] == ["team"]
    assert data["templates"][0]["version"] == 4
    assert decode_index(data).entries[0].version == 4


# ─── The software-team pack ──────────────────────────────────────────────────────────────


def test_the_team_pack_has_five_roles_written_for_idea() -> None:
    drafts = load_team_pack()
    assert [d.name for d in drafts] == ["Conductor", "Architect", "Developer", "QA", "Git Keeper"]
    for draft, (_, file) in zip(drafts, MEMBERS, strict=True):
        text = draft.content_md
        assert 30 <= len(text.splitlines()) <= 80, file
        assert text.startswith(f"# {draft.name}\n"), file
        assert slugify(draft.name) + ".md" == file
        assert draft.default_profile_id == CLAUDE_CODE_ID
        # The delegation protocol (PRF-7 B-5, D8): reply with the tool, echo the ticket.
        assert "idea_reply(result=…, ticket=…)" in text, file
        prose = " ".join(text.split()).lower()  # the sentence may wrap
        assert "never answer only in plain text" in prose, file
        assert "idea_ask_agent" in text and "sub-agents" in text, file
        assert ".ideai/memory/" in text, file
        assert re.search(r"^## Done, for you$", text, re.M), file


def test_installing_the_pack_gives_a_working_set_of_templates(store: TemplateStore) -> None:
    for draft in load_team_pack():
        store.create(f"team-{slugify(draft.name)}", draft)
    templates = store.list_templates()
    assert [t.id for t in templates] == [
        "team-conductor",
        "team-architect",
        "team-developer",
        "team-qa",
        "team-git-keeper",
    ]
    assert all(isinstance(t, AgentTemplate) and t.version == 1 for t in templates)
    assert store.load().edited_outside == ()
