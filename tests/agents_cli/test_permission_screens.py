"""The built-in state rules against the permission questions the real CLIs printed in an
idea cell (recorded by test_real_permission.py: Claude Code 2.1.332 in its `default`
permission mode, Codex 0.171.0 with `approval_policy = "on-request"` and a command asking
for escalation). No CLI needed: the screens are the facts, the rules must say `blocked` on
them — also when a narrower cell wraps the question — and `idle` once it was answered (the
screens after the answer and one more line, as recorded)."""

from __future__ import annotations

import pytest

from adapters.agents.catalogue import CLAUDE_CODE, CODEX
from core.agents.state_rules import Observation, detect, parse_rules

CLAUDE_QUESTION = """
───────────────────────────────────────
 Bash command
 Tip: auto mode handles these prompts
 for you — choose "switch to auto
 mode" below
 Create the probe
╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 touch probe-made-by-the-tool
╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and always allow access to
      /tmp/pytest-of-root/pytest-717/t
      est_claude_code_asking_permis0/p
      roj from this project
   3. Yes, and switch to auto mode ·
      auto mode handles these prompts
      for you
   4. No

 Esc to cancel · Tab to amend
"""

CODEX_QUESTION = """• Running touch probe-made-by-the-tool


  Would you like to run the following
  command?

  Environment: local

  Reason: Create the probe file

  $ touch probe-made-by-the-tool


› 1. Yes, proceed (y)
  2. Yes, and don't ask again for
     commands that start with `touch
     probe-made-by-the-tool` (p)
  3. No, and tell Codex what to do
     differently (esc)

  Press enter to confirm or esc to
  cancel
"""

CLAUDE_AFTER = """

❯ RUN-THE-PROBE

● Creating the probe file.

  Ran 1 shell command

● Done.

✻ Worked for 8s · done 8:33 PM

❯ QUEUED-WHILE-BLOCKED

● QUEUED-LINE-SEEN

✻ Brewed for 1s · done 8:33 PM

───────────────────────────────────────
❯
───────────────────────────────────────
  ⏸ manual mode on · ? for shortcuts
"""

CODEX_AFTER = """› RUN-THE-PROBE
  └ (no output)

• Done.

  Worked for 9s • 20:34


› QUEUED-WHILE-BLOCKED


• QUEUED-LINE-SEEN

  Worked for <1s • 20:34


› Ask Codex to do anything

  gpt-5-codex default · /tmp/pytest-of-
  root/pytest-749/
  test_codex_asking_approval_for0/proj…
  ← for agents                ⚠ 2 · f2
"""


def _verdict(profile: dict[str, object], screen: str) -> tuple[str, str]:
    rules = parse_rules(profile["state"], str(profile["promptReadyPattern"]))
    seen = Observation(title="", lines=screen.splitlines(), quiet_for=5.0, running=True,
                       was_idle=True)
    verdict = detect(rules, seen)
    return verdict.state, verdict.rule


@pytest.mark.parametrize(("profile", "screen"), [(CLAUDE_CODE, CLAUDE_QUESTION),
                                                 (CODEX, CODEX_QUESTION)],
                         ids=["claude-code", "codex"])
def test_the_permission_question_is_blocked_not_idle(profile: dict[str, object],
                                                     screen: str) -> None:
    # Both questions' first option sits where the idle prompt's character does.
    state, rule = _verdict(profile, screen)
    assert state == "blocked" and rule.startswith("blockedScreen"), rule


def test_a_wrapped_question_is_still_blocked() -> None:
    # A narrower cell: the question's words on two rows, caught by the options' lines.
    claude = CLAUDE_QUESTION.replace(" Do you want to proceed?", " Do you want to\n proceed?")
    assert _verdict(CLAUDE_CODE, claude)[0] == "blocked"
    codex = CODEX_QUESTION.replace("  Would you like to run the following\n",
                                   "  Would you like to\n  run the following\n")
    assert _verdict(CODEX, codex)[0] == "blocked"


@pytest.mark.parametrize(("profile", "screen"), [(CLAUDE_CODE, CLAUDE_AFTER),
                                                 (CODEX, CODEX_AFTER)],
                         ids=["claude-code", "codex"])
def test_once_answered_the_agent_is_idle_again(profile: dict[str, object],
                                               screen: str) -> None:
    assert _verdict(profile, screen)[0] == "idle"
