"""The declarative agent state detector: verdicts and their explanations (D27, DLG-6)."""

from __future__ import annotations

import pytest

from core.agents.state_rules import Observation, StateRulesError, detect, parse_rules

CLAUDE_LIKE = parse_rules(
    {
        "version": 1,
        "workingTitle": ["^[⠁-⣿]"],
        "workingScreen": ["esc to interrupt"],
        "blockedScreen": [r"Do you want to proceed\?"],
        "idleScreen": ["^❯(?: |$)"],
        "composerEmpty": [r"^❯\s*$"],
        "quietMs": 500,
    }
)


def seen(lines: list[str], title: str = "", quiet: float = 5.0, **kw: bool) -> Observation:
    return Observation(title=title, lines=lines, quiet_for=quiet, running=kw.get("running", True),
                       was_idle=kw.get("was_idle", False))


def test_order_exited_blocked_working_idle() -> None:
    prompt = ["welcome", "❯ "]
    assert detect(CLAUDE_LIKE, seen(prompt, running=False)).state == "exited"
    blocked = detect(CLAUDE_LIKE, seen(["Do you want to proceed?", "❯ 1. Yes"]))
    assert (blocked.state, blocked.line) == ("blocked", 0)
    working = detect(CLAUDE_LIKE, seen(prompt, title="⠂ Writing tests"))
    assert working.state == "working" and "workingTitle[0]" in working.rule
    screen = detect(CLAUDE_LIKE, seen(["✻ Thinking… (esc to interrupt)", "❯ "]))
    assert (screen.state, screen.line) == ("working", 0)
    idle = detect(CLAUDE_LIKE, seen(prompt, title="✳ Claude Code"))
    assert (idle.state, idle.line, idle.composer_empty) == ("idle", 1, True)
    assert "idleScreen[0]" in idle.explain() and "line 1" in idle.explain()


def test_a_prompt_needs_a_quiet_spell_and_doubt_means_busy() -> None:
    assert detect(CLAUDE_LIKE, seen(["❯ "], quiet=0.1)).state == "starting"
    assert detect(CLAUDE_LIKE, seen(["❯ "], quiet=0.1, was_idle=True)).state == "working"
    assert detect(CLAUDE_LIKE, seen(["loading"], was_idle=True)).state == "working"


def test_a_draft_in_the_composer_is_seen() -> None:
    verdict = detect(CLAUDE_LIKE, seen(["❯ half a sent"]))
    assert verdict.state == "idle" and verdict.composer_empty is False
    assert "draft" in verdict.explain()


def test_defaults_come_from_the_prompt_pattern_then_quiet() -> None:
    rules = parse_rules(None, "(?m)^fake-agent>(?: |$)")
    assert detect(rules, seen(["x", "fake-agent> "])).state == "idle"
    bare = parse_rules(None)
    verdict = detect(bare, seen(["anything"], quiet=1.0))
    assert verdict.state == "idle" and "quiet" in verdict.rule
    assert verdict.composer_empty is None


@pytest.mark.parametrize(
    ("block", "words"),
    [
        ({"workingTitle": "(unclosed"}, "workingTitle"),
        ({"idleScreen": [3]}, "idleScreen"),
        ({"quietMs": -1}, "quietMs"),
        ({"version": 9}, "newer"),
        ([], "object"),
    ],
)
def test_bad_rules_say_which_key(block: object, words: str) -> None:
    with pytest.raises(StateRulesError) as failed:
        parse_rules(block)
    assert words in str(failed.value)
