"""The rules of an AI profile (FEATURES.md PRF-1, PRF-5), checked in one place.

Called by the profile codec after decoding (so an error points at the key of the file) and
by anything that builds a profile in code (the built-in catalogue, the first-run wizard).
"""

from __future__ import annotations

import re
from typing import NoReturn

from core.agents.errors import InvalidProfile
from core.agents.naming import relative_path_problem
from core.agents.profile import (
    CONTENT,
    CONVERSATION_ID,
    PATH,
    PLACEHOLDERS,
    PROJECT_ROOT,
    RUN_DIR,
    AgentProfile,
    ConfigFile,
    ContextInjection,
    ConventionFile,
    Env,
    Flag,
    McpCapability,
    SessionTemplates,
    split_words,
)

PLACEHOLDER_LIKE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""A `{word}`: a placeholder, or a typo of one (JSON objects never match: they have quotes)."""
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_EVERYWHERE = frozenset({PROJECT_ROOT, RUN_DIR})


def validate_profile(profile: AgentProfile) -> AgentProfile:
    """Check every rule of a profile; return it unchanged when it holds.

    Raises:
        InvalidProfile: The first broken rule, naming the key in its JSON spelling.
    """
    _Checker(profile).run()
    return profile


class _Checker:
    def __init__(self, profile: AgentProfile) -> None:
        self.profile = profile

    def fail(self, key: str, detail: str) -> NoReturn:
        raise InvalidProfile(self.profile.id, key, detail)

    def run(self) -> None:
        p = self.profile
        for key, value in (("id", p.id), ("name", p.name), ("command", p.command)):
            if not value.strip():
                self.fail(key, "must not be empty")
            self.no_nul(key, value)
        for i, arg in enumerate(p.args):
            self.template(f"args[{i}]", arg, _EVERYWHERE)
        if not p.cwd.strip():
            self.fail("cwd", "must not be empty")
        self.template("cwd", p.cwd, _EVERYWHERE)
        self.injection(p.context_injection)
        if p.detect is not None:
            self.words("detect", p.detect)
        if p.session is not None:
            self.session(p.session)
        if p.mcp is not None:
            self.mcp(p.mcp)
        for key, pattern in (
            ("promptReadyPattern", p.prompt_ready_pattern),
            ("rateLimitPattern", p.rate_limit_pattern),
        ):
            if pattern is not None:
                try:
                    re.compile(pattern)
                except re.error as error:
                    self.fail(key, f"not a valid regular expression ({error})")
        if not p.submit_sequence:
            self.fail("submitSequence", "must not be empty (it is what submits a line)")
        if p.submit_delay_ms < 0:
            self.fail("submitDelayMs", "must not be negative")
        for name, value in p.env.items():
            if not ENV_NAME.fullmatch(name):
                self.fail(f"env.{name}", "not a valid environment variable name")
            self.template(f"env.{name}", value, _EVERYWHERE)

    def injection(self, injection: ContextInjection) -> None:
        key = "contextInjection"
        if isinstance(injection, ConventionFile):
            self.relative(f"{key}.target", injection.target)
        elif isinstance(injection, Flag):
            self.flag(f"{key}.flag", injection.flag, _EVERYWHERE | {PATH, CONTENT})
        elif isinstance(injection, Env):
            self.env_var(f"{key}.var", injection.var)

    def session(self, session: SessionTemplates) -> None:
        allowed = _EVERYWHERE | {CONVERSATION_ID}
        for name, words in (("startArgs", session.start_args), ("resumeArgs", session.resume_args)):
            for i, word in enumerate(words):
                self.template(f"session.{name}[{i}]", word, allowed)
        if session.id_known_at_launch and not any(
            "{conversationId}" in word for word in session.start_args
        ):
            self.fail(
                "session.idKnownAtLaunch",
                "true, but session.startArgs does not pass {conversationId}",
            )

    def mcp(self, mcp: McpCapability) -> None:
        if isinstance(mcp.config, ConfigFile):
            self.relative("mcp.config.target", mcp.config.target)
        elif isinstance(mcp.config, Flag):
            self.flag("mcp.config.flag", mcp.config.flag, _EVERYWHERE | {PATH})
        else:
            self.env_var("mcp.config.var", mcp.config.var)

    def relative(self, key: str, path: str) -> None:
        problem = relative_path_problem(path)
        if problem is not None:
            self.fail(key, f"{path!r} is refused: {problem}")

    def env_var(self, key: str, name: str) -> None:
        if not ENV_NAME.fullmatch(name):
            self.fail(key, f"{name!r} is not a valid environment variable name")

    def flag(self, key: str, flag: str, allowed: frozenset[str]) -> None:
        for word in self.words(key, flag):
            self.template(key, word, allowed)

    def words(self, key: str, line: str) -> list[str]:
        try:
            words = split_words(line)
        except ValueError as error:
            self.fail(key, f"cannot be split into words ({error})")
        if not words:
            self.fail(key, "must not be empty")
        return words

    def template(self, key: str, text: str, allowed: frozenset[str]) -> None:
        self.no_nul(key, text)
        for name in PLACEHOLDER_LIKE.findall(text):
            if name not in PLACEHOLDERS:
                known = ", ".join(f"{{{known}}}" for known in PLACEHOLDERS)
                self.fail(key, f"unknown placeholder {{{name}}} (known: {known})")
            if name not in allowed:
                self.fail(key, f"{{{name}}} cannot be used here")

    def no_nul(self, key: str, text: str) -> None:
        if "\x00" in text:
            self.fail(key, "must not contain a NUL character")
