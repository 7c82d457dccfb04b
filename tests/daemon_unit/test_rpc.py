"""The typed RPC: each command's parameters are a msgspec Struct decoded at the boundary,
one table entry per command, and a bug is an "internal" error with a traceback in the log."""

from __future__ import annotations

import logging
import typing

import msgspec
import pytest

from adapters.ipc import answers_agents as ag
from adapters.ipc import answers_workspace as ws
from adapters.ipc import commands as rpc
from adapters.ipc.answers import ANSWERS, decode_answer, decode_answers
from idea_daemon.bootstrap import command_table
from idea_tui.control import CommandFailed, checked_answer, checked_params
from tests.helpers.unit_daemon import UnitDaemon


def test_a_value_out_of_range_is_refused_naming_the_field(unit: UnitDaemon) -> None:
    unit.project()
    refusal = unit.refused("split", count=33)
    assert refusal.code == "bad_request"
    assert str(refusal) == "count must be a whole number from 1 to 32"
    assert len(unit.spawner.spawned) == 1, "nothing was split"


def test_a_missing_field_is_refused_by_name(unit: UnitDaemon) -> None:
    unit.project()
    refusal = unit.refused("set_border", index=0)
    assert (refusal.code, str(refusal)) == ("bad_request", "container is required")


def test_a_value_of_the_wrong_type_is_refused_by_name(unit: UnitDaemon) -> None:
    unit.project()
    assert str(unit.refused("capture", target=42)) == "target must be a string"
    assert str(unit.refused("send_keys", keys="ls")) == "keys must be a list of strings"
    assert str(unit.refused("close", force="yes")) == "force must be true or false"


