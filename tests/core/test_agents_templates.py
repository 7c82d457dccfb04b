"""Templates: content hash, versions (TPL-1, TPL-2), drift (TPL-4) and sync plans (TPL-5, D24)."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.agents.agent import SCRATCH, Agent, AgentManifest, FromTemplate, create_agent
from core.agents.errors import EmptyName, NotFromTemplate, NotSynchronized, UnsafePath
from core.agents.templates import (
    AgentTemplate,
    Drift,
    SyncStatus,
    TemplateDraft,
    apply_sync,
    backup_path,
    content_hash,
    create_template,
    detect_drift,
    drift,
    plan_sync,
    template_origin,
    update_template,
)

NOW_MS = 1_780_702_317_785  # 2026-06-05T23:31:57Z


def template(version: int = 1, content: str = "# Backend\n") -> AgentTemplate:
    made = create_template("tpl-backend", TemplateDraft("Backend", content, "claude-code"))
    for _ in range(version - 1):
        made = update_template(made, content_md=made.content_md + "more\n")
    return made


def synced_agent(
    version: int, synced_hash: str | None = None, *, synchronized: bool = True
) -> Agent:
    origin = FromTemplate("tpl-backend", version, synced_hash)
    return Agent("a1", "Backend Dev", "agents/backend-dev.md", "claude-code", origin, synchronized)


# ─── Hash and versions ───────────────────────────────────────────────────────────────────


def test_content_hash_is_sha256_of_utf8_with_normalised_newlines() -> None:
    expected = "sha256:" + hashlib.sha256("é\nb\n".encode()).hexdigest()
    assert content_hash("é\nb\n") == expected
    assert content_hash("é\r\nb\r") == expected
    assert content_hash("é\nb") != expected  # a missing final newline is an edit


def test_create_starts_at_version_one() -> None:
    made = template()
    assert (made.version, made.content_hash) == (1, content_hash("# Backend\n"))
    assert made.default_profile_id == "claude-code"


def test_only_a_content_change_bumps_the_version() -> None:
    made = template()
    renamed = update_template(made, name="Backend API", default_profile_id=None)
    assert (renamed.name, renamed.default_profile_id, renamed.version) == ("Backend API", None, 1)
    same = update_template(made, content_md="# Backend\r\n")  # line endings only
    assert same == made
    changed = update_template(made, content_md="# Backend v2\n")
    assert (changed.version, changed.content_hash) == (2, content_hash("# Backend v2\n"))
    assert update_template(changed, name="X").default_profile_id == "claude-code"  # KEEP


def test_emptying_the_content_is_a_change() -> None:
    emptied = update_template(template(), content_md="")
    assert (emptied.content_md, emptied.version) == ("", 2)
    assert emptied.content_hash == content_hash("")


@settings(deadline=None)
@given(st.lists(st.text(max_size=20), max_size=15))
def test_versions_are_monotonic_and_count_content_changes(contents: list[str]) -> None:
    made = template()
    changes = 0
    for text in contents:
        updated = update_template(made, content_md=text)
        assert updated.version >= made.version
        if content_hash(text) != made.content_hash:
            changes += 1
        made = updated
    assert made.version == 1 + changes
    assert made.content_hash == content_hash(made.content_md)


@pytest.mark.parametrize("bad_id", ["", "../x", "a/b", ".hidden", "x" * 129])
def test_template_ids_must_be_file_names(bad_id: str) -> None:
    with pytest.raises(UnsafePath):
        create_template(bad_id, TemplateDraft("T", ""))


def test_template_names_must_not_be_blank() -> None:
    with pytest.raises(EmptyName):
        create_template("t", TemplateDraft("  ", ""))


# ─── Drift ───────────────────────────────────────────────────────────────────────────────


def test_drift_when_the_template_moved_on() -> None:
    templates = {"tpl-backend": template(3)}
    assert drift(synced_agent(1), templates) == Drift("a1", "tpl-backend", 1, 3)
    assert drift(synced_agent(3), templates) is None


def test_no_drift_for_scratch_unsynced_or_deleted_templates() -> None:
    templates = {"tpl-backend": template(3)}
    scratch = Agent("s", "S", "agents/s.md", "p", SCRATCH)
    assert drift(scratch, templates) is None
    assert drift(synced_agent(1, synchronized=False), templates) is None
    assert drift(synced_agent(1), {}) is None  # template deleted
    info = drift(synced_agent(1, synchronized=False), templates, include_unsynced=True)
    assert info == Drift("a1", "tpl-backend", 1, 3, synchronized=False)


def test_a_second_outside_edit_at_the_same_version_is_drift_by_hash() -> None:
    # The store reports an edited file as index version + 1 until it writes the index:
    # an agent synced to that content must still see a further edit.
    current = template(2)
    assert drift(synced_agent(2, current.content_hash), {"tpl-backend": current}) is None
    edited = AgentTemplate(
        current.id, current.name, "edited twice\n", 2, None, content_hash("edited twice\n")
    )
    found = drift(synced_agent(2, current.content_hash), {"tpl-backend": edited})
    assert found == Drift("a1", "tpl-backend", 2, 2)


def test_detect_drift_lists_drifting_agents_in_manifest_order() -> None:
    manifest = AgentManifest(
        (
            Agent("1", "One", "agents/one.md", "p", FromTemplate("tpl-backend", 1), True),
            Agent("2", "Two", "agents/two.md", "p", FromTemplate("tpl-backend", 3), True),
            Agent("3", "Three", "agents/three.md", "p", FromTemplate("gone", 1), True),
            Agent("4", "Four", "agents/four.md", "p", FromTemplate("tpl-backend", 2), False),
            Agent("5", "Five", "agents/five.md", "p"),
        )
    )
    assert detect_drift(manifest, {"tpl-backend": template(3)}) == [Drift("1", "tpl-backend", 1, 3)]
    with_info = detect_drift(manifest, {"tpl-backend": template(3)}, include_unsynced=True)
    assert [d.agent_id for d in with_info] == ["1", "4"]


# ─── Sync ────────────────────────────────────────────────────────────────────────────────


def test_a_clean_file_is_replaced_without_backup() -> None:
    v1, v3 = template(1), template(3)
    plan = plan_sync(synced_agent(1, v1.content_hash), v3, v1.content_md, now_ms=NOW_MS)
    assert plan.status is SyncStatus.CLEAN
    assert (plan.write, plan.conflict, plan.backup_path) == (True, False, None)
    assert (plan.content, plan.to_version, plan.to_hash) == (v3.content_md, 3, v3.content_hash)


def test_a_locally_edited_file_is_a_conflict_backed_up_first() -> None:
    v1, v3 = template(1), template(3)
    plan = plan_sync(synced_agent(1, v1.content_hash), v3, "my own notes\n", now_ms=NOW_MS)
    assert plan.status is SyncStatus.CONFLICT and plan.conflict and plan.write
    assert plan.backup_path == "agents/backend-dev.md.bak-1-20260605T233157Z"


def test_unknown_history_is_backed_up_but_not_called_a_conflict() -> None:
    plan = plan_sync(synced_agent(1, None), template(3), "whatever\n", now_ms=NOW_MS)
    assert plan.status is SyncStatus.UNKNOWN_HISTORY
    assert not plan.conflict and plan.backup_path is not None


def test_missing_and_up_to_date_files() -> None:
    v3 = template(3)
    missing = plan_sync(synced_agent(1, "sha256:x"), v3, None, now_ms=NOW_MS)
    assert (missing.status, missing.write, missing.backup_path) == (SyncStatus.MISSING, True, None)
    # Local edits that happen to equal the new content: nothing to write or back up.
    same = plan_sync(synced_agent(1, "sha256:old"), v3, v3.content_md, now_ms=NOW_MS)
    assert (same.status, same.write, same.backup_path) == (SyncStatus.UP_TO_DATE, False, None)


def test_unsynced_agents_sync_only_on_explicit_one_shot() -> None:
    agent = synced_agent(1, synchronized=False)
    with pytest.raises(NotSynchronized):
        plan_sync(agent, template(3), "x", now_ms=NOW_MS)
    assert plan_sync(agent, template(3), "x", now_ms=NOW_MS, one_shot=True).to_version == 3


def test_scratch_agents_and_other_templates_are_refused() -> None:
    scratch = Agent("s", "S", "agents/s.md", "p")
    with pytest.raises(NotFromTemplate, match="Agent S was not created from template"):
        plan_sync(scratch, template(), "x", now_ms=NOW_MS, one_shot=True)
    other = create_template("tpl-other", TemplateDraft("Other", "o\n"))
    with pytest.raises(NotFromTemplate):
        plan_sync(synced_agent(1), other, "x", now_ms=NOW_MS)
    # The agent was changed (here: made scratch) between planning and applying.
    plan = plan_sync(synced_agent(1), template(3), "x", now_ms=NOW_MS)
    with pytest.raises(NotFromTemplate):
        apply_sync(AgentManifest((Agent("a1", "Backend Dev", "agents/b.md", "p"),)), plan)


def test_apply_sync_records_version_and_hash() -> None:
    v1, v3 = template(1), template(3)
    manifest, agent = create_agent(
        AgentManifest(),
        "a1",
        "Backend Dev",
        "claude-code",
        origin=template_origin(v1),
        synchronized=True,
    )
    assert agent.origin == FromTemplate("tpl-backend", 1, v1.content_hash)
    plan = plan_sync(agent, v3, v1.content_md, now_ms=NOW_MS)
    synced = apply_sync(manifest, plan).get("a1")
    assert synced.origin == FromTemplate("tpl-backend", 3, v3.content_hash)
    assert synced.synchronized and synced.md_path == agent.md_path
    assert drift(synced, {"tpl-backend": v3}) is None


def test_backup_path_format() -> None:
    assert backup_path("agents/qa.md", 7, 0) == "agents/qa.md.bak-7-19700101T000000Z"
