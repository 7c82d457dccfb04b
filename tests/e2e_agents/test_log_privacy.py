"""The daemon's log never holds an agent's composed context (issue 7): with the flag
strategy the whole context is an argument of the CLI, and the spawn used to log argv."""

from __future__ import annotations

import stat

import pytest

from tests.e2e_agents.helpers import Agents, fake_profile
from tests.helpers.idea import IdeaEnv

pytestmark = pytest.mark.e2e

MARKER = "persona-marker-7f3a91 never in the log"


def test_a_context_passed_as_an_argument_is_not_logged(idea: IdeaEnv) -> None:
    agents = Agents(idea, idea.new_project("proj"))
    agents.add_profile(fake_profile("fake-flag", "flag"))
    created = agents.new("Quiet", "fake-flag", f"# Quiet\n\n{MARKER}\n")
    agents.launch("Quiet", "--background")
    _report, context = agents.contexts(created["id"], "flag")
    assert MARKER in context["content"], "the context did reach the agent as an argument"
    log = idea.locations.log_file
    text = log.read_text(encoding="utf-8", errors="replace")
    assert "spawned pid" in text and "arguments" in text
    assert MARKER not in text
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
