"""The built-in Codex profile against the real `codex`, offline.

`codex debug prompt-input` prints what the model would be given, `codex mcp get --json` the
MCP servers a command line declares; the TUI runs against a local provider stub. Together
they check the context injection, the MCP overrides, the prompt pattern and submit sequence,
and the discovery of the session id after launch (D20).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.agents.argv import render_args
from core.agents.profile import SessionMode
from tests.agents_cli.clis import launch_argv, profile, require_cli, run, scratch_env
from tests.agents_cli.context import composed_context, launch_values
from tests.agents_cli.screen import TuiOnPty
from tests.agents_cli.stubs import ProviderStub, provider_stub

CODEX = profile("codex")
MCP_PATH = "/srv/project/.ideai/run/agent-1/mcp.json"


@pytest.fixture
def codex() -> Path:
    return require_cli("codex")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "AGENTS.md").write_text("The user's own AGENTS.md: USER-FILE-MARK\n")
    return folder


def texts(items: list[dict[str, Any]], role: str) -> list[str]:
    return [part["text"] for item in items if item.get("role") == role
            for part in item.get("content", []) if part.get("type") == "input_text"]


def test_context_becomes_a_developer_message(
    codex: Path, project: Path, tmp_path: Path
) -> None:
    context = composed_context(project, "CODEX-CONTEXT")
    values = launch_values(project, tmp_path / "run", context)
    words = render_args(CODEX, values, mcp_path=MCP_PATH)
    done = run([codex, *words, "debug", "prompt-input", "hello"],
               env=scratch_env(tmp_path / "home"), cwd=project)
    assert done.returncode == 0, done.stderr
    items = json.loads(done.stdout)
    # Verbatim but for the surrounding whitespace Codex trims.
    assert context.strip() in texts(items, "developer")
    assert any("USER-FILE-MARK" in text for text in texts(items, "user"))  # AGENTS.md still read


def test_mcp_overrides_declare_the_idea_server(codex: Path, project: Path, tmp_path: Path) -> None:
    values = launch_values(project, tmp_path / "run", composed_context(project, "MCP"))
    words = render_args(CODEX, values, mcp_path=MCP_PATH)
    done = run([codex, *words, "mcp", "get", "idea", "--json"],
               env=scratch_env(tmp_path / "home"), cwd=project)
    assert done.returncode == 0, done.stderr
    server = json.loads(done.stdout)
    assert server["transport"]["type"] == "stdio"
    assert server["transport"]["command"] == "idea"
    assert server["transport"]["args"] == ["mcp-server", "--config", MCP_PATH]
    assert server["tool_timeout_sec"] == 600


@pytest.fixture
def stub() -> Iterator[ProviderStub]:
    with provider_stub() as running:
        yield running


def signed_in_home(codex: Path, home: Path, project: Path) -> dict[str, str]:
    """A CODEX_HOME as a user's is after Codex's own first run: an API key saved, the
    project trusted. Without it the TUI stops on its sign-in and trust screens."""
    env = scratch_env(home)
    done = run([codex, "login", "--with-api-key"], env=env, cwd=home, stdin="sk-idea-test\n")
    assert done.returncode == 0, done.stderr
    config = Path(env["CODEX_HOME"]) / "config.toml"
    config.write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    return env


def discover(env: dict[str, str]) -> list[tuple[str, Path]]:
    """The session files the profile's `session.discover` block points at: (id, path)."""
    raw = CODEX.session.extra["discover"] if CODEX.session else {}
    root = Path(env.get(raw["homeEnv"]) or Path(raw["defaultHome"]).expanduser())
    found = []
    for path in sorted(root.glob(raw["glob"])):
        match = re.search(raw["idPattern"], path.name)
        if match:
            found.append((match.group(1), path))
    return found


def _replayable_message(rollout: Path, text: str) -> bool:
    """Whether Codex's rollout holds the user message `text` as an event (the model's input
    is written first; a resume replays the events: 0.171 writes an `item_completed` of a
    `UserMessage`, older versions a `user_message`)."""
    for line in rollout.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a line being written
        if (isinstance(entry, dict) and entry.get("type") == "event_msg"
                and text in json.dumps(entry.get("payload"))):
            return True
    return False


def test_tui_submit_and_session_discovery_then_resume(
    codex: Path, stub: ProviderStub, project: Path, tmp_path: Path
) -> None:
    env = signed_in_home(codex, tmp_path / "home", project)
    provider = ["-c", f'openai_base_url="{stub.url}/v1"']
    context = composed_context(project, "CODEX-TUI")
    values = launch_values(project, tmp_path / "run", context)
    argv = launch_argv(CODEX, codex, values, session=SessionMode.START, mcp_path=MCP_PATH)
    tui = TuiOnPty([*argv, *provider], cwd=project, env=env)
    try:
        assert CODEX.prompt_ready_pattern is not None
        tui.wait_for(CODEX.prompt_ready_pattern)
        assert tui.emulator.modes.bracketed_paste
        assert discover(env) == []  # nothing to discover before the first message
        # The file appears with the first message, which is written into it right after:
        # as the model's input first, then as the event a resume replays on screen (closing
        # the TUI between the two leaves a resume with nothing to show).
        tui.submit_until("hello codex", CODEX.submit_sequence, CODEX.submit_delay_ms,
                         lambda: any(_replayable_message(path, "hello codex")
                                     for _, path in discover(env)))
    finally:
        tui.close()

    [(session_id, path)] = discover(env)
    meta = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert meta["type"] == "session_meta"
    assert (meta["payload"]["id"], meta["payload"]["cwd"]) == (session_id, str(project))
    recorded = path.read_text(encoding="utf-8")
    assert "hello codex" in recorded and "CODEX-TUI" in recorded

    values = launch_values(project, tmp_path / "run", context, session_id)
    argv = launch_argv(CODEX, codex, values, session=SessionMode.RESUME, mcp_path=MCP_PATH)
    assert argv[1:3] == ["resume", session_id]
    resumed = TuiOnPty([*argv, *provider], cwd=project, env=env)
    try:
        resumed.wait_for("hello codex")  # the conversation is back on screen
        resumed.wait_for(CODEX.prompt_ready_pattern)
    finally:
        resumed.close()
