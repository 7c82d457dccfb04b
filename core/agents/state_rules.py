"""Is an agent free? A declarative, per-profile state detector (DLG-6, DLG-9, D27).

The rules are data in the profile (`"state"` block, versioned), never code per vendor; they
read what the daemon already sees: the OSC title, the screen, how long the CLI has been
quiet. The verdict names the rule and the screen line that decided it, so a CLI update
that breaks detection is diagnosable (`idea agent state NAME --explain`).

    "state": {
      "version": 1,
      "workingTitle":  ["^[⠁-⣿]"],            # Claude Code's spinner in the title
      "workingScreen": ["esc to interrupt"],
      "blockedScreen": ["Do you want to proceed\\?"],
      "idleScreen":    ["^❯(?: |$)"],         # default: the profile's promptReadyPattern
      "composerEmpty": ["^❯\\s*$"],           # optional: the input box holds no draft
      "quietMs": 800                           # idle needs this much silence
    }

Order: exited, blocked, working (title, then screen), idle (a prompt after a quiet spell;
with no idle pattern, the quiet spell alone), else starting until the agent was once idle,
then working: when in doubt an agent is busy (DLG-6), and a task waits rather than lands in
the middle of a turn.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

STATES = ("starting", "idle", "working", "blocked", "exited")
DEFAULT_QUIET_MS = 800
RULES_VERSION = 1


class StateRulesError(ValueError):
    """A profile's state block cannot be used; the message names the key."""


@dataclass(frozen=True, slots=True)
class StateRules:
    working_title: tuple[re.Pattern[str], ...] = ()
    working_screen: tuple[re.Pattern[str], ...] = ()
    blocked_screen: tuple[re.Pattern[str], ...] = ()
    idle_screen: tuple[re.Pattern[str], ...] = ()
    composer_empty: tuple[re.Pattern[str], ...] = ()
    quiet_ms: int = DEFAULT_QUIET_MS


def _patterns(data: Mapping[str, Any], key: str) -> tuple[re.Pattern[str], ...]:
    value = data.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise StateRulesError(f"state.{key} must be a list of regular expressions")
    compiled = []
    for text in value:
        try:
            compiled.append(re.compile(text))
        except re.error as exc:
            raise StateRulesError(f"state.{key}: {text!r} is not a valid regex ({exc})") from exc
    return tuple(compiled)


def parse_rules(block: Any, prompt_ready_pattern: str | None = None) -> StateRules:
    """The rules of a profile's `state` block (None/absent: prompt pattern and quiet only).

    Raises:
        StateRulesError: A value has the wrong type or a regex does not compile.
    """
    data: Mapping[str, Any] = {} if block is None else block
    if not isinstance(data, Mapping):
        raise StateRulesError("state must be an object")
    version = data.get("version", RULES_VERSION)
    if not isinstance(version, int) or version > RULES_VERSION:
        raise StateRulesError(f"state.version {version!r} is newer than this idea understands")
    idle = _patterns(data, "idleScreen")
    if not idle and prompt_ready_pattern:
        idle = _patterns({"p": [prompt_ready_pattern]}, "p")
    quiet = data.get("quietMs", DEFAULT_QUIET_MS)
    if not isinstance(quiet, int) or isinstance(quiet, bool) or not 0 <= quiet <= 600_000:
        raise StateRulesError("state.quietMs must be a whole number of milliseconds")
    return StateRules(
        working_title=_patterns(data, "workingTitle"),
        working_screen=_patterns(data, "workingScreen"),
        blocked_screen=_patterns(data, "blockedScreen"),
        idle_screen=idle,
        composer_empty=_patterns(data, "composerEmpty"),
        quiet_ms=quiet,
    )


@dataclass(frozen=True, slots=True)
class Observation:
    """What the daemon sees of an agent's terminal right now."""

    title: str
    lines: Sequence[str]
    quiet_for: float
    """Seconds since the CLI last wrote anything."""
    running: bool
    was_idle: bool = False
    """The agent was idle at least once since it started (after that, doubt means busy)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    state: str
    rule: str
    """Which rule decided, e.g. `workingTitle[0]` or `quiet 800 ms`."""
    line: int | None = None
    """The screen line (0 = top) the rule matched, when a screen rule decided."""
    text: str | None = None
    composer_empty: bool | None = None
    """None when the profile has no composer rule."""

    def explain(self) -> str:
        where = ""
        if self.line is not None:
            where = f" on line {self.line}: {self.text!r}"
        elif self.text is not None:
            where = f": {self.text!r}"
        composer = ""
        if self.composer_empty is not None:
            composer = "; composer empty" if self.composer_empty else "; composer has a draft"
        return f"{self.state} — {self.rule}{where}{composer}"


def _search_lines(
    patterns: tuple[re.Pattern[str], ...], lines: Sequence[str], name: str
) -> tuple[str, int, str] | None:
    """The first pattern that matches a line, looking from the bottom (the latest output)."""
    for index in range(len(lines) - 1, -1, -1):
        for number, pattern in enumerate(patterns):
            if pattern.search(lines[index]):
                return f"{name}[{number}] {pattern.pattern!r}", index, lines[index]
    return None


def detect(rules: StateRules, seen: Observation) -> Verdict:
    composer = None
    if rules.composer_empty:
        composer = _search_lines(rules.composer_empty, seen.lines, "composerEmpty") is not None
    if not seen.running:
        return Verdict("exited", "the process ended", composer_empty=composer)
    found = _search_lines(rules.blocked_screen, seen.lines, "blockedScreen")
    if found:
        return Verdict("blocked", found[0], found[1], found[2], composer)
    for number, pattern in enumerate(rules.working_title):
        if pattern.search(seen.title):
            rule = f"workingTitle[{number}] {pattern.pattern!r}"
            return Verdict("working", rule, None, seen.title, composer)
    found = _search_lines(rules.working_screen, seen.lines, "workingScreen")
    if found:
        return Verdict("working", found[0], found[1], found[2], composer)
    quiet = seen.quiet_for * 1000 >= rules.quiet_ms
    if rules.idle_screen:
        found = _search_lines(rules.idle_screen, seen.lines, "idleScreen")
        if found and quiet:
            return Verdict("idle", found[0] + f" after {rules.quiet_ms} ms quiet", found[1],
                           found[2], composer)
        if found:
            return Verdict(_doubt(seen), f"{found[0]} but output within {rules.quiet_ms} ms",
                           found[1], found[2], composer)
    elif quiet:
        return Verdict("idle", f"quiet for {rules.quiet_ms} ms (no idle pattern)",
                       composer_empty=composer)
    return Verdict(_doubt(seen), "no rule matched", composer_empty=composer)


def _doubt(seen: Observation) -> str:
    return "working" if seen.was_idle else "starting"
