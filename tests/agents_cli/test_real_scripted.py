"""The real Claude Code and Codex against the scripted model server, offline.

Each CLI completes real turns: the scripted text shows in its TUI, the composed context of
idea's launch arrives in the request's system prompt (Claude Code) or developer
instructions (Codex), an MCP tool call scripted as the model's answer is really made and its
result comes back in the next request, and `claude mcp list` health-checks a stdio server.
The MCP server here is a known-good one on the mcp SDK (`echo_mcp.py`); the delegation
scenarios through idea's own server are in test_real_delegation.py.
"""

from __future__ import annotations

import json
import sys
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from core.agents.profile import SessionMode
from tests.agents_cli.clis import launch_argv, profile, require_cli, run
from tests.agents_cli.context import composed_context, launch_values
from tests.agents_cli.homes import cli_env
from tests.agents_cli.model_server import McpCall, ModelServer, Script, Text
from tests.agents_cli.screen import TuiOnPty

ROOT = Path(__file__).resolve().parents[2]
CLAUDE = profile("claude-code")
CODEX = profile("codex")
TURN_WAIT = 120.0
"""Seconds a real CLI may take for a turn on a loaded machine (a passing test waits less)."""

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def echo_server(log: Path) -> dict[str, object]:
    """The stdio MCP server entry (Claude Code's mcpServers shape) of `echo_mcp.py`."""
    return {"command": sys.executable, "args": ["-m", "tests.agents_cli.echo_mcp", str(log)],
            "env": {"PYTHONPATH": str(ROOT)}}


def echo_config(tmp_path: Path) -> tuple[Path, Path]:
    """(an MCP config file declaring the echo server, the log of its calls)."""
    log = tmp_path / "echo-calls.jsonl"
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"echo": echo_server(log)}}))
    return path, log


