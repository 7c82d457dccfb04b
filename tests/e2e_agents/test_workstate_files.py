"""The live state through the file protocol (LIV-6, MCP-6): an agent without MCP sets its
own work-state row with `workstate.set` and reads the rows with `workstate.read`, checked
exactly as `idea_workstate_set` checks its arguments, on the real daemon."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.live_state.model import ROW_MAX_BYTES
from tests.e2e_agents.helpers import Agents, fake_profile
from tests.e2e_agents.test_file_protocol import request, response
from tests.helpers.idea import IdeaEnv

pytestmark = pytest.mark.e2e


def test_an_agent_sets_its_own_row_and_reads_the_rows_through_request_files(
        idea: IdeaEnv) -> None:
    agents = Agents(idea, idea.new_project("files"))
    agents.add_profile(fake_profile("fake-files", "flag", session=False))
    dev = agents.new("Dev", "fake-files")
    agents.new("QA", "fake-files")

    done = response(request(agents, dev["id"], "w1", {
        "type": "workstate.set", "status": "blocked", "task": "migrate the schema",
        "note": "waiting for the DBA"}))
    assert done["ok"] is True, done
    row = json.loads(done["detail"])
    assert (row["agent"], row["status"], row["task"], row["note"]) == (
        "Dev", "blocked", "migrate the schema", "waiting for the DBA")
    [listed] = [r for r in idea.json("work")["rows"] if r["agent"] == "Dev"]
    assert (listed["status"], listed["task"]) == ("blocked", "migrate the schema")

    # A field left out keeps its value; the row set is the caller's, whatever it sends.
    again = response(request(agents, dev["id"], "w2", {
        "type": "workstate.set", "status": "working", "agent": "QA"}))
    assert again["ok"] is True, again
    rows = json.loads(response(request(agents, "QA", "r1", {"type": "workstate.read"}))
                      ["detail"])
    assert [(r["agent"], r["status"], r["task"]) for r in rows] == [
        ("Dev", "working", "migrate the schema")]

    bad: list[tuple[str, dict[str, Any], str]] = [
        ("b1", {"type": "workstate.set"}, "status is required: one of idle, working"),
        ("b2", {"type": "workstate.set", "status": "sleeping"}, "sleeping"),
        ("b3", {"type": "workstate.set", "status": 3}, "status must be a string"),
        ("b4", {"type": "workstate.set", "status": "idle", "note": "  "},
         "note is empty; leave it out"),
        ("b5", {"type": "workstate.set", "status": "idle", "task": "x" * (ROW_MAX_BYTES + 1)},
         f"the limit is {ROW_MAX_BYTES} bytes"),
    ]
    for name, body, expected in bad:
        answer = response(request(agents, dev["id"], name, body))
        assert answer["ok"] is False and expected in answer["error"], (name, answer)
    # Nothing refused changed the row.
    [kept] = [r for r in idea.json("work")["rows"] if r["agent"] == "Dev"]
    assert (kept["status"], kept["task"]) == ("working", "migrate the schema")
