"""What the real CLIs print and record when the provider answers "usage limit reached".

The scripted model server answers as each provider does at a limit (`UsageLimit`: a 429 with
the provider's headers and body). These tests pin down, on the installed CLIs, the two
things idea's limit detection (issue 10) reads: the message on screen, which the built-in
profile's `rateLimitPattern` must match with the right reset time (level 2), and the
machine-readable record each CLI writes (level 1): Claude Code's session transcript line
(`apiError: usage_limit_reached`, the reset in epoch seconds), Codex's session file
(`usage_limit_exceeded`, `rate_limits.primary.resets_at`).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapters.limits import ClaudeTranscriptReader, CodexSessionReader
from core.agents.profile import AgentProfile
from core.session_limits import LimitLevel, LimitQuery, LimitSignal
from tests.agents_cli.clis import profile, require_cli, run
from tests.agents_cli.homes import base_env, prepare_claude, prepare_codex
from tests.agents_cli.model_server import ModelServer, Script, UsageLimit, model_server

CLAUDE = profile("claude-code")
CODEX = profile("codex")

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def reset_at() -> int:
    """Two hours and 37 minutes from now, on a whole minute (the CLIs show minutes)."""
    return (int(time.time()) // 60 + 2 * 60 + 37) * 60


@pytest.fixture
def server(reset_at: int) -> Iterator[ModelServer]:
    script = Script()
    script.add("", UsageLimit(reset_at, "LIMIT-BODY-MESSAGE"), times=None)
    with model_server(script) as running:
        yield running


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def clock(text: str) -> tuple[int, int]:
    """(hour 0-23, minute) of "3:40am", "3am", "3:40 PM"."""
    found = re.search(r"(\d{1,2})(?::(\d{2}))?\s?([AaPp])[Mm]", text)
    assert found is not None, text
    hour = int(found[1]) % 12 + (12 if found[3].lower() == "p" else 0)
    return hour, int(found[2] or 0)


def level_one(reader: ClaudeTranscriptReader | CodexSessionReader, cli: AgentProfile,
              project: Path, conversation: str, env: dict[str, str]) -> LimitSignal | None:
    """What idea's level-1 reader makes of the files the CLI just wrote."""
    now = datetime.now(UTC)
    return reader.read(LimitQuery(
        agent_id="a1", profile=cli, project_root=project, run_dir=project / "run",
        conversation_id=conversation, since=now - timedelta(minutes=10), now=now, env=env))


def lines(paths: list[Path]) -> list[dict[str, Any]]:
    return [json.loads(line) for path in paths
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_claude_code_subscription_limit_message_and_transcript(
        server: ModelServer, project: Path, tmp_path: Path, reset_at: int) -> None:
    claude = require_cli("claude")
    home = tmp_path / "home"
    env = {**base_env(home), "TZ": "UTC",
           **prepare_claude(home, server.url, [project], subscription=True)}
    session = str(uuid.uuid4())
    done = run([claude, "-p", "--session-id", session, "hello"], env=env, cwd=project)
    assert done.returncode != 0
    message = done.stdout.strip()
    assert CLAUDE.rate_limit_pattern is not None
    match = re.search(CLAUDE.rate_limit_pattern, message)
    assert match is not None, message  # the profile's level-2 pattern
    expected = datetime.fromtimestamp(reset_at, UTC)
    assert clock(match["reset"]) == (expected.hour, expected.minute), message
    assert "(UTC)" in match["reset"]  # the zone the time is in comes with it

    transcript = list((home / ".claude" / "projects").glob("*/*.jsonl"))
    [record] = [line for line in lines(transcript) if line.get("isApiErrorMessage")]
    assert record["apiError"] == "usage_limit_reached" and record["apiErrorStatus"] == 429
    info = record["apiErrorParams"]["rate_limit_info"]
    assert info["status"] == "rejected" and info["resetsAt"] == reset_at
    signal = level_one(ClaudeTranscriptReader(), CLAUDE, project, session, env)  # level 1
    assert signal is not None and signal.level is LimitLevel.STRUCTURED
    assert signal.resets_at == datetime.fromtimestamp(reset_at, UTC)
    assert signal.text == message


def test_claude_code_token_login_limit_is_a_plain_429(
        server: ModelServer, project: Path, tmp_path: Path) -> None:
    """With a token (not a subscription), the same answer is only "Request rejected (429)":
    no reset time anywhere. Level 1 still says "limited" (the transcript's
    `error: rate_limit`), the end unknown: idea asks the user for the time."""
    claude = require_cli("claude")
    home = tmp_path / "home"
    env = {**base_env(home), **prepare_claude(home, server.url, [project])}
    session = str(uuid.uuid4())
    done = run([claude, "-p", "--session-id", session, "hello"], env=env, cwd=project)
    assert done.returncode != 0
    assert "Request rejected (429)" in done.stdout and "LIMIT-BODY-MESSAGE" in done.stdout
    assert CLAUDE.rate_limit_pattern is not None
    assert re.search(CLAUDE.rate_limit_pattern, done.stdout) is None
    transcript = list((home / ".claude" / "projects").glob("*/*.jsonl"))
    [record] = [line for line in lines(transcript) if line.get("isApiErrorMessage")]
    assert record["error"] == "rate_limit" and "apiErrorParams" not in record
    signal = level_one(ClaudeTranscriptReader(), CLAUDE, project, session, env)
    assert signal is not None and signal.resets_at is None  # limited, the end unknown


def test_codex_limit_message_and_session_file(
        server: ModelServer, project: Path, tmp_path: Path, reset_at: int) -> None:
    codex = require_cli("codex")
    home = tmp_path / "home"
    env = {**base_env(home), "TZ": "UTC",
           **prepare_codex(home / ".codex", server.url, [project])}
    done = run([codex, "exec", "--skip-git-repo-check", "hello"], env=env, cwd=project)
    assert done.returncode != 0
    assert CODEX.rate_limit_pattern is not None
    match = re.search(CODEX.rate_limit_pattern, done.stderr)
    assert match is not None, done.stderr  # the profile's level-2 pattern
    expected = datetime.fromtimestamp(reset_at, UTC)
    assert clock(match["reset"]) == (expected.hour, expected.minute), match[0]

    sessions = list((home / ".codex" / "sessions").glob("*/*/*/rollout-*.jsonl"))
    events = [line["payload"] for line in lines(sessions) if line.get("type") == "event_msg"]
    [ended] = [e for e in events if e.get("type") == "task_complete" and e.get("error")]
    assert ended["error"]["codex_error_info"] == "usage_limit_exceeded"  # level 1
    limits = [e["rate_limits"]["primary"] for e in events if e.get("type") == "token_count"
              and (e.get("rate_limits") or {}).get("primary")]
    assert limits and limits[-1]["resets_at"] == reset_at and limits[-1]["used_percent"] == 100
    [session] = sessions
    signal = level_one(CodexSessionReader(), CODEX, project, session.stem[-36:], env)
    assert signal is not None and signal.level is LimitLevel.STRUCTURED  # level 1
    assert signal.resets_at == datetime.fromtimestamp(reset_at, UTC)
