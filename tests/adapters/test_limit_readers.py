"""Level-1 limit readers on files the real CLIs wrote (tests/adapters/fixtures/limits/,
recorded by tests/agents_cli/record_limit_fixtures.py: a usage limit resetting at 18:57 UTC,
then the same conversation resumed and answered after the reset).

The files are written here the way the CLIs write them (a line at a time, a line caught half
written), in the places the CLIs use, and read through the `LimitReader` port.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from adapters.agents.catalogue import builtin_profiles
from adapters.limits import ClaudeTranscriptReader, CodexSessionReader, builtin_readers
from adapters.limits import tail as tail_module
from adapters.limits.claude import project_folder_name
from adapters.limits.tail import JsonlTail
from adapters.store.profiles_codec import decode_profile
from core.agents.profile import AgentProfile
from core.session_limits import LimitLevel, LimitQuery, LimitReader

FIXTURES = Path(__file__).parent / "fixtures" / "limits"
RESET = datetime(2026, 12, 1, 18, 57, tzinfo=UTC)
LAUNCH = datetime(2026, 12, 1, 16, 30, tzinfo=UTC)
CLAUDE_ID = "0f8fad5b-d9cb-469f-a165-70867728950e"
CODEX_ID = "01a23271-18db-7c81-aeab-b03fb1c1d985"
PROFILES = {p["id"]: decode_profile(p, "catalogue") for p in builtin_profiles()}


def fixture_lines(name: str) -> list[str]:
    return (FIXTURES / name).read_text(encoding="utf-8").splitlines(keepends=True)


def split_at_limit(lines: list[str], marker: str) -> tuple[list[str], list[str]]:
    """(the lines up to the limit record, the rest)."""
    at = next(i for i, line in enumerate(lines) if marker in line)
    return lines[: at + 1], lines[at + 1:]


def query(profile: AgentProfile, project: Path, conversation: str, env: dict[str, str],
          since: datetime = LAUNCH) -> LimitQuery:
    return LimitQuery(agent_id="a1", profile=profile, project_root=project,
                      run_dir=project / ".ideai" / "run" / "a1", conversation_id=conversation,
                      since=since, now=LAUNCH + timedelta(minutes=1), env=env)


def append(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as file:
        file.write(text)


def first_answer_after(lines: list[str]) -> datetime:
    """The timestamp of the first normal assistant answer among Claude transcript lines."""
    for line in lines:
        record = json.loads(line)
        if record.get("type") == "assistant" and not record.get("isApiErrorMessage") \
                and not record.get("isSidechain"):
            return datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00"))
    raise AssertionError("no answer in the lines")


# ─── Claude Code ─────────────────────────────────────────────────────────────────────────


@pytest.fixture
def claude_home(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    project = tmp_path / "my_proj.v2"
    project.mkdir()
    home = tmp_path / "home"
    return project, home, {"HOME": str(home)}


def transcript_path(home: Path, project: Path) -> Path:
    folder = project_folder_name(os.path.realpath(project))
    assert folder is not None and "_" not in folder and "." not in folder
    return home / ".claude" / "projects" / folder / f"{CLAUDE_ID}.jsonl"


def test_claude_limit_read_from_the_transcript_with_its_exact_reset(
        claude_home: tuple[Path, Path, dict[str, str]]) -> None:
    project, home, env = claude_home
    reader = ClaudeTranscriptReader()
    path = transcript_path(home, project)
    before, after = split_at_limit(fixture_lines("claude-limit-then-answer.jsonl"),
                                   '"usage_limit_reached"')
    q = query(PROFILES["claude-code"], project, CLAUDE_ID, env)
    assert reader.read(q) is None  # nothing written yet
    append(path, "".join(before))
    signal = reader.read(q)
    assert signal is not None
    assert signal.level is LimitLevel.STRUCTURED and signal.resets_at == RESET
    assert signal.text == "You've hit your limit · resets 6:57pm (UTC)"
    assert signal.source == str(path)
    assert signal.observed_at == datetime(2026, 12, 1, 16, 30, 13, 181000, tzinfo=UTC)
    assert reader.read(q) == signal  # still limited: nothing new
    assert reader.went_on(q) is None  # nothing answered after the limit yet

    append(path, "".join(after))  # resumed after the reset and answered
    assert reader.read(q) is None
    went_on = reader.went_on(q)
    assert went_on is not None and went_on > signal.observed_at
    assert went_on == first_answer_after(after)
    # A new limit record: nothing went on after that one.
    append(path, before[-1])
    assert reader.read(q) is not None and reader.went_on(q) is None
    # A line Claude Code wrote itself (model <synthetic>) is not the model answering.
    [answer] = [line for line in after if '"type":"assistant"' in line]
    record = json.loads(answer)
    record["message"]["model"] = "<synthetic>"
    append(path, json.dumps(record) + "\n")
    assert reader.read(q) is not None and reader.went_on(q) is None


def test_a_limit_seen_only_on_the_screen_went_on_when_the_model_answers_after_it(
        claude_home: tuple[Path, Path, dict[str, str]]) -> None:
    """No limit record in the file (idea saw the limit on the screen alone): an answer
    written after idea learnt of the limit (`since`) is the CLI going on; an answer from
    before it, and the one that ended an earlier limit, are not."""
    project, home, env = claude_home
    reader = ClaudeTranscriptReader()
    path = transcript_path(home, project)
    before, after = split_at_limit(fixture_lines("claude-limit-then-answer.jsonl"),
                                   '"usage_limit_reached"')
    *history, limit_line = before
    [answer] = [line for line in after if '"type":"assistant"' in line]
    answered = first_answer_after([answer])
    noticed = answered - timedelta(seconds=5)
    earlier = answer.replace(f'"{answered.isoformat()[:23]}Z"', '"2026-12-01T16:30:12.000Z"')
    assert earlier != answer
    append(path, "".join(history) + earlier)
    seen_on_screen = query(PROFILES["claude-code"], project, CLAUDE_ID, env, since=noticed)
    assert reader.read(seen_on_screen) is None
    assert reader.went_on(seen_on_screen) is None  # an answer from before the limit
    append(path, answer)
    assert reader.went_on(seen_on_screen) == answered

    # A first limit recorded and got past; a second one seen on the screen only, later: the
    # answer that ended the first is not the second going on.
    append(path, limit_line + answer)
    assert reader.went_on(seen_on_screen) == answered
    second = query(PROFILES["claude-code"], project, CLAUDE_ID, env,
                   since=answered + timedelta(hours=1))
    assert reader.went_on(second) is None


def test_claude_lines_are_read_once_torn_and_corrupt_ones_skipped(
        claude_home: tuple[Path, Path, dict[str, str]]) -> None:
    project, home, env = claude_home
    reader = ClaudeTranscriptReader()
    path = transcript_path(home, project)
    before, _ = split_at_limit(fixture_lines("claude-limit-then-answer.jsonl"),
                               '"usage_limit_reached"')
    q = query(PROFILES["claude-code"], project, CLAUDE_ID, env)
    *history, limit_line = before
    append(path, "".join(history) + '{"type":"assistant","isApiErrorMessage":tr\n'
           + "not json at all \x00\xff\n" + limit_line[:40])
    assert reader.read(q) is None  # the limit line is half written
    append(path, limit_line[40:])
    signal = reader.read(q)
    assert signal is not None and signal.resets_at == RESET
    # Every byte was read exactly once over the three looks.
    [tracked] = reader._tracked.values()
    reader.read(q)
    assert tracked.tail.bytes_read == path.stat().st_size


def test_claude_limit_older_than_the_launch_is_not_reported(
        claude_home: tuple[Path, Path, dict[str, str]]) -> None:
    project, home, env = claude_home
    before, _ = split_at_limit(fixture_lines("claude-limit-then-answer.jsonl"),
                               '"usage_limit_reached"')
    append(transcript_path(home, project), "".join(before))
    later = query(PROFILES["claude-code"], project, CLAUDE_ID, env,
                  since=LAUNCH + timedelta(hours=1))
    assert ClaudeTranscriptReader().read(later) is None


def test_claude_token_login_429_is_a_limit_of_unknown_end(
        claude_home: tuple[Path, Path, dict[str, str]]) -> None:
    """With a token instead of a subscription Claude Code records only `error: rate_limit`
    (tests/agents_cli/test_real_limits.py): limited, the reset unknown."""
    project, home, env = claude_home
    record = {"type": "assistant", "timestamp": "2026-12-01T16:31:00.000Z",
              "isApiErrorMessage": True, "error": "rate_limit", "apiErrorStatus": 429,
              "message": {"content": [{"type": "text", "text":
                                       "API Error: Request rejected (429) · slow down"}]}}
    other = {**record, "error": "overloaded", "timestamp": "2026-12-01T16:32:00.000Z"}
    append(transcript_path(home, project),
           json.dumps(record, separators=(",", ":")) + "\n"
           + json.dumps(other, separators=(",", ":")) + "\n")
    signal = ClaudeTranscriptReader().read(query(PROFILES["claude-code"], project, CLAUDE_ID,
                                                 env))
    assert signal is not None and signal.resets_at is None
    assert signal.text == "API Error: Request rejected (429) · slow down"


def test_claude_config_dir_and_a_long_cwd(tmp_path: Path) -> None:
    before, _ = split_at_limit(fixture_lines("claude-limit-then-answer.jsonl"),
                               '"usage_limit_reached"')
    project = tmp_path / ("deep-" * 45)
    project.mkdir()
    assert project_folder_name(str(project)) is None  # Claude hashes it: found by id
    config = tmp_path / "config"
    append(config / "projects" / "-hashed-name-1x2y" / f"{CLAUDE_ID}.jsonl", "".join(before))
    env = {"HOME": str(tmp_path / "elsewhere"), "CLAUDE_CONFIG_DIR": str(config)}
    signal = ClaudeTranscriptReader().read(query(PROFILES["claude-code"], project, CLAUDE_ID,
                                                 env))
    assert signal is not None and signal.resets_at == RESET


def test_nothing_becomes_a_path_unchecked(
        claude_home: tuple[Path, Path, dict[str, str]]) -> None:
    project, _, env = claude_home
    reader = ClaudeTranscriptReader()
    for conversation in ("../../etc/passwd", "*", "-x", ""):
        assert reader.read(query(PROFILES["claude-code"], project, conversation, env)) is None
    relative = {"CLAUDE_CONFIG_DIR": "relative/config"}
    assert reader.read(query(PROFILES["claude-code"], project, CLAUDE_ID, relative)) is None
    assert reader._tracked == {}


# ─── Codex ───────────────────────────────────────────────────────────────────────────────


def rollout_path(codex_home: Path) -> Path:
    return (codex_home / "sessions" / "2026" / "12" / "01"
            / f"rollout-2026-12-01T16-30-02-{CODEX_ID}.jsonl")


def test_codex_limit_read_from_the_session_file_then_cleared_by_the_answer(
        tmp_path: Path) -> None:
    codex_home = tmp_path / "codex-home"
    env = {"CODEX_HOME": str(codex_home), "HOME": str(tmp_path)}
    reader = CodexSessionReader()
    before, after = split_at_limit(fixture_lines("codex-limit-then-answer.jsonl"),
                                   '"usage_limit_exceeded"')
    q = query(PROFILES["codex"], tmp_path, CODEX_ID, env)
    assert reader.read(q) is None
    append(rollout_path(codex_home), "".join(before))
    signal = reader.read(q)
    assert signal is not None and signal.level is LimitLevel.STRUCTURED
    assert signal.resets_at == RESET  # rate_limits.primary.resets_at, the window at 100 %
    assert signal.text.startswith("You’ve hit your usage limit.")
    assert signal.text.endswith("try again at 6:57 PM.")
    assert reader.went_on(q) is None
    append(rollout_path(codex_home), "".join(after))
    assert reader.read(q) is None
    went_on = reader.went_on(q)
    assert went_on is not None and signal.observed_at is not None
    assert went_on > signal.observed_at
    # Asked for what came after a later (re)launch, an older answer is not news.
    assert reader.went_on(query(PROFILES["codex"], tmp_path, CODEX_ID, env,
                                since=went_on + timedelta(seconds=1))) is None


@pytest.mark.parametrize(("zone", "expected"), [
    ("UTC", RESET), ("Europe/Paris", RESET - timedelta(hours=1))])
def test_codex_reset_from_the_message_when_no_window_says(
        tmp_path: Path, zone: str, expected: datetime) -> None:
    """Without the rate-limit headers' windows, the message's local time is read with the
    profile's pattern, in the CLI's zone ("6:57 PM" in Paris is 17:57 UTC)."""
    codex_home = tmp_path / "codex-home"
    before, _ = split_at_limit(fixture_lines("codex-limit-then-answer.jsonl"),
                               '"usage_limit_exceeded"')
    append(rollout_path(codex_home),
           "".join(line for line in before if '"token_count"' not in line))
    env = {"CODEX_HOME": str(codex_home), "TZ": zone}
    signal = CodexSessionReader().read(query(PROFILES["codex"], tmp_path, CODEX_ID, env))
    assert signal is not None and signal.resets_at == expected


def test_readers_apply_to_their_cli_only(tmp_path: Path) -> None:
    readers: list[LimitReader] = list(builtin_readers())
    names = {reader.name: [p for p in PROFILES if reader.applies(PROFILES[p])]
             for reader in readers}
    assert names == {"claude-transcript": ["claude-code"], "codex-session": ["codex"]}
    before, _ = split_at_limit(fixture_lines("codex-limit-then-answer.jsonl"),
                               '"usage_limit_exceeded"')
    append(rollout_path(tmp_path / "c"), "".join(before))
    q = query(PROFILES["claude-code"], tmp_path, CODEX_ID, {"CODEX_HOME": str(tmp_path / "c")})
    assert CodexSessionReader().read(q) is None  # a Claude agent: not Codex's business


# ─── the tail itself ─────────────────────────────────────────────────────────────────────


def test_tail_starts_over_on_a_replaced_or_truncated_file(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text('{"a":1}\n{"a":2}\n')
    tail = JsonlTail(path)
    assert list(tail.new_lines()) == [b'{"a":1}', b'{"a":2}']
    replacement = tmp_path / "new.jsonl"
    replacement.write_text('{"b":1}\n')
    replacement.replace(path)  # another inode at the same path
    assert list(tail.new_lines()) == [b'{"b":1}']
    path.write_text("")  # truncated in place
    assert list(tail.new_lines()) == []
    append(path, '{"c":1}\n')
    assert list(tail.new_lines()) == [b'{"c":1}']
    path.unlink()
    assert list(tail.new_lines()) == []  # gone: nothing, no error


def test_tail_first_look_at_a_big_file_and_overlong_lines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tail_module, "FIRST_LOOK_BYTES", 100)
    monkeypatch.setattr(tail_module, "MAX_LINE_BYTES", 50)
    path = tmp_path / "big.jsonl"
    path.write_text("".join(f'{{"old":{i}}}\n' for i in range(1000)) + '{"last":1}\n')
    tail = JsonlTail(path)
    lines = list(tail.new_lines())
    assert lines[-1] == b'{"last":1}' and len(lines) < 12  # only the end, whole lines
    assert all(line.startswith(b'{"old":') or line == b'{"last":1}' for line in lines)
    assert tail.bytes_read == 100
    append(path, '{"long":"' + "x" * 80 + '"}\n{"after":1}\n')
    assert list(tail.new_lines()) == [b'{"after":1}']
    append(path, '{"long":"' + "y" * 30)
    append(path, "y" * 30)
    append(path, '"}\n{"next":1}\n')  # an overlong line arriving in pieces
    assert list(tail.new_lines()) == [b'{"next":1}']
