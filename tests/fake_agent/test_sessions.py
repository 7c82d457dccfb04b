"""Sessions of the fake agent: a chosen id (Claude Code's --session-id), resume by id, and
the Codex style where the id exists only in a session file written at the first message.

The error messages are the real CLIs' (checked with Claude Code 2.1.332 and Codex 0.171.0),
so the daemon's handling of a refused launch is tested against the same text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.fake_agent.conftest import StartAgent

ID = "4f0c1d9e-2b7a-4c1e-9d3f-5a6b7c8d9e0f"
XOR_ID = "12345678-1234-0234-0234-123456789abc"  # not v4: Claude Code accepts any hex UUID


def session_files(home: Path) -> list[Path]:
    return sorted((home / "sessions").glob("*/*/*/rollout-*.jsonl"))


def records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_session_id_is_recorded(
    start: StartAgent, agent_env: dict[str, str], project: Path
) -> None:
    agent = start("--session-id", ID)
    agent.expect_exact(f"SESSION {ID}")
    agent.prompt()
    agent.line("remember this")
    agent.expect_exact("reply: remember this")
    [path] = session_files(Path(agent_env["FAKE_AGENT_HOME"]))
    assert path.name.endswith(f"-{ID}.jsonl")
    meta, message = records(path)
    assert meta["type"] == "session_meta"
    payload = meta["payload"]
    assert isinstance(payload, dict)
    assert (payload["id"], payload["cwd"]) == (ID, str(project))
    assert message == {"type": "message", "payload": {"text": "remember this"}}


def test_any_hex_uuid_is_accepted_but_not_twice(start: StartAgent) -> None:
    first = start("--session-id", XOR_ID)
    first.expect_exact(f"SESSION {XOR_ID}")
    first.prompt()
    again = start("--session-id", XOR_ID)
    again.expect_exact(f"Error: Session ID {XOR_ID} is already in use.")
    assert again.wait_exit() == 1


def test_an_invalid_session_id_is_refused(start: StartAgent) -> None:
    agent = start("--session-id", "agent-7")
    agent.expect_exact("Error: Invalid session ID. Must be a valid UUID.")
    assert agent.wait_exit() == 1


def test_resume_continues_the_recorded_conversation(
    start: StartAgent, agent_env: dict[str, str]
) -> None:
    first = start("--session-id", ID, "--exit-after", "2")
    first.prompt()
    first.line("one")
    first.line("two")
    assert first.wait_exit() == 0

    again = start("--resume", ID)
    again.expect_exact(f"RESUMED {ID} messages=2")
    again.prompt()
    again.line("three")
    again.expect_exact("reply: three")
    [path] = session_files(Path(agent_env["FAKE_AGENT_HOME"]))
    assert [r["payload"] for r in records(path)[1:]] == [
        {"text": "one"}, {"text": "two"}, {"text": "three"}]


def test_resuming_an_unknown_session_fails_like_each_cli(start: StartAgent) -> None:
    claude = start("--resume", ID)
    claude.expect_exact(f"No conversation found with session ID: {ID}")
    assert claude.wait_exit() == 1
    codex = start("--session-style", "codex", "resume", ID)
    codex.expect_exact(f"ERROR: No saved session found with ID {ID}.")
    assert codex.wait_exit() == 1


def test_codex_style_id_is_discovered_from_the_session_file(
    start: StartAgent, agent_env: dict[str, str], project: Path
) -> None:
    home = Path(agent_env["FAKE_AGENT_HOME"])
    agent = start("--session-style", "codex")
    agent.prompt()
    assert "SESSION" not in agent.text
    assert session_files(home) == []  # like Codex 0.171.0: nothing before the first message
    agent.line("first task")
    agent.expect_exact("reply: first task")
    [path] = session_files(home)
    meta = records(path)[0]
    assert meta["type"] == "session_meta"
    payload = meta["payload"]
    assert isinstance(payload, dict)
    assert payload["cwd"] == str(project)
    found = re.search(r"rollout-.*-([0-9a-f-]{36})\.jsonl$", path.name)
    assert found is not None and found.group(1) == payload["id"]
    agent.line("/status")
    agent.expect_exact(f"SESSION {payload['id']}")

    resumed = start("--session-style", "codex", "resume", str(payload["id"]))
    resumed.expect_exact(f"RESUMED {payload['id']} messages=2")


def test_codex_style_cannot_choose_its_id(start: StartAgent) -> None:
    agent = start("--session-style", "codex", "--session-id", ID)
    agent.expect_exact("Codex cannot start with a chosen id")
    assert agent.wait_exit() == 2
