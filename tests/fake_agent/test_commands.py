"""Commands typed at the fake agent's prompt, its exit codes, and what it records."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from adapters.agents.catalogue import CLAUDE_CODE
from tests.fake_agent.conftest import StartAgent
from tests.fake_agent.driver import FAKE_AGENT, read_report


def test_rate_limit_message_matches_the_claude_profile(start: StartAgent) -> None:
    agent = start()
    agent.prompt()
    agent.line("/rate-limit")
    line = agent.expect(rb"You've hit your limit[^\r\n]*").group(0).decode()
    found = re.search(CLAUDE_CODE["rateLimitPattern"], line)
    assert found is not None and found.group("reset") == "3:40am"
    agent.prompt()
    agent.line("/rate-limit Usage limit reached. Try again at 5pm")
    agent.expect_exact("Usage limit reached. Try again at 5pm")


def test_echo_and_plain_replies(start: StartAgent) -> None:
    agent = start()
    agent.prompt()
    agent.line("/echo  spaced  out")
    agent.expect_exact("\n spaced  out\r\n")
    agent.line("anything else")
    agent.expect_exact("reply: anything else")


def test_stall_never_answers_until_a_signal(start: StartAgent, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    agent = start("--report", str(report))
    agent.prompt()
    agent.line("/stall")
    agent.expect_exact("STALLED")
    assert read_report(report)["state"] == "stalled"
    agent.line("are you there?")
    # Not even the echo comes back: the program no longer reads its input.
    assert agent.silent_for(0.5) == b""
    agent.pty.signal(signal.SIGTERM)
    assert agent.wait_exit() == 128 + signal.SIGTERM
    assert read_report(report)["exitCode"] == 128 + signal.SIGTERM


def test_exit_with_a_code(start: StartAgent, tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    agent = start("--report", str(report))
    agent.prompt()
    agent.line("/exit 300")
    agent.expect_exact("usage: /exit N (0..255)")
    agent.line("/exit 7")
    agent.expect_exact("EXIT 7")
    assert agent.wait_exit() == 7
    data = read_report(report)
    assert (data["state"], data["exitCode"]) == ("exited", 7)
    assert data["messages"] == ["/exit 300", "/exit 7"]


def test_exit_after_a_number_of_messages(start: StartAgent) -> None:
    agent = start("--exit-after", "2")
    agent.prompt()
    agent.line("one")
    agent.line("two")
    agent.expect_exact("reply: two")
    assert agent.wait_exit() == 0
    assert start("--exit-after", "0").wait_exit() == 0


def test_print_cwd_and_size(start: StartAgent, project: Path) -> None:
    agent = start("--print-cwd")
    agent.expect_exact(f"CWD {project}")
    agent.prompt()
    agent.line("/size")
    agent.expect_exact("SIZE 100 30")


def test_mcp_and_cli_options_are_recorded(start: StartAgent, tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"idea": {"command": "idea"}, "b": {}}}))
    report = tmp_path / "report.json"
    agent = start("--mcp-config", str(config), "--strict-mcp-config", "-c", "a.b=1",
                  "--add-dir", str(tmp_path), "--report", str(report))
    agent.expect_exact(f"MCP {config} servers=b,idea")
    agent.prompt()
    data = read_report(report)
    assert data["mcpConfigs"] == [{"path": str(config), "servers": ["b", "idea"]}]
    assert (data["strictMcpConfig"], data["configOverrides"], data["addDirs"]) == (
        True, ["a.b=1"], [str(tmp_path)])
    broken = start("--mcp-config", str(tmp_path / "none.json"))
    broken.expect_exact(f"MCP {tmp_path / 'none.json'} error=FileNotFoundError")


def test_report_shows_idea_variables_and_hides_the_rest(
    start: StartAgent, agent_env: dict[str, str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    env = {**agent_env, "IDEA_CELL": "c1", "IDEA_SOCKET": "/s", "SECRET_TOKEN": "x"}
    agent = start("--report", str(report), env=env)
    agent.prompt()
    data = read_report(report)
    assert data["env"]["IDEA_CELL"] == "c1" and data["env"]["IDEA_SOCKET"] == "/s"
    assert "SECRET_TOKEN" not in data["env"] and "PATH" not in data["env"]
    assert data["argv"] == ["--report", str(report)]
    assert data["bracketedPaste"] is True


def test_unknown_option_is_a_usage_error(start: StartAgent) -> None:
    agent = start("--no-such-flag")
    agent.expect_exact("unrecognized arguments: --no-such-flag")
    assert agent.wait_exit() == 2


def test_runs_as_an_executable_with_only_the_standard_library(tmp_path: Path) -> None:
    assert os.access(FAKE_AGENT, os.X_OK)
    assert FAKE_AGENT.read_text(encoding="utf-8").startswith("#!/usr/bin/env python3\n")
    done = subprocess.run([str(FAKE_AGENT), "--help"], capture_output=True, text=True,
                          timeout=30, check=True)
    assert "--append-system-prompt" in done.stdout
    # Imported in a fresh interpreter: nothing outside the standard library gets loaded.
    probe = (
        "import importlib.util, json, sys\n"
        f"spec = importlib.util.spec_from_file_location('fake_agent', {str(FAKE_AGENT)!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    loaded = json.loads(subprocess.run([sys.executable, "-I", "-S", "-c", probe],
                                       capture_output=True, text=True, timeout=30,
                                       check=True).stdout)
    outside = [name for name in loaded if name not in sys.stdlib_module_names
               and name not in ("fake_agent", "__main__")]
    assert outside == []
