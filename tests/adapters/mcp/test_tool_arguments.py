"""Every tool of the catalogue refuses a bad argument with an `isError` result that names it,
and nothing reaches the daemon (issue 9: "every tool validates its arguments (empty, huge,
wrong type)").

The real server with every port behind it, reached by the real MCP SDK client over
streamable HTTP. The calls are derived from each tool's own input schema, so a tool added
later without an entry in `VALID` fails here until it is listed (and checked).
"""

from __future__ import annotations

from typing import Any

from adapters.mcp.identity import Caller
from adapters.mcp.port import AskOutcome, Progress
from tests.adapters.mcp.fake_orchestrator import FakeOrchestrator
from tests.adapters.mcp.test_mcp_server import DEV, client_for, rig, run, text

HUGE = 1_000_001
"""Characters in a "huge" value: past every limit of the catalogue (the largest, a task or
a reply, is 1,000,000: what the file protocol allows in a whole request)."""

VALID: dict[str, dict[str, str]] = {
    "idea_list_agents": {},
    "idea_ask_agent": {"target": "slow", "task": "check the build"},
    "idea_reply": {"result": "done", "ticket": "T3"},
    "idea_launch_agent": {"target": "QA", "visibility": "background", "task": "look"},
    "idea_stop_agent": {"target": "QA"},
    "idea_update_context": {"target": "QA", "content": "# QA\n"},
    "idea_skill_read": {"name": "deploy"},
    "idea_create_skill": {"name": "deploy", "content": "1. build", "scope": "project"},
    "idea_memory_read": {"slug": "deploy-rules"},
    "idea_memory_write": {"slug": "deploy-rules", "content": "Deploy from main.",
                          "description": "Deploys go out from main", "type": "project"},
    "idea_context_read": {"target": "QA"},
    "idea_context_propose": {"content": "# Rules\n", "reason": "a rule", "target": "QA"},
    "idea_workstate_read": {},
    "idea_workstate_set": {"status": "working", "task": "review", "note": "on T3"},
}
"""Good arguments for each tool: every bad call below changes one of them."""


class EveryPort(FakeOrchestrator):
    """The recording fake with the skill, memory, context and work-state ports too: every
    call any tool lets through lands in `calls`."""

    def __init__(self) -> None:
        super().__init__()
        self.knowledge = self

    async def ask(self, caller: Caller, target: str, task: str, ticket: str | None,
                  progress: Progress) -> AskOutcome:
        self.calls.append(("ask", caller, (target, task, ticket)))
        return AskOutcome("T1", "answer", target, "replied")  # never waits

    async def read_skill(self, caller: Caller, name: str) -> str:
        self.calls.append(("read_skill", caller, (name,)))
        return "1. build"

    async def create_skill(
        self, caller: Caller, name: str, content: str, scope: str | None
    ) -> str:
        self.calls.append(("create_skill", caller, (name, content, scope)))
        return f"created skill {name}"

    async def memory_read(self, caller: Caller, slug: str | None) -> str:
        self.calls.append(("memory_read", caller, (slug,)))
        return "# Memory Index\n"

    async def memory_write(self, caller: Caller, slug: str, content: str,
                           description: str | None, kind: str | None) -> str:
        self.calls.append(("memory_write", caller, (slug, content, description, kind)))
        return f"saved memory note {slug!r}"

    async def context_read(self, caller: Caller, target: str | None) -> str:
        self.calls.append(("context_read", caller, (target,)))
        return "# Rules\n"

    async def context_propose(self, caller: Caller, target: str | None, content: str,
                              reason: str | None) -> str:
        self.calls.append(("context_propose", caller, (target, content, reason)))
        return "proposal stored"

    async def workstate_read(self, caller: Caller) -> list[dict[str, Any]]:
        self.calls.append(("workstate_read", caller, ()))
        return []

    async def workstate_set(self, caller: Caller, status: str, task: str | None,
                            note: str | None) -> dict[str, Any]:
        self.calls.append(("workstate_set", caller, (status, task, note)))
        return {"agent": caller.name, "status": status}


def _takes_text(schema: dict[str, Any]) -> bool:
    if schema.get("type") == "string":
        return True
    return any(option.get("type") == "string" for option in schema.get("anyOf", []))


def bad_calls(name: str, schema: dict[str, Any]) -> list[tuple[dict[str, Any], str, str]]:
    """(arguments, what is wrong, the word the refusal must hold) for one tool: each text
    argument of the wrong type and huge; each required one empty, blank and missing."""
    valid = VALID[name]
    required = set(schema.get("required", []))
    calls: list[tuple[dict[str, Any], str, str]] = []
    for argument, spec in schema.get("properties", {}).items():
        assert _takes_text(spec), (name, argument, spec)  # the catalogue takes text only
        for wrong in (7, ["x"], {"a": 1}, True):
            calls.append(({**valid, argument: wrong}, f"{argument} = {wrong!r}", argument))
        calls.append(({**valid, argument: "x" * HUGE}, f"{argument} huge", argument))
        if argument in required:
            for empty in ("", "  \n "):
                calls.append(({**valid, argument: empty}, f"{argument} = {empty!r}", argument))
            missing = {key: value for key, value in valid.items() if key != argument}
            calls.append((missing, f"{argument} missing", argument))
            calls.append(({**valid, argument: None}, f"{argument} = None", argument))
    return calls


def test_every_tool_refuses_wrong_types_huge_and_empty_arguments_before_the_daemon(
    tmp_path: Any,
) -> None:
    async def body() -> None:
        fake = EveryPort()
        async with rig(tmp_path, fake) as r, client_for(r, "http", DEV) as client:
            tools = (await client.list_tools()).tools
            assert {tool.name for tool in tools} == set(VALID)
            checked = 0
            for tool in tools:
                for arguments, wrong, word in bad_calls(tool.name, tool.input_schema):
                    result = await client.call_tool(tool.name, arguments)
                    said = text(result)
                    assert result.is_error, (tool.name, wrong, said[:200])
                    assert word in said, (tool.name, wrong, said[:300])
                    assert len(said) < 2_000, (tool.name, wrong)  # the value is not echoed
                    checked += 1
            assert r.fake.calls == [], r.fake.calls[:3]
            assert checked > 150
            # The same tools with the good arguments all go through: what was refused
            # above was the one argument changed.
            for tool in tools:
                result = await client.call_tool(tool.name, VALID[tool.name])
                assert not result.is_error, (tool.name, text(result))
            assert len(r.fake.calls) == len(tools)

    run(body)
