"""Changing a running agent's profile (SWP-1): asks first, then relaunches in the same cell."""

from __future__ import annotations

import pytest

from tests.e2e_agents.helpers import Agents, fake_profile
from tests.helpers.idea import IdeaEnv, process_alive
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e

PERSONA = "# Swapper\n\nKeeps its Markdown across profiles — byte for byte.\n"


def test_set_profile_while_running_asks_then_relaunches_in_the_same_cell(
        idea: IdeaEnv) -> None:
    agents = Agents(idea, idea.new_project("proj"))
    agents.add_profile(fake_profile("fake-flag", "flag"))
    agents.add_profile(fake_profile("fake-env", "env"))
    created = agents.new("Swapper", "fake-flag", PERSONA)
    persona_file = agents.ideai / created["mdPath"]
    launched = agents.launch("Swapper")
    before, _ = agents.contexts(created["id"], "flag")
    old_conversation = agents.info("Swapper")["conversationId"]

    # Without a terminal to ask on, nothing happens and the message says why.
    refused = idea.run("agent", "set-profile", "Swapper", "fake-env", check=False)
    assert refused.returncode == 1
    assert "conversation is lost" in refused.stderr
    assert "add -f" in refused.stderr
    assert agents.info("Swapper")["profileId"] == "fake-flag"
    assert process_alive(before["pid"])

    swapped = idea.json("agent", "set-profile", "Swapper", "fake-env", "-f")
    assert swapped["profileId"] == "fake-env"
    assert swapped["state"] == "running" and swapped["cell"] == launched["cell"]
    retry_until(lambda: not process_alive(before["pid"]), 30,
                describe=f"the old agent process {before['pid']} still runs")
    cells = idea.cells()
    assert len(cells) == 2 and cells[1]["id"] == launched["cell"]
    new_pid = cells[1]["pid"]
    assert new_pid != before["pid"]
    # A message makes the new process rewrite the shared report (the old one may have
    # written its last report, on its way out, after the new one's first).
    agents.capture(launched["target"], r"CONTEXT\[env\]")
    idea.send_keys(launched["target"], "after the swap", "Enter")
    agents.capture(launched["target"], r"reply: after the swap")
    after = agents.report(created["id"], lambda r: r["messages"] == ["after the swap"])
    assert after["pid"] == new_pid
    assert [c["strategy"] for c in after["contexts"]] == ["env"]
    context = after["contexts"][0]
    info = agents.info("Swapper")
    assert info["profileId"] == "fake-env"
    # The provider conversation is not carried over: a new one starts.
    assert not after["session"]["resumed"]
    assert info["conversationId"] != old_conversation
    # Its Markdown is kept, and is what the new profile delivered.
    assert persona_file.read_text(encoding="utf-8") == PERSONA
    assert context["content"].endswith(PERSONA)


def test_set_profile_of_a_stopped_agent_needs_no_confirmation(idea: IdeaEnv) -> None:
    agents = Agents(idea, idea.new_project("proj"))
    agents.add_profile(fake_profile("fake-flag", "flag"))
    agents.add_profile(fake_profile("fake-stdin", "stdin"))
    agents.new("Idle", "fake-flag", PERSONA)
    changed = idea.json("agent", "set-profile", "Idle", "fake-stdin")
    assert changed["profileId"] == "fake-stdin" and changed["state"] == "stopped"
    assert len(idea.cells()) == 1
    unknown = idea.run("agent", "set-profile", "Idle", "no-such-profile", check=False)
    assert unknown.returncode == 1 and "no-such-profile" in unknown.stderr
    assert agents.info("Idle")["profileId"] == "fake-stdin"
