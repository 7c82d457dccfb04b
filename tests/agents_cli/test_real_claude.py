"""The built-in Claude Code profile against the real `claude`, offline.

`claude` talks to a local provider stub (ANTHROPIC_BASE_URL), so what it would send the
model can be read: the composed context must be in the system prompt, the session id must
be the one idea chose, a resume must carry fresh context (D20), and in the interactive TUI
the profile's prompt pattern, paste mode and submit sequence must hold.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.agents.profile import SessionMode
from tests.agents_cli.clis import launch_argv, profile, require_cli, run, scratch_env
from tests.agents_cli.context import composed_context, launch_values
from tests.agents_cli.screen import TuiOnPty
from tests.agents_cli.stubs import ProviderStub, Recorded, provider_stub

API_KEY = "sk-ant-idea-test-key-0000"
CLAUDE = profile("claude-code")


@pytest.fixture
def claude() -> Path:
    return require_cli("claude")


@pytest.fixture
def stub() -> Iterator[ProviderStub]:
    with provider_stub() as running:
        yield running


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "CLAUDE.md").write_text("The user's own CLAUDE.md: USER-FILE-MARK\n")
    return folder


def system_text(request: Recorded) -> str:
    """The system prompt of a Messages API request (a string or a list of text blocks)."""
    system = request.body.get("system")
    if isinstance(system, str):
        return system
    return "\n".join(block.get("text", "") for block in system or [])


def turn(stub: ProviderStub, prompt: str) -> Recorded:
    """The request of the conversation turn that sent `prompt` (side requests, such as the
    one titling a session, carry their own system prompt)."""
    found = [r for r in stub.messages() if prompt in json.dumps(r.body.get("messages"))
             and "# Project root" in system_text(r)]
    assert found, f"no request sent {prompt!r}: {[r.path for r in stub.requests]}"
    return found[-1]


def mcp_file(tmp_path: Path) -> str:
    """An MCP config in the shape idea writes (FEATURES §3.12); the server need not work."""
    path = tmp_path / "run" / "mcp.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": {"idea": {"command": "true", "args": []}}}))
    return str(path)


def ask(claude: Path, argv: list[str], prompt: str, *, home: Path, project: Path,
        stub: ProviderStub) -> None:
    """One non-interactive turn (`-p`) with the launch's arguments."""
    env = scratch_env(home, ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=stub.url)
    done = run([*argv, "-p", prompt], env=env, cwd=project)
    assert done.returncode == 0, done.stdout + done.stderr


def test_context_reaches_the_system_prompt_under_the_chosen_session_id(
    claude: Path, stub: ProviderStub, project: Path, tmp_path: Path
) -> None:
    conversation = str(uuid.uuid4())
    context = composed_context(project, "FIRST-LAUNCH")
    values = launch_values(project, tmp_path / "run", context, conversation)
    argv = launch_argv(CLAUDE, claude, values, session=SessionMode.START,
                       mcp_path=mcp_file(tmp_path))
    ask(claude, argv, "hello", home=tmp_path / "home", project=project, stub=stub)

    request = turn(stub, "hello")
    assert context.strip() in system_text(request)
    assert "USER-FILE-MARK" in request.text  # the user's CLAUDE.md is still read, untouched
    transcripts = list((tmp_path / "home" / ".claude" / "projects").glob(f"*/{conversation}.jsonl"))
    assert len(transcripts) == 1


def test_resume_carries_fresh_context(
    claude: Path, stub: ProviderStub, project: Path, tmp_path: Path
) -> None:
    conversation = str(uuid.uuid4())
    home = tmp_path / "home"
    first = launch_values(project, tmp_path / "run", composed_context(project, "OLD"),
                          conversation)
    mcp = mcp_file(tmp_path)
    ask(claude, launch_argv(CLAUDE, claude, first, session=SessionMode.START, mcp_path=mcp),
        "remember 42", home=home, project=project, stub=stub)
    stub.requests.clear()

    fresh = launch_values(project, tmp_path / "run", composed_context(project, "NEW"),
                          conversation)
    ask(claude, launch_argv(CLAUDE, claude, fresh, session=SessionMode.RESUME, mcp_path=mcp),
        "and now?", home=home, project=project, stub=stub)
    system = system_text(turn(stub, "and now?"))
    # The profile's resume turns the system-prompt snapshot off: without it, claude would
    # resend the OLD text recorded at the conversation's first request.
    assert "NEW" in system and "OLD" not in system
    assert "remember 42" in json.dumps(turn(stub, "and now?").body["messages"])  # same one


def test_tui_prompt_paste_mode_and_submit(
    claude: Path, stub: ProviderStub, project: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    # The state a user's ~/.claude.json has after Claude Code's own first run: onboarding
    # done, this API key approved, the folder trusted. Without it the TUI stops on dialogs.
    (home / ".claude.json").write_text(json.dumps({
        "hasCompletedOnboarding": True,
        "theme": "dark",
        "customApiKeyResponses": {"approved": [API_KEY[-20:]], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True}},
    }))
    context = composed_context(project, "TUI-LAUNCH")
    values = launch_values(project, tmp_path / "run", context, str(uuid.uuid4()))
    argv = launch_argv(CLAUDE, claude, values, session=SessionMode.START,
                       mcp_path=mcp_file(tmp_path))
    env = scratch_env(home, ANTHROPIC_API_KEY=API_KEY, ANTHROPIC_BASE_URL=stub.url)
    tui = TuiOnPty(argv, cwd=project, env=env)
    try:
        assert CLAUDE.prompt_ready_pattern is not None
        tui.wait_for(CLAUDE.prompt_ready_pattern)
        assert tui.emulator.modes.bracketed_paste
        tui.type_and_submit("hello from idea", CLAUDE.submit_sequence, CLAUDE.submit_delay_ms)

        def turn_sent() -> bool:
            # The conversation's request, not the side request titling the session.
            return any("hello from idea" in r.text and "TUI-LAUNCH" in system_text(r)
                       for r in stub.messages())

        tui.pump_until(turn_sent)
    finally:
        tui.close()
