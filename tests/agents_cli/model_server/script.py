"""What the scripted model answers: rules "when the newest input contains X, reply Y".

A test gives the server a `Script`. Each model request (Anthropic Messages or OpenAI
Responses, both decoded into one `ModelRequest`) is matched against the rules in order; the
first rule that still has uses left and whose `when` holds answers it. Rules match the
request's *newest* input (the user's last message or the tool results just sent back), not
the whole conversation, since every later request repeats the history: "when the task
arrives, call idea_reply" must fire once, not on every following request.

Side requests (no tools offered: Claude Code's session titles and summaries) never consume a
rule; they get `SIDE_TEXT`. A request no rule matches gets the script's `fallback` text.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

SIDE_TEXT = "Scripted title"
FALLBACK_TEXT = "Done."


@dataclass(frozen=True)
class Text:
    """Assistant text."""

    text: str


@dataclass(frozen=True)
class ToolCall:
    """A call of a tool the CLI offers by its own name (Claude's `Bash`, Codex's `shell`)."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class McpCall:
    """A call of tool `tool` of MCP server `server`, named as each CLI expects:
    `mcp__<server>__<tool>` for Claude Code, the `mcp__<server>` namespace for Codex."""

    server: str
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class UsageLimit:
    """Answer like the provider does when the account is at a usage limit (HTTP 429).

    `resets_at` is the reset time in epoch seconds; `message` the error text the body
    carries. `wire.py` turns it into each API's headers and body.
    """

    resets_at: int
    message: str = "You have reached your usage limit."


@dataclass(frozen=True)
class Held:
    """`reply`, sent only once `release()` is true (polled; at most `timeout` seconds): a
    model that takes its time, for the long-call scenarios. The CLI sees a request that
    has not been answered yet, as with a slow provider."""

    reply: Sequence[Part]
    release: Callable[[], bool]
    timeout: float = 600.0


class LimitWindow:
    """The account is at its usage limit until the reset: while the window is open every
    request, side requests included (a real provider refuses those too), is answered with
    the provider's limit response; once `clock()` reaches `resets_at`, or `lift()` is
    called (a test that does not want to wait for the wall clock), the script's rules
    answer again, as after a real reset. `refused` counts the requests it turned away."""

    def __init__(self, resets_at: int, message: str, clock: Callable[[], float]) -> None:
        self.limit = UsageLimit(resets_at, message)
        self.clock = clock
        self.refused = 0
        self._lifted = threading.Event()

    @property
    def resets_at(self) -> int:
        return self.limit.resets_at

    @property
    def open(self) -> bool:
        return not self._lifted.is_set() and self.clock() < self.limit.resets_at

    def lift(self) -> None:
        """The reset happened (whatever the clock says)."""
        self._lifted.set()


Part = Text | ToolCall | McpCall
Reply = Sequence[Part] | UsageLimit | Held
Responder = Reply | Callable[["ModelRequest"], Reply]


@dataclass
class ModelRequest:
    """One request to the model, decoded from either API."""

    api: str
    """"anthropic" or "openai"."""
    path: str
    headers: dict[str, str]
    body: Any
    system: str
    """The system prompt (Anthropic `system`) or instructions (OpenAI `instructions` and
    developer messages), as one text."""
    latest: str
    """The newest input: the text of the last user message, tool results included."""
    tools: list[str]
    """Names of the tools offered (Codex namespaces as `mcp__idea`)."""
    rule: str | None = None
    """Which rule answered (its `name`), None for side requests and fallbacks."""

    @property
    def text(self) -> str:
        """The whole body as JSON text, for "does the request mention X" checks."""
        return json.dumps(self.body, ensure_ascii=False)

    @property
    def side(self) -> bool:
        return not self.tools


Condition = str | Callable[[ModelRequest], bool]


@dataclass
class Rule:
    when: Condition
    """A regex searched in `latest`, or a predicate on the request."""
    reply: Responder
    times: int | None = 1
    """How many requests it answers; None for any number."""
    name: str = ""
    system: str | None = None
    """A regex the request's system prompt must match too: which agent is asking, when
    several CLIs share the server (each agent's persona is in its system prompt)."""

    def matches(self, request: ModelRequest) -> bool:
        if self.times is not None and self.times <= 0:
            return False
        if self.system is not None and re.search(self.system, request.system) is None:
            return False
        if callable(self.when):
            return self.when(request)
        return re.search(self.when, request.latest) is not None


class Script:
    """The rules of one test; thread-safe (the server answers from its own thread)."""

    def __init__(self, rules: Sequence[Rule] = (), *, fallback: str = FALLBACK_TEXT) -> None:
        self.rules = list(rules)
        self.fallback = fallback
        self.windows: list[LimitWindow] = []
        self._lock = threading.Lock()

    def limit_until(self, resets_at: int, message: str = "You have reached your usage limit.",
                    *, clock: Callable[[], float] = time.time) -> LimitWindow:
        """From now until `resets_at` (epoch seconds) the account is at its usage limit."""
        window = LimitWindow(resets_at, message, clock)
        with self._lock:
            self.windows.append(window)
        return window

    def add(self, when: Condition, reply: Responder, *, times: int | None = 1,
            name: str = "", system: str | None = None) -> Rule:
        rule = Rule(when, reply, times, name or (when if isinstance(when, str) else "rule"),
                    system)
        with self._lock:
            self.rules.append(rule)
        return rule

    def answer(self, request: ModelRequest) -> Reply:
        with self._lock:
            window = next((w for w in self.windows if w.open), None)
            if window is not None:
                window.refused += 1
                request.rule = "limit-window"
                return window.limit
        if request.side:
            return [Text(SIDE_TEXT)]
        with self._lock:
            rule = next((r for r in self.rules if r.matches(request)), None)
            if rule is None:
                return [Text(self.fallback)]
            if rule.times is not None:
                rule.times -= 1
        request.rule = rule.name
        return rule.reply(request) if callable(rule.reply) else rule.reply