def test_a_bug_in_a_handler_is_internal_and_logged_with_its_traceback(
    unit: UnitDaemon, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    unit.project()

    def broken(*args: object, **kwargs: object) -> list[str]:
        raise KeyError("a daemon bug")

    monkeypatch.setattr(unit.service.cells, "split", broken)
    with caplog.at_level(logging.ERROR, logger="idea_daemon.server"):
        refusal = unit.refused("split")
    # Not "bad_request": the request was fine, the daemon was not.
    assert refusal.code == "internal"
    assert "see the daemon log" in str(refusal)
    [record] = [r for r in caplog.records if "command split failed" in r.getMessage()]
    assert record.exc_info is not None and record.exc_info[0] is KeyError


def test_every_command_has_one_typed_entry_with_the_shared_struct(unit: UnitDaemon) -> None:
    table = unit.server.handlers
    for name, params in rpc.PARAMS.items():
        assert name in table, f"{name} is described but not served"
        assert table[name].params is params, name
    typed = {name for name, entry in table.items() if entry.params is not None}
    assert typed == set(rpc.PARAMS), "every typed command is described for clients too"


def test_the_client_checks_parameters_with_the_same_struct_before_sending() -> None:
    with pytest.raises(CommandFailed) as caught:
        checked_params("split", {"count": "3"})
    assert caught.value.code == "bad_request"
    assert str(caught.value) == "count must be a whole number from 1 to 32"
    # None means "not given"; defaults are left for the daemon; unknown keys go through.
    assert checked_params("split", {"direction": "down", "target": None, "extra": 1}) == {
        "direction": "down", "extra": 1}


def test_answers_keep_their_wire_shape(unit: UnitDaemon) -> None:
    unit.project()
    [cell] = unit.cells()
    assert set(cell) == {"id", "target", "project", "root", "page", "index", "focused",
                         "running", "cols", "rows", "title", "attention", "exitCode", "pid",
                         "command", "foreground"}
    assert cell["exitCode"] is None and cell["foreground"] is None
    assert unit.call("version")["protocol"] >= 1
    assert unit.call("zoom") == {"zoomed": True}


@pytest.mark.parametrize(("method", "params", "message"), [
    ("git_log", {"limit": 0}, "limit must be a whole number from 1 to 1000"),
    ("git_log", {"lanes": [1]}, "lanes must be a list of strings"),
    ("git_diff", {"target": "yesterday"}, "target must be commit, staged or worktree"),
    ("git_stage", {"paths": []}, "paths must be a non-empty list"),
    ("git_merge", {"branch": ""}, "branch must be a non-empty string"),
    ("git_merge", {"branch": "main", "ffOnly": "yes"}, "ffOnly must be true or false"),
    ("git_hunk", {"file": "a", "hunk": 0}, "header is required"),
    ("git_worktree_add", {"dest": "/tmp/x"}, "branch is required"),
    ("agent_finish", {"agent": "dev", "how": "squash"}, "how must be discard, keep or merge"),
    ("agent_worktree", {"agent": 3}, "agent must be a non-empty string"),
    ("ask", {"agent": "  ", "task": "go"}, "agent must be a text that is not blank"),
    ("ask", {"agent": "dev", "task": "go", "timeout": 0}, "timeout must be a number above 0"),
    ("agent_send", {"agent": "dev"}, "text is required"),
    # Session limits (issue 10).
    ("set_resume_at", {"agent": "dev"}, "at is required"),
    ("set_resume_at", {"agent": "dev", "at": " "}, "at must be a text that is not blank"),
    ("set_resume_at", {"at": "10:30"}, "agent is required"),
    ("resume_now", {"agent": ""}, "agent must be a text that is not blank"),
    ("cancel_resume", {"agent": 7}, "agent must be a text that is not blank"),
    ("limit_swap", {"agent": "dev"}, "profile is required"),
    ("limit_swap", {"agent": "dev", "profile": "codex", "swap_back": "no"},
     "swap_back must be true or false"),
    ("limit_fallback", {"off": 1}, "off must be true or false"),
    ("limit_status", {"agent": ["dev"]}, "agent must be a text that is not blank"),
    ("test_clock", {}, "at is required"),
])
def test_git_worktree_and_delegation_commands_are_typed_too(
        unit: UnitDaemon, method: str, params: dict[str, object], message: str) -> None:
    unit.project()
    refusal = unit.refused(method, **params)
    assert (refusal.code, str(refusal)) == ("bad_request", message)
    # The client refuses the same parameters before sending them.
    with pytest.raises(CommandFailed) as caught:
        checked_params(method, dict(params))
    assert (caught.value.code, str(caught.value)) == ("bad_request", message)


def test_a_daemon_without_git_or_delegation_says_so_for_well_formed_requests(
        unit: UnitDaemon) -> None:
    unit.project()
    assert unit.refused("git_status").code == "git_unavailable"
    assert "delegation is not available" in str(unit.refused("tickets"))
    refused = unit.refused("set_resume_at", agent="dev", at="10:30")
    assert "session limits are not available" in str(refused)


# ─── typed answers (workspace, agents, personas, templates, profiles) ──────────────────


@pytest.mark.parametrize(("method", "params", "message"), [
    ("project_new", {"path": ["/tmp/x"]}, "path must be a string"),
    ("project_close", {"force": 1}, "force must be true or false"),
    ("window_rename", {"window": "main"}, "name is required"),
    ("layout_new", {"kind": 3}, "kind must be gitGraph or terminal"),
    ("layout_new", {"kind": "graph"}, "kind must be gitGraph or terminal"),
    ("window_new", {"name": "  "}, "name must be a text that is not blank"),
    ("project_move", {"project": "proj"}, "window is required"),
    ("agent_new", {"name": 3}, "name must be a text that is not blank"),
    ("agent_launch", {"agent": "dev", "background": "yes"}, "background must be true or false"),
    ("agent_stop", {}, "agent is required"),
    ("agent_rename", {"agent": "dev", "name": " "}, "name must be a text that is not blank"),
    ("agent_set_profile", {"agent": "dev"}, "profile is required"),
    ("agent_resume", {"agents": "dev"}, "agents must be a list of strings"),
    ("agent_persona_read", {"agent": ["dev"]}, "agent must be a text that is not blank"),
    ("agent_persona_read", {"agent": "\t"}, "agent must be a text that is not blank"),
    ("agent_persona_write", {"agent": "dev", "content": 5}, "content must be a string"),
    ("template_new", {"name": "T", "profile": 1}, "profile must be a string"),
    ("template_show", {}, "template is required"),
    ("profile_rm", {"profile": ""}, "profile must be a text that is not blank"),
])
def test_workspace_agent_and_persona_requests_are_typed(
        unit: UnitDaemon, method: str, params: dict[str, object], message: str) -> None:
    unit.project()
    refusal = unit.refused(method, **params)
    assert (refusal.code, str(refusal)) == ("bad_request", message)
    assert unit.call("agent_list") == [], "nothing was made by a refused request"
    # The client refuses the same parameters before sending them.
    with pytest.raises(CommandFailed) as caught:
        checked_params(method, dict(params))
    assert (caught.value.code, str(caught.value)) == ("bad_request", message)


def test_each_typed_answer_is_what_its_handler_returns() -> None:
    """The table clients decode with and the handlers' return types agree (mypy checks
    the handlers against those types, so a handler returning a map does not type-check)."""
    handlers = command_table()
    for method, kind in ANSWERS.items():
        assert method in handlers, f"{method} has an answer but is not served"
        hints = typing.get_type_hints(handlers[method].run)
        assert hints["return"] == kind, method


def test_every_command_has_an_answer_type_bound_to_its_handler() -> None:
    """No command answers a free-form value: each table entry names its answer type (what
    mypy checks its handler's return against), and clients check results against the same
    type."""
    handlers = command_table()
    untyped = sorted(set(handlers) - set(ANSWERS))
    assert not untyped, f"commands without an answer type for clients: {untyped}"
    for method, entry in handlers.items():
        assert entry.answer == ANSWERS[method], method
        hints = typing.get_type_hints(entry.run)
        assert hints["return"] == entry.answer, f"{method} is bound to another answer type"
        assert hints["return"] is not typing.Any, method


def test_answers_decode_into_their_structs_on_the_client(unit: UnitDaemon) -> None:
    root = unit.project()
    overview = decode_answer(ws.Overview, "ls", unit.call("ls"))
    [window] = overview.windows
    [project] = window.projects
    assert project.root == str(root) and project.pages[0].cells[0].focused
    [listed] = decode_answers(ws.ProjectDescription, "project_list", unit.call("project_list"))
    assert (listed.root, listed.open, listed.active_page) == (str(root), True, "Default")
    probe = decode_answer(ws.ProjectProbe, "project_probe", unit.call("project_probe",
                                                                        path=str(root)))
    assert probe.registered and probe.command() == "project_open"
    page = decode_answer(ws.PageNamed, "layout_new", unit.call("layout_new", name="Two"))
    assert (page.name, page.kind) == ("Two", "terminal")
    pages = decode_answers(ws.PageDescription, "layout_list", unit.call("layout_list"))
    assert [(p.name, p.active, p.cells) for p in pages] == [("Default", False, 1),
                                                            ("Two", True, 1)]

    created = decode_answer(ag.AgentCreated, "agent_new", unit.call("agent_new", name="Coder"))
    assert created.profile_id == "claude-code" and created.md_path.endswith(".md")
    launched = decode_answer(ag.AgentDescription, "agent_launch",
                             unit.call("agent_launch", agent="Coder", background=True))
    assert (launched.state, launched.background) == ("running", True)
    assert launched.cell is msgspec.UNSET, "a background agent has no cell"
    [agent] = decode_answers(ag.AgentDescription, "agent_list", unit.call("agent_list"))
    assert agent.id == created.id and agent.skills == []
    shown = decode_answer(ag.PersonaText, "agent_persona_read",
                          unit.call("agent_persona_read", agent="Coder"))
    assert shown.exists and shown.path == created.path
    written = decode_answer(ag.PersonaWritten, "agent_persona_write",
                            unit.call("agent_persona_write", agent="Coder",
                                      content="# Coder\n", revision=shown.revision))
    assert written.changed and written.revision != shown.revision
    profiles = decode_answer(ag.ProfileList, "profile_list", unit.call("profile_list"))
    assert not profiles.configured and any(p["id"] == "claude-code" for p in profiles.profiles)


@pytest.mark.parametrize(("method", "result", "detail"), [
    ("agent_list", [{"id": "a", "state": "running"}], "missing required field `name`"),
    ("agent_list", {"agents": []}, "Expected `array`, got `object`"),
    ("ls", {"windows": [], "problems": [], "sessions": "2"}, "at `$.sessions`"),
    ("agent_persona_read", {"path": "/p", "exists": True, "content": 3, "revision": ""},
     "at `$.content`"),
    ("project_probe", None, "Expected `object`, got `null`"),
    ("send_keys", {"anything": 1}, "missing required field `bytes`"),
    ("git_status", {"root": "/r"}, "missing required field `adapter`"),
    ("git_diff", {"files": [{"path": "a", "change": "M", "binary": False, "truncated": False,
                             "added": 1, "removed": 0,
                             "hunks": [{"header": "@@", "lines": [["+", "x"]]}]}]},
     "at `$.files[0].hunks[0].lines[0]`"),
    ("git_hunk", {"staged": 1}, "Expected `null`, got `object`"),
    ("memory_list", {"folder": "/m", "problem": None, "notes": [{"slug": "a"}]},
     "at `$.notes[0]`"),
    ("work_state", {"rows": [], "refresh": "Coder", "project": "p"}, "at `$.refresh`"),
    ("limit_status", [{"agent": "dev"}], "at `$[0]`"),
    ("team_monitor", {"project": "p", "agents": [], "tickets": [{"ticket": 3}]},
     "at `$.tickets[0]"),
    ("loop_stats", {"turns": "many"}, "at `$.turns`"),
])
def test_a_malformed_answer_is_a_clear_error_not_a_key_error(
        method: str, result: object, detail: str) -> None:
    with pytest.raises(CommandFailed) as caught:
        checked_answer(method, result)
    assert caught.value.code == "bad_answer"
    assert str(caught.value).startswith(f"the idea daemon's answer to {method} does not fit")
    assert detail in str(caught.value)
    # A well-formed answer passes as it came.
    assert checked_answer("send_keys", {"bytes": 2}) == {"bytes": 2}


def test_a_client_asking_for_another_answer_type_is_a_bug_it_is_told_about() -> None:
    with pytest.raises(AssertionError, match="agent_list answers"):
        decode_answer(ag.AgentDescription, "agent_list", [])
