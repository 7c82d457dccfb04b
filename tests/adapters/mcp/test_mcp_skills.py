"""`idea_skill_read` and `idea_create_skill` through the real mcp SDK client, both transports,
in front of a fake that records what reaches the port (SKL-4, SKL-5).

Every bad argument — empty, too long (the limit is in the message), of the wrong JSON type,
an unknown scope — comes back as an `isError` result and never reaches the port.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adapters.mcp.identity import Caller
from core.agents.errors import DuplicateSkill, SkillNotFound
from core.agents.skills import MAX_CONTENT, MAX_NAME
from tests.adapters.mcp.fake_orchestrator import FakeOrchestrator
from tests.adapters.mcp.test_mcp_server import (
    DEV,
    QA,
    TOOLS,
    TRANSPORTS,
    client_for,
    rig,
    run,
    text,
)


class FakeSkills(FakeOrchestrator):
    """Also serves the skill port: one skill, "deploy"."""

    def __init__(self) -> None:
        super().__init__()
        self.skills = {"deploy": "# Deploy\n\nShip it.\n"}

    async def read_skill(self, caller: Caller, name: str) -> str:
        self.calls.append(("read_skill", caller, (name,)))
        if name.lower() not in self.skills:
            raise SkillNotFound(name)
        return self.skills[name.lower()]

    async def create_skill(self, caller: Caller, name: str, content: str,
                           scope: str | None) -> str:
        self.calls.append(("create_skill", caller, (name, content, scope)))
        if name.lower() in self.skills:
            raise DuplicateSkill(name, scope or "project")
        self.skills[name.lower()] = content
        return f"created {name}"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_the_skill_tools_read_and_create_as_the_caller(tmp_path: Path, transport: str) -> None:
    async def body() -> None:
        fake = FakeSkills()
        async with rig(tmp_path, fake) as r, client_for(r, transport, QA) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == TOOLS | {"idea_skill_read", "idea_create_skill"}
            assert set(tools["idea_skill_read"].input_schema["required"]) == {"name"}
            assert set(tools["idea_create_skill"].input_schema["required"]) == {"name",
                                                                                  "content"}
            read = await client.call_tool("idea_skill_read", {"name": "Deploy"})
            assert not read.is_error and text(read) == "# Deploy\n\nShip it.\n"
            made = await client.call_tool(
                "idea_create_skill", {"name": "Release", "content": "# Release\n", "scope":
                                      "global"})
            assert not made.is_error and text(made) == "created Release"
            plain = await client.call_tool("idea_create_skill", {"name": "Notes",
                                                                 "content": "n"})
            assert not plain.is_error
            assert [(n, c, a) for n, c, a in r.fake.calls] == [
                ("read_skill", QA, ("Deploy",)),
                ("create_skill", QA, ("Release", "# Release\n", "global")),
                ("create_skill", QA, ("Notes", "n", None)),
            ]

    run(body)


BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("idea_skill_read", {"name": ""}, "not empty"),
    ("idea_skill_read", {"name": "   "}, "not empty"),
    ("idea_skill_read", {"name": "x" * 300}, "the limit is 256"),
    ("idea_skill_read", {"name": 42}, "name"),
    ("idea_skill_read", {}, "name"),
    ("idea_create_skill", {"name": "", "content": "x"}, "name must not be empty"),
    ("idea_create_skill", {"name": "x" * (MAX_NAME + 1), "content": "x"},
     f"the limit is {MAX_NAME}"),
    ("idea_create_skill", {"name": "a\nb", "content": "x"}, "one line"),
    ("idea_create_skill", {"name": "ok", "content": ""}, "content must not be empty"),
    ("idea_create_skill", {"name": "ok", "content": "x" * (MAX_CONTENT + 1)},
     f"the limit is {MAX_CONTENT:,}"),
    ("idea_create_skill", {"name": "ok", "content": ["x"]}, "content"),
    ("idea_create_skill", {"name": "ok"}, "content"),
    ("idea_create_skill", {"name": "ok", "content": "x", "scope": "team"},
     "scope must be 'project' or 'global'"),
    ("idea_create_skill", {"name": "ok", "content": "x", "scope": 3}, "scope"),
]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_bad_arguments_are_error_results_that_never_reach_the_port(
    tmp_path: Path, transport: str
) -> None:
    async def body() -> None:
        fake = FakeSkills()
        async with rig(tmp_path, fake) as r, client_for(r, transport, DEV) as client:
            for tool, arguments, words in BAD_CALLS:
                result = await client.call_tool(tool, arguments)
                assert result.is_error, (tool, arguments, text(result))
                assert words in text(result), (tool, arguments, text(result))
            assert r.fake.calls == []
            # The port's own refusals come back the same way, with their message.
            missing = await client.call_tool("idea_skill_read", {"name": "nope"})
            assert missing.is_error and "no skill 'nope'" in text(missing)
            twice = await client.call_tool("idea_create_skill", {"name": "deploy",
                                                                  "content": "x"})
            assert twice.is_error and "already exists" in text(twice)

    run(body)
