"""The global `profiles.json` and `idea profile add FILE.json`, on real files (§3.3, FRW-1)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.store.profiles_codec import (
    ProfileStore,
    decode_profile,
    decode_profiles,
    encode_profile,
    encode_profiles,
)
from core.agents.errors import DuplicateProfile, InvalidProfile, ProfileNotFound
from core.agents.profile import (
    SEED_CLAUDE_ID,
    AgentProfile,
    ConfigFile,
    ConventionFile,
    Env,
    Flag,
    McpCapability,
    McpTransport,
    SessionTemplates,
    Stdin,
)
from core.errors import CorruptFile, FileAccessError, NewerVersion

# Verbatim from FEATURES.md §3.3 ([000 CONTEXT.md §9]).
SEED_PROFILE: dict[str, Any] = {
    "id": "claude-code",
    "name": "Claude Code",
    "command": "claude",
    "args": [],
    "contextInjection": {"strategy": "conventionFile", "target": "CLAUDE.md"},
    "detect": "claude --version",
    "cwd": "{projectRoot}",
}

FULL_PROFILE: dict[str, Any] = {
    "id": "codex-cli",
    "name": "Codex",
    "command": "codex",
    "args": ["-c", 'mcp_servers.idea.command="idea"'],
    "contextInjection": {"strategy": "flag", "flag": "--context {path}", "future": 1},
    "detect": "codex --version",
    "cwd": "{projectRoot}",
    "session": {
        "startArgs": [],
        "resumeArgs": ["resume", "{conversationId}"],
        "idKnownAtLaunch": False,
        "note": "id discovered after launch",
    },
    "mcp": {"config": {"strategy": "env", "var": "IDEA_MCP"}, "transport": "http", "x": 2},
    "promptReadyPattern": "^› ",
    "rateLimitPattern": "try again at (?P<time>\\d+:\\d+)",
    "submitSequence": "\n",
    "submitDelayMs": 120,
    "env": {"CODEX_HOME": "/tmp/codex"},
    "structuredAdapter": {"kind": "historic"},
}


def test_the_seed_profile_decodes_and_encodes_back_unchanged() -> None:
    profile = decode_profile(copy.deepcopy(SEED_PROFILE), "profiles.json")
    assert profile == AgentProfile(
        "claude-code",
        "Claude Code",
        "claude",
        ConventionFile("CLAUDE.md"),
        detect="claude --version",
    )
    assert encode_profile(profile) == SEED_PROFILE


def test_every_optional_block_and_unknown_key_round_trips() -> None:
    profile = decode_profile(copy.deepcopy(FULL_PROFILE), "profiles.json")
    assert profile.context_injection == Flag("--context {path}")
    assert profile.session == SessionTemplates((), ("resume", "{conversationId}"), False)
    assert profile.mcp == McpCapability(Env("IDEA_MCP"), McpTransport.HTTP)
    assert (profile.submit_sequence, profile.submit_delay_ms) == ("\n", 120)
    assert profile.extra == {"structuredAdapter": {"kind": "historic"}}
    assert encode_profile(profile) == FULL_PROFILE


def test_the_seed_session_flags_are_read_as_templates() -> None:
    data = {**SEED_PROFILE, "session": {"assignFlag": "--session-id", "resumeFlag": "--resume"}}
    profile = decode_profile(data, "profiles.json")
    assert profile.session == SessionTemplates(
        ("--session-id", "{conversationId}"), ("--resume", "{conversationId}"), True
    )
    assert encode_profile(profile)["session"] == {
        "startArgs": ["--session-id", "{conversationId}"],
        "resumeArgs": ["--resume", "{conversationId}"],
        "idKnownAtLaunch": True,
    }


def test_defaults_and_nulls() -> None:
    data = {
        "id": "x",
        "name": "X",
        "command": "x",
        "contextInjection": {"strategy": "stdin"},
        "promptReadyPattern": None,
        "submitDelayMs": 60,
        "mcp": None,
    }
    profile = decode_profile(data, "p.json")
    assert profile == AgentProfile("x", "X", "x", Stdin())
    assert encode_profile(profile) == {
        "id": "x",
        "name": "X",
        "command": "x",
        "args": [],
        "contextInjection": {"strategy": "stdin"},
        "cwd": "{projectRoot}",
    }
    with_mcp = {**data, "mcp": {"config": {"strategy": "configFile", "target": ".mcp.json"}}}
    assert decode_profile(with_mcp, "p.json").mcp == McpCapability(ConfigFile(".mcp.json"))


def test_a_bare_array_is_read_and_the_wrapped_form_written() -> None:
    profiles = decode_profiles([SEED_PROFILE, FULL_PROFILE])
    assert [p.id for p in profiles] == ["claude-code", "codex-cli"]
    assert encode_profiles(profiles) == {"version": 1, "profiles": [SEED_PROFILE, FULL_PROFILE]}


def _with(**changes: Any) -> dict[str, Any]:
    return {**copy.deepcopy(SEED_PROFILE), **changes}


@pytest.mark.parametrize(
    ("profile", "location"),
    [
        (_with(command=""), "profiles[0].command: must not be empty"),
        (_with(id=None), "profiles[0].id: expected a string, found null"),
        (
            _with(contextInjection={"strategy": "conventionFile", "target": "../CLAUDE.md"}),
            "profiles[0].contextInjection.target: '../CLAUDE.md' is refused: it must not contain",
        ),
        (
            _with(contextInjection={"strategy": "conventionFile", "target": "/etc/CLAUDE.md"}),
            "profiles[0].contextInjection.target: '/etc/CLAUDE.md' is refused: it must be relative",
        ),
        (
            _with(contextInjection={"strategy": "pipe"}),
            "profiles[0].contextInjection.strategy: unknown strategy 'pipe'",
        ),
        (
            _with(contextInjection={"strategy": "flag"}),
            "profiles[0].contextInjection.flag: missing",
        ),
        (_with(contextInjection=None), "profiles[0].contextInjection: expected an object"),
        (_with(args="--yes"), "profiles[0].args: expected an array"),
        (_with(args=["ok", 3]), "profiles[0].args[1]: expected a string"),
        (_with(env={"A": 1}), "profiles[0].env.A: expected a string"),
        (_with(session={"startArgs": "x"}), "profiles[0].session.startArgs: expected an array"),
        (_with(session={"resumeFlag": "--r 'x"}), "profiles[0].session: assignFlag or resumeFlag"),
        (
            _with(mcp={"config": {"strategy": "configFile", "target": "../x"}}),
            "profiles[0].mcp.config.target",
        ),
        (
            _with(mcp={"config": {"strategy": "stdin"}}),
            "profiles[0].mcp.config.strategy: unknown strategy 'stdin'",
        ),
        (
            _with(mcp={"config": {"strategy": "env", "var": "X"}, "transport": "pigeon"}),
            "profiles[0].mcp.transport: unknown transport 'pigeon'",
        ),
        (_with(promptReadyPattern="(x"), "profiles[0].promptReadyPattern: not a valid regular"),
        (_with(submitDelayMs=-5), "profiles[0].submitDelayMs: must not be negative"),
    ],
)
def test_invalid_profiles_name_the_file_and_key(profile: dict[str, Any], location: str) -> None:
    with pytest.raises(CorruptFile) as caught:
        decode_profiles({"version": 1, "profiles": [profile]}, "/d/profiles.json")
    assert f"/d/profiles.json cannot be read: {location}" in caught.value.message


def test_duplicate_ids_in_a_file_are_refused() -> None:
    with pytest.raises(CorruptFile, match=r"profiles\[1\]\.id: the id 'claude-code' is used twice"):
        decode_profiles({"profiles": [SEED_PROFILE, SEED_PROFILE]})


# ─── The store ───────────────────────────────────────────────────────────────────────────


@pytest.fixture
def store(tmp_path: Path) -> ProfileStore:
    return ProfileStore(tmp_path / "data" / "idea")


def claude() -> AgentProfile:
    return decode_profile(copy.deepcopy(SEED_PROFILE), "x")


def test_exists_only_after_a_save_even_an_empty_one(store: ProfileStore) -> None:
    assert not store.exists() and store.load() == []
    store.save([])  # the first-run wizard was skipped
    assert store.exists()
    assert json.loads(store.path.read_text()) == {"version": 1, "profiles": []}


def test_save_load_get_update_remove(store: ProfileStore) -> None:
    store.save([claude()])
    assert store.load() == [claude()]
    assert store.get(SEED_CLAUDE_ID) == claude()  # the seed's id is an alias (D23)
    edited = AgentProfile("claude-code", "Claude", "/opt/claude", ConventionFile("CLAUDE.md"))
    store.update(edited)
    assert store.get("claude-code").command == "/opt/claude"
    assert store.remove("claude-code") == edited
    assert store.load() == []
    with pytest.raises(ProfileNotFound):
        store.get("claude-code")
    with pytest.raises(ProfileNotFound):
        store.update(edited)
    with pytest.raises(ProfileNotFound):
        store.remove("claude-code")


def test_save_refuses_invalid_or_duplicate_profiles_and_writes_nothing(
    store: ProfileStore,
) -> None:
    with pytest.raises(InvalidProfile):
        store.save([AgentProfile("x", "X", "", Stdin())])
    with pytest.raises(DuplicateProfile):
        store.save([claude(), claude()])
    assert not store.exists()


def test_unknown_top_level_keys_survive_a_save(store: ProfileStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text(json.dumps({"version": 1, "profiles": [], "defaultId": "claude-code"}))
    store.add(claude())
    assert json.loads(store.path.read_text())["defaultId"] == "claude-code"


def test_add_profile_from_a_file(store: ProfileStore, tmp_path: Path) -> None:
    source = tmp_path / "codex.json"
    source.write_text(json.dumps(FULL_PROFILE))
    added = store.add_profile_from_file(source)
    assert added.id == "codex-cli" and store.load() == [added]
    with pytest.raises(DuplicateProfile):
        store.add_profile_from_file(source)


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        ("{oops", "invalid JSON at line 1"),
        (json.dumps(_with(cwd="{root}")), "cwd: unknown placeholder {root}"),
        (json.dumps([SEED_PROFILE]), "top level: expected an object, found an array"),
    ],
)
def test_a_bad_profile_file_names_the_file_and_key(
    store: ProfileStore, tmp_path: Path, content: str, detail: str
) -> None:
    source = tmp_path / "mine.json"
    source.write_text(content)
    with pytest.raises(CorruptFile) as caught:
        store.add_profile_from_file(source)
    assert str(source) in caught.value.message and detail in caught.value.message
    assert not store.exists()


def test_a_missing_profile_file_is_a_clear_error(store: ProfileStore, tmp_path: Path) -> None:
    with pytest.raises(FileAccessError, match="no such file"):
        store.add_profile_from_file(tmp_path / "absent.json")


@pytest.mark.parametrize(
    "content",
    [b"[", b'{"version": 9, "profiles": []}', b'{"profiles": [{"id": "x"}]}'],
)
def test_corrupt_and_newer_files_are_left_untouched(store: ProfileStore, content: bytes) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(content)
    assert store.exists()  # the wizard must not appear and replace it
    with pytest.raises((CorruptFile, NewerVersion)):
        store.load()
    with pytest.raises((CorruptFile, NewerVersion)):
        store.save([claude()])
    with pytest.raises((CorruptFile, NewerVersion)):
        store.add(claude())
    assert store.path.read_bytes() == content


@settings(deadline=None, max_examples=80)
@given(
    st.lists(st.sampled_from(["--x", "{projectRoot}", "{runDir}", "a b"]), max_size=4),
    st.sampled_from([ConventionFile("CLAUDE.md"), Flag("-f"), Stdin(), Env("CTX")]),
    st.one_of(
        st.none(),
        st.builds(
            SessionTemplates,
            st.just(("--id", "{conversationId}")),
            st.just(("--resume", "{conversationId}")),
            st.booleans(),
        ),
    ),
    st.text(alphabet="\r\n\x1b", min_size=1, max_size=3),
    st.integers(0, 5000),
)
def test_profiles_round_trip(
    args: list[str], injection: Any, session: SessionTemplates | None, submit: str, delay: int
) -> None:
    profile = AgentProfile(
        "p",
        "P",
        "cli",
        injection,
        tuple(args),
        session=session,
        submit_sequence=submit,
        submit_delay_ms=delay,
    )
    decoded = decode_profiles(json.loads(json.dumps(encode_profiles([profile]))))
    assert decoded == [profile]
