"""Memory and the project context through the file protocol (MCP-6: the same operations as
the MCP tools for agents without MCP), on the real daemon."""

from __future__ import annotations

from typing import Any

import pytest

from core.knowledge.limits import MEMORY_NOTE_MAX_CHARS
from tests.e2e_agents.helpers import Agents, fake_profile
from tests.e2e_agents.test_file_protocol import request, response
from tests.helpers.idea import IdeaEnv

pytestmark = pytest.mark.e2e


def test_memory_and_proposals_through_request_files(idea: IdeaEnv) -> None:
    agents = Agents(idea, idea.new_project("files"))
    agents.add_profile(fake_profile("fake-files", "flag", session=False))
    scribe = agents.new("Scribe", "fake-files")
    saved = response(request(agents, scribe["id"], "m1", {
        "type": "memory.write", "slug": "api-versioning", "content": "# API\n\nv2 only.\n",
        "description": "The public API is versioned; v1 is gone", "metadataType": "reference"}))
    assert saved["ok"] is True, saved
    assert saved["detail"].startswith("saved memory note 'api-versioning'")
    index = (agents.ideai / "memory" / "MEMORY.md").read_text()
    assert "- [api-versioning](api-versioning.md) — The public API is versioned" in index
    assert "  type: reference\n" in (agents.ideai / "memory" / "api-versioning.md").read_text()

    read = response(request(agents, "Scribe", "m2", {"type": "memory.read"}))
    assert read == {"ok": True, "action": "memory.read", "detail": index}

    proposed = response(request(agents, scribe["id"], "c1", {
        "type": "context.propose", "content": "# Rules\n\nv2 only.\n", "reason": "v1 is gone"}))
    assert proposed["ok"] is True and "stored for the user's review" in proposed["detail"]
    assert not (agents.ideai / "CONTEXT.md").exists()
    [pending] = idea.json("context", "proposals")["proposals"]
    assert pending["author"] == "Scribe"

    bad: list[tuple[str, dict[str, Any], str]] = [
        ("b1", {"type": "memory.write", "slug": "../../x", "content": "x"}, "refused"),
        ("b2", {"type": "memory.write", "slug": "big", "content": "x" * (MEMORY_NOTE_MAX_CHARS
                                                                          + 1)},
         f"{MEMORY_NOTE_MAX_CHARS:,}"),
        ("b3", {"type": "memory.write", "slug": "s", "content": 5}, "must be a string"),
        ("b4", {"type": "context.propose"}, "'content' is required"),
    ]
    for name, body, expected in bad:
        answer = response(request(agents, scribe["id"], name, body))
        assert answer["ok"] is False and expected in answer["error"], (name, answer)
    assert sorted(p.name for p in (agents.ideai / "memory").iterdir()) == [
        "MEMORY.md", "api-versioning.md"]
    assert pending["diff"]["added"] == 3  # against no CONTEXT.md at all
