"""`idea_context_read` / `idea_context_propose` and the guarded `idea_update_context`
through the real SDK client, on real files."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from adapters.store.agents_codec import PersonaStore
from core.agents.agent import Agent
from core.knowledge.errors import Forbidden
from core.knowledge.guard import Party
from core.knowledge.limits import CONTEXT_MAX_CHARS
from core.knowledge.proposals import content_hash
from idea_daemon.knowledge import Knowledge
from tests.adapters.mcp.knowledge_rig import knowledge_rig, run, text

DEV_AGENT = Agent("agent-dev", "Dev", "agents/dev.md", "claude-code")
QA_AGENT = Agent("agent-qa", "QA", "agents/qa.md", "claude-code")


def project_with_agents(tmp_path: Path) -> tuple[Path, Knowledge]:
    project = tmp_path / "shop"
    (project / ".ideai" / "agents").mkdir(parents=True)
    (project / ".ideai" / "agents" / "dev.md").write_text("# Dev\n\nWrites code.\n")
    (project / ".ideai" / "agents" / "qa.md").write_text("# QA\n\nTests it.\n")
    knowledge = Knowledge(orchestrator_of=lambda _root, agent: agent == "agent-lead",
                          agents_of=lambda _root: (DEV_AGENT, QA_AGENT),
                          personas=PersonaStore())
    return project, knowledge


def proposals(project: Path) -> list[dict[str, object]]:
    folder = project / ".ideai" / "proposals"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


def test_reading_the_context_and_a_persona(tmp_path: Path) -> None:
    project, knowledge = project_with_agents(tmp_path)

    async def body() -> None:
        async with knowledge_rig(project, knowledge=knowledge) as r, r.client("Dev") as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            assert {"idea_context_read", "idea_context_propose"} <= tools
            none = await client.call_tool("idea_context_read", {})
            assert not none.is_error and "no shared context yet" in text(none)
            (project / ".ideai" / "CONTEXT.md").write_text("# Rules\n\nReview everything.\n")
            shared = await client.call_tool("idea_context_read", {})
            assert text(shared) == "# Rules\n\nReview everything.\n"
            persona = await client.call_tool("idea_context_read", {"target": "qa"})
            assert text(persona) == "# QA\n\nTests it.\n"
            unknown = await client.call_tool("idea_context_read", {"target": "Nobody"})
            assert unknown.is_error and "no agent named 'Nobody'" in text(unknown)
            assert "Dev, QA" in text(unknown)

    run(body)


def test_an_agent_proposes_and_the_context_is_untouched(tmp_path: Path) -> None:
    project, knowledge = project_with_agents(tmp_path)
    context = project / ".ideai" / "CONTEXT.md"
    context.write_text("# Rules\n")

    async def body() -> None:
        async with knowledge_rig(project, knowledge=knowledge) as r, r.client("Dev") as client:
            result = await client.call_tool("idea_context_propose", {
                "content": "# Rules\n\n- Tests before merge.", "reason": "we broke main twice"})
            assert not result.is_error, text(result)
            assert "stored for the user's review" in text(result)

    run(body)
    assert context.read_text() == "# Rules\n"
    [stored] = proposals(project)
    assert stored["content"] == "# Rules\n\n- Tests before merge.\n"
    assert stored["author"] == {"agentId": "agent-dev", "name": "Dev"}
    assert stored["reason"] == "we broke main twice"
    assert stored["baseHash"] == content_hash("# Rules\n")
    assert str(stored["id"]).startswith("P") and stored["version"] == 1


def test_the_designated_orchestrator_writes_directly(tmp_path: Path) -> None:
    project, knowledge = project_with_agents(tmp_path)

    async def body() -> None:
        async with knowledge_rig(project, ("Lead", "Dev"), orchestrators=("Lead",),
                                 knowledge=knowledge) as r, r.client("Lead") as client:
            result = await client.call_tool("idea_context_propose", {"content": "# Rules\n"})
            assert "written directly" in text(result)

    run(body)
    assert (project / ".ideai" / "CONTEXT.md").read_text() == "# Rules\n"
    assert proposals(project) == []


def test_a_direct_write_by_another_agent_is_forbidden(tmp_path: Path) -> None:
    project, knowledge = project_with_agents(tmp_path)

    async def body() -> None:
        with pytest.raises(Forbidden, match="idea_context_propose"):
            await knowledge.context.write(Party("agent-dev", "Dev"), str(project), "# Mine\n")

    asyncio.run(body())
    assert not (project / ".ideai" / "CONTEXT.md").exists()


def test_propose_with_a_target_rewrites_that_persona(tmp_path: Path) -> None:
    project, knowledge = project_with_agents(tmp_path)

    async def body() -> None:
        async with knowledge_rig(project, knowledge=knowledge) as r, r.client("Dev") as client:
            result = await client.call_tool("idea_context_propose",
                                            {"target": "QA", "content": "# QA\n\nTests more.\n"})
            assert "updated the instructions of QA" in text(result)

    run(body)
    assert (project / ".ideai" / "agents" / "qa.md").read_text() == "# QA\n\nTests more.\n"


@pytest.mark.parametrize("arguments, expected", [
    ({"content": ""}, "'content' is required"),
    ({"content": "x" * (CONTEXT_MAX_CHARS + 1)}, f"{CONTEXT_MAX_CHARS:,}"),
    ({"content": "x", "reason": "r" * 300}, "'reason' is 300 characters"),
    ({"content": 12}, "content"),
    ({}, "content"),
    ({"content": "x", "target": "t" * 201}, "'target'"),
])
def test_bad_proposals_are_error_results(tmp_path: Path, arguments: dict[str, object],
                                         expected: str) -> None:
    project, knowledge = project_with_agents(tmp_path)

    async def body() -> None:
        async with knowledge_rig(project, knowledge=knowledge) as r, r.client("Dev") as client:
            result = await client.call_tool("idea_context_propose", arguments)
            assert result.is_error and expected in text(result), text(result)
            read = await client.call_tool("idea_context_read", {"target": ["x"]})
            assert read.is_error

    run(body)
    assert not (project / ".ideai" / "proposals").exists()


def test_too_many_pending_proposals_are_refused(tmp_path: Path) -> None:
    project, knowledge = project_with_agents(tmp_path)

    async def body() -> None:
        async with knowledge_rig(project, knowledge=knowledge) as r, r.client("Dev") as client:
            for number in range(50):
                ok = await client.call_tool("idea_context_propose", {"content": f"v{number}"})
                assert not ok.is_error
            refused = await client.call_tool("idea_context_propose", {"content": "one more"})
            assert refused.is_error and "50 proposals already wait" in text(refused)

    run(body)
    assert len(proposals(project)) == 50


def test_an_unreadable_context_md_is_never_replaced(tmp_path: Path) -> None:
    project, knowledge = project_with_agents(tmp_path)
    context = project / ".ideai" / "CONTEXT.md"
    context.write_bytes(b"# Rules \xff\xfe\n")

    async def body() -> None:
        async with knowledge_rig(project, ("Lead",), orchestrators=("Lead",),
                                 knowledge=knowledge) as r, r.client("Lead") as client:
            result = await client.call_tool("idea_context_propose", {"content": "# New\n"})
            assert result.is_error and "not UTF-8" in text(result)
            assert "will not overwrite it" in text(result)

    run(body)
    assert context.read_bytes() == b"# Rules \xff\xfe\n"
