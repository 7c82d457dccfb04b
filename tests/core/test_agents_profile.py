"""AI profiles: validation (PRF-1, PRF-5), aliases (D23) and argv rendering (D19, D20)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.agents.argv import (
    MAX_ARG_BYTES,
    command_line,
    detect_argv,
    flag_words,
    render,
    render_args,
    render_cwd,
    render_env,
)
from core.agents.errors import InvalidProfile, PlaceholderError
from core.agents.profile import (
    CLAUDE_CODE_ID,
    SEED_CLAUDE_ID,
    AgentProfile,
    ConfigFile,
    ConventionFile,
    Env,
    Flag,
    McpCapability,
    SessionMode,
    SessionTemplates,
    Stdin,
    canonical_profile_id,
    find_profile,
)
from core.agents.profile_rules import validate_profile

VALUES = {
    "projectRoot": "/home/me/My Project",
    "runDir": "/home/me/My Project/.ideai/run/a1",
    "path": "/home/me/My Project/.ideai/run/a1/context.md",
    "content": "# Project root\n\n/home/me/My Project\n",
}


def claude_like(**changes: object) -> AgentProfile:
    profile = AgentProfile(
        id="claude-code",
        name="Claude Code",
        command="claude",
        context_injection=Flag("--append-system-prompt {content}"),
        args=("--add-dir", "{projectRoot}"),
        detect="claude --version",
        session=SessionTemplates(
            ("--session-id", "{conversationId}"), ("--resume", "{conversationId}"), True
        ),
        mcp=McpCapability(ConfigFile(".mcp.json")),
    )
    return replace(profile, **changes)  # type: ignore[arg-type]


def codex_like() -> AgentProfile:
    return AgentProfile(
        id="codex-cli",
        name="Codex",
        command="codex",
        context_injection=ConventionFile("AGENTS.md"),
        session=SessionTemplates((), ("resume", "{conversationId}"), False),
    )


# ─── Validation ──────────────────────────────────────────────────────────────────────────


def test_reference_like_profiles_are_valid() -> None:
    assert validate_profile(claude_like()) == claude_like()
    validate_profile(codex_like())
    validate_profile(AgentProfile("x", "X", "x", Stdin()))
    validate_profile(AgentProfile("x", "X", "x", Env("AGENT_CONTEXT_FILE")))


@pytest.mark.parametrize(
    ("changes", "key", "detail"),
    [
        ({"id": " "}, "id", "empty"),
        ({"name": ""}, "name", "empty"),
        ({"command": ""}, "command", "empty"),
        ({"context_injection": ConventionFile("../CLAUDE.md")}, "contextInjection.target", ".."),
        (
            {"context_injection": ConventionFile("/tmp/CLAUDE.md")},
            "contextInjection.target",
            "relative",
        ),
        ({"context_injection": ConventionFile("")}, "contextInjection.target", "empty"),
        ({"context_injection": Flag("  ")}, "contextInjection.flag", "empty"),
        ({"context_injection": Flag("--x 'open")}, "contextInjection.flag", "split"),
        (
            {"context_injection": Flag("--ctx {conversationId}")},
            "contextInjection.flag",
            "cannot be used here",
        ),
        ({"context_injection": Env("1BAD")}, "contextInjection.var", "environment variable"),
        ({"context_injection": Env("A-B")}, "contextInjection.var", "environment variable"),
        ({"args": ("--root", "{projectroot}")}, "args[1]", "unknown placeholder {projectroot}"),
        ({"args": ("{content}",)}, "args[0]", "cannot be used here"),
        ({"args": ("a\x00b",)}, "args[0]", "NUL"),
        ({"cwd": ""}, "cwd", "empty"),
        ({"cwd": "{path}"}, "cwd", "cannot be used here"),
        ({"detect": "claude '--version"}, "detect", "split"),
        ({"detect": ""}, "detect", "empty"),
        (
            {"session": SessionTemplates((), ("--resume", "{conversationId}"), True)},
            "session.idKnownAtLaunch",
            "startArgs",
        ),
        ({"session": SessionTemplates(("--id", "{path}"))}, "session.startArgs[1]", "here"),
        ({"mcp": McpCapability(ConfigFile("../.mcp.json"))}, "mcp.config.target", ".."),
        ({"mcp": McpCapability(Flag("--mcp {content}"))}, "mcp.config.flag", "here"),
        ({"mcp": McpCapability(Env("no way"))}, "mcp.config.var", "environment"),
        ({"prompt_ready_pattern": "(unclosed"}, "promptReadyPattern", "regular expression"),
        ({"rate_limit_pattern": "[z-a]"}, "rateLimitPattern", "regular expression"),
        ({"submit_sequence": ""}, "submitSequence", "empty"),
        ({"submit_delay_ms": -1}, "submitDelayMs", "negative"),
        ({"env": {"BAD NAME": "x"}}, "env.BAD NAME", "environment variable"),
        ({"env": {"HOME_X": "{content}"}}, "env.HOME_X", "cannot be used here"),
    ],
)
def test_broken_rules_name_the_key(changes: dict[str, object], key: str, detail: str) -> None:
    with pytest.raises(InvalidProfile) as caught:
        validate_profile(claude_like(**changes))
    assert caught.value.key == key
    assert detail in caught.value.detail
    assert caught.value.message.startswith("Profile ")
    assert f": {key}: {caught.value.detail}" in caught.value.message


def test_a_profile_without_id_is_named_as_such() -> None:
    with pytest.raises(InvalidProfile, match=r"^Profile \(no id\): id: must not be empty"):
        validate_profile(claude_like(id="  "))


def test_json_in_an_argument_is_not_taken_for_a_placeholder() -> None:
    profile = claude_like(args=("--mcp-config", '{"mcpServers": {}}'))
    validate_profile(profile)
    assert render_args(profile, VALUES)[1] == '{"mcpServers": {}}'


# ─── Aliases ─────────────────────────────────────────────────────────────────────────────


def test_the_seed_claude_id_is_an_alias_of_claude_code() -> None:
    assert canonical_profile_id(SEED_CLAUDE_ID) == CLAUDE_CODE_ID
    assert canonical_profile_id("codex-cli") == "codex-cli"
    profiles = [codex_like(), claude_like()]
    assert find_profile(profiles, SEED_CLAUDE_ID) == claude_like()
    assert find_profile(profiles, "codex-cli") == codex_like()
    assert find_profile(profiles, "gemini") is None


def test_an_exact_id_wins_over_the_alias() -> None:
    imported = claude_like(id=SEED_CLAUDE_ID, name="Imported")
    found = find_profile([claude_like(), imported], SEED_CLAUDE_ID)
    assert found is not None and found.name == "Imported"


# ─── Rendering ───────────────────────────────────────────────────────────────────────────


def test_claude_like_fresh_start_with_a_known_session_id() -> None:
    values = {**VALUES, "conversationId": "c0ffee"}
    argv = command_line(claude_like(), values, session=SessionMode.START)
    assert argv == [
        "claude",
        "--session-id",
        "c0ffee",
        "--add-dir",
        "/home/me/My Project",
        "--append-system-prompt",
        VALUES["content"],  # one word, spaces and newlines included
    ]


def test_codex_like_resume_puts_the_subcommand_first() -> None:
    values = {**VALUES, "conversationId": "019a-77"}
    assert command_line(codex_like(), values, session=SessionMode.RESUME) == [
        "codex",
        "resume",
        "019a-77",
    ]
    # Codex cannot be given an id: a START adds nothing.
    assert command_line(codex_like(), values, session=SessionMode.START) == ["codex"]


def test_session_none_and_profiles_without_session_add_nothing() -> None:
    assert "--resume" not in render_args(claude_like(), VALUES)
    plain = claude_like(session=None)
    assert render_args(plain, VALUES, session=SessionMode.RESUME) == render_args(plain, VALUES)


def test_a_flag_without_placeholder_gets_the_path_appended() -> None:
    assert flag_words("-f", VALUES) == ["-f", VALUES["path"]]
    assert flag_words("--context-file={path}", VALUES) == [f"--context-file={VALUES['path']}"]
    assert flag_words("--read '{path}' --yes", VALUES) == ["--read", VALUES["path"], "--yes"]


def test_only_the_flag_strategy_adds_arguments() -> None:
    for injection in (ConventionFile("CLAUDE.md"), Stdin(), Env("CTX")):
        assert render_args(claude_like(context_injection=injection, args=()), VALUES) == []


def test_the_mcp_flag_takes_its_own_path() -> None:
    profile = claude_like(
        context_injection=Stdin(),
        args=(),
        mcp=McpCapability(Flag("--mcp-config {path} --strict-mcp-config")),
    )
    argv = render_args(profile, VALUES, mcp_path="/run/.mcp.json")
    assert argv == ["--mcp-config", "/run/.mcp.json", "--strict-mcp-config"]
    # Its {path} is never the context file's.
    with pytest.raises(PlaceholderError, match=r"\{path\}"):
        render_args(profile, VALUES)


def test_substitution_is_a_single_pass() -> None:
    # A value that itself contains a placeholder is never expanded again.
    values = {**VALUES, "content": "use {path} and {projectRoot}"}
    assert render("{content}", values) == "use {path} and {projectRoot}"


def test_missing_and_unusable_values_are_errors() -> None:
    with pytest.raises(PlaceholderError, match="conversationId"):
        render_args(claude_like(), VALUES, session=SessionMode.RESUME)
    with pytest.raises(PlaceholderError, match="NUL"):
        render("{content}", {**VALUES, "content": "a\x00b"})
    with pytest.raises(PlaceholderError, match="no program can receive"):
        render("{content}", {**VALUES, "content": "\ud800"})
    assert render("{content}", {**VALUES, "content": "\udcff"}) == "\udcff"  # a raw byte
    with pytest.raises(PlaceholderError, match="128 KiB"):
        render("{content}", {**VALUES, "content": "x" * MAX_ARG_BYTES})


def test_environment_of_a_launch() -> None:
    profile = claude_like(
        context_injection=Env("AGENT_CONTEXT_FILE"),
        mcp=McpCapability(Env("IDEA_MCP_CONFIG")),
        env={"CODEX_HOME": "{runDir}/codex", "PLAIN": "x"},
    )
    validate_profile(profile)
    assert render_env(profile, VALUES, mcp_path="/run/mcp.json") == {
        "CODEX_HOME": f"{VALUES['runDir']}/codex",
        "PLAIN": "x",
        "AGENT_CONTEXT_FILE": VALUES["path"],
        "IDEA_MCP_CONFIG": "/run/mcp.json",
    }
    assert render_env(claude_like(), VALUES) == {}  # flag and config file add no variables
    with pytest.raises(PlaceholderError, match="path"):
        render_env(profile, VALUES)


def test_cwd_and_detect() -> None:
    assert render_cwd(claude_like(), VALUES) == "/home/me/My Project"
    assert render_cwd(claude_like(cwd="{runDir}"), VALUES) == VALUES["runDir"]
    assert detect_argv(claude_like()) == ["claude", "--version"]
    assert detect_argv(claude_like(detect=None)) is None


def test_seed_session_flags_become_templates() -> None:
    session = SessionTemplates.from_seed_flags("--session-id", "--resume")
    assert session == SessionTemplates(
        ("--session-id", "{conversationId}"), ("--resume", "{conversationId}"), True
    )
    assert session.resume_supported
    only_resume = SessionTemplates.from_seed_flags(None, "resume {conversationId} --yes")
    assert only_resume.resume_args == ("resume", "{conversationId}", "--yes")
    assert not only_resume.id_known_at_launch
    assert not SessionTemplates.from_seed_flags(None, " ").resume_supported


@settings(deadline=None)
@given(
    st.text(
        alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=["Cs"]),
        max_size=200,
    )
)
def test_any_content_is_passed_as_exactly_one_word(content: str) -> None:
    argv = render_args(claude_like(args=()), {**VALUES, "content": content})
    assert argv == ["--append-system-prompt", content]