def calls(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [json.loads(line)["text"] for line in log.read_text().splitlines()]


# ─── a turn in the TUI ───────────────────────────────────────────────────────────────


def test_claude_tui_turn_answers_with_the_script_and_gets_the_context(
        script: Script, server: ModelServer, project: Path, tmp_path: Path) -> None:
    claude = require_cli("claude")
    script.add("QUESTION-CLAUDE-1", [Text("SCRIPTED-ANSWER-CLAUDE")])
    context = composed_context(project, "CLAUDE-CTX")
    values = launch_values(project, tmp_path / "run", context, str(uuid.uuid4()))
    mcp, _ = echo_config(tmp_path)
    argv = launch_argv(CLAUDE, claude, values, session=SessionMode.START, mcp_path=str(mcp))
    env = cli_env(tmp_path / "home", server.url, [project], servers=["echo"],
                  extra={"PYTHONPATH": str(ROOT)})
    tui = TuiOnPty(argv, cwd=project, env=env)
    try:
        assert CLAUDE.prompt_ready_pattern is not None
        tui.wait_for(CLAUDE.prompt_ready_pattern, timeout=TURN_WAIT)
        tui.submit_until("QUESTION-CLAUDE-1", CLAUDE.submit_sequence,
                         CLAUDE.submit_delay_ms, lambda: server.turns())
        tui.wait_for("SCRIPTED-ANSWER-CLAUDE", timeout=TURN_WAIT)
    finally:
        tui.close()
    [turn] = [r for r in server.turns() if r.rule == "QUESTION-CLAUDE-1"]
    assert context.strip() in turn.system


def test_codex_tui_turn_answers_with_the_script_and_gets_the_context(
        script: Script, server: ModelServer, project: Path, tmp_path: Path) -> None:
    codex = require_cli("codex")
    script.add("QUESTION-CODEX-1", [Text("SCRIPTED-ANSWER-CODEX")])
    context = composed_context(project, "CODEX-CTX")
    values = launch_values(project, tmp_path / "run", context)
    # idea's own MCP server is not part of this test: the profile without its mcp block.
    argv = launch_argv(replace(CODEX, mcp=None), codex, values, session=SessionMode.START)
    env = cli_env(tmp_path / "home", server.url, [project], servers=[])
    tui = TuiOnPty(argv, cwd=project, env=env)
    try:
        assert CODEX.prompt_ready_pattern is not None
        tui.wait_for(CODEX.prompt_ready_pattern, timeout=TURN_WAIT)
        tui.submit_until("QUESTION-CODEX-1", CODEX.submit_sequence, CODEX.submit_delay_ms,
                         lambda: server.turns())
        tui.wait_for("SCRIPTED-ANSWER-CODEX", timeout=TURN_WAIT)
    finally:
        tui.close()
    [turn] = [r for r in server.turns() if r.rule == "QUESTION-CODEX-1"]
    assert context.strip() in turn.system  # a developer message


# ─── an MCP tool call scripted as the model's answer ─────────────────────────────────


def tool_call_script(script: Script, marker: str) -> None:
    script.add(f"CALL-ECHO-{marker}", [Text("calling echo"),
                                       McpCall("echo", "echo", {"text": f"PING-{marker}"})])
    script.add(f"ECHO:PING-{marker}", [Text(f"ECHO-SEEN-{marker}")])


def test_claude_calls_the_scripted_mcp_tool_and_sends_its_result(
        script: Script, server: ModelServer, project: Path, tmp_path: Path) -> None:
    claude = require_cli("claude")
    tool_call_script(script, "C")
    mcp, log = echo_config(tmp_path)
    env = cli_env(tmp_path / "home", server.url, [project], servers=["echo"])
    done = run([claude, "--mcp-config", mcp, "--strict-mcp-config", "-p", "CALL-ECHO-C"],
               env={**env, "PYTHONPATH": str(ROOT)}, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr + server.describe()
    assert "ECHO-SEEN-C" in done.stdout
    assert calls(log) == ["PING-C"]
    # The result reaches the model as the SDK's structured output.
    [result] = [r for r in server.turns() if r.rule == "ECHO:PING-C"]
    assert json.loads(result.latest) == {"result": "ECHO:PING-C"}


def test_codex_calls_the_scripted_mcp_tool_and_sends_its_result(
        script: Script, server: ModelServer, project: Path, tmp_path: Path) -> None:
    codex = require_cli("codex")
    tool_call_script(script, "X")
    log = tmp_path / "echo-calls.jsonl"
    entry = echo_server(log)
    overrides = [f"mcp_servers.echo.command={json.dumps(entry['command'])}",
                 f"mcp_servers.echo.args={json.dumps(entry['args'])}",
                 f'mcp_servers.echo.env={{PYTHONPATH={json.dumps(str(ROOT))}}}']
    env = cli_env(tmp_path / "home", server.url, [project], servers=["echo"])
    done = run([codex, *[w for o in overrides for w in ("-c", o)], "exec",
                "--skip-git-repo-check", "CALL-ECHO-X"], env=env, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr + server.describe()
    assert "ECHO-SEEN-X" in done.stdout
    assert calls(log) == ["PING-X"]
    [first] = [r for r in server.turns() if r.rule == "CALL-ECHO-X"]
    assert "mcp__echo" in first.tools  # offered as one namespace tool
    [result] = [r for r in server.turns() if r.rule == "ECHO:PING-X"]
    # Codex prefixes the tool's output with its wall time.
    assert result.latest.startswith("Wall time:")
    assert json.loads(result.latest.split("Output:\n", 1)[1]) == {"result": "ECHO:PING-X"}


# ─── claude mcp list ─────────────────────────────────────────────────────────────────


def test_claude_mcp_list_health_checks_a_stdio_server(
        server: ModelServer, project: Path, tmp_path: Path) -> None:
    claude = require_cli("claude")
    env = cli_env(tmp_path / "home", server.url, [project], servers=[])
    log = tmp_path / "echo-calls.jsonl"
    for name, entry in (("echo", echo_server(log)),
                        ("broken", {"command": "false", "args": []})):
        added = run([claude, "mcp", "add-json", name, json.dumps(entry)], env=env,
                    cwd=project)
        assert added.returncode == 0, added.stdout + added.stderr
    listed = run([claude, "mcp", "list"], env=env, cwd=project)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    lines = {line.split(":", 1)[0]: line for line in listed.stdout.splitlines() if ":" in line}
    assert "✔ Connected" in lines["echo"], listed.stdout
    assert "✔ Connected" not in lines["broken"], listed.stdout  # the check can fail
