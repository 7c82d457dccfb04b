"""The four stores of LOG-8 stay disjoint, end to end (issue 9): project memory, the
handoff, the transcript and live state each hold their own kind of knowledge, and only the
bounded, distilled ones reach an agent.

Fake agents speaking MCP to the real daemon fill all four: a delegation whose text runs past
the handoff's 240-character line (its tail exists only in the transcript), a memory note
whose body is past that cut too (it exists only in the note, and in the transcript of the
user's own request), a work-state row. Then a new agent is launched and the asked one
restarted: what each gets, and what each file holds, is checked marker by marker.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from core.conversations.ids import USER, conversation_id
from tests.e2e_agents.delegation import team
from tests.e2e_agents.helpers import Agents
from tests.e2e_agents.test_delegation import ask
from tests.e2e_agents.test_live_state import wait_rows
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e

FILLER = "then run every suite of the project again and compare the results " * 5
TRANSCRIPT_ONLY = "TAIL-ONLY-IN-THE-TRANSCRIPT"
MEMORY_ONLY = "BODY-ONLY-IN-THE-MEMORY-NOTE"
LIVE_ONLY = "TASK-IN-LIVE-STATE"


def launch_context(agents: Agents, name: str, not_pid: int | None = None) -> str:
    agent = agents.info(name)
    _report, received = agents.contexts(agent["id"], "flag", not_pid)
    text: str = received["content"]
    return text


def texts_under(folder: Path, pattern: str) -> dict[str, str]:
    return {str(path.relative_to(folder)): path.read_text(encoding="utf-8")
            for path in sorted(folder.glob(pattern))}


def ignored(project: Path, relative: str) -> bool:
    done = subprocess.run(["git", "-C", str(project), "check-ignore", "-q", relative],
                          check=False)
    return done.returncode == 0


def test_memory_handoff_transcript_and_live_state_stay_apart(idea: IdeaEnv) -> None:
    agents = team(idea, ("Lead", "Dev"))
    task = f"check the build, {FILLER}{TRANSCRIPT_ONLY}"
    assert task.index(TRANSCRIPT_ONLY) > 240  # past the handoff line
    delegated = ask(agents, "Lead", f"ask Dev {task}")
    assert delegated["reply"] == f"Dev said: done: {task}", delegated
    saved = ask(agents, "Dev", "call idea_memory_write " + json.dumps({
        "slug": "build-rules", "description": "How the build is checked",
        "content": f"# Build rules\n\nAlways `make check`; {FILLER}{MEMORY_ONLY}\n"}))
    assert saved["reply"].startswith("saved memory note 'build-rules'"), saved
    row = ask(agents, "Dev", "call idea_workstate_set " + json.dumps({
        "status": "blocked", "task": f"{LIVE_ONLY} waiting for the CI runner"}))
    assert json.loads(row["reply"])["task"].startswith(LIVE_ONLY), row
    wait_rows(agents, {"Dev": "done", "Lead": "done"})

    lead, dev = agents.info("Lead"), agents.info("Dev")
    conversations = agents.ideai / "conversations"
    pair = conversations / conversation_id(lead["id"], dev["id"])
    # The transcript is the rich one: whole texts, the user's requests included.
    retry_until(lambda: TRANSCRIPT_ONLY in (pair / "log.jsonl").read_text("utf-8"), 45,
                describe=lambda: str(list(pair.glob("*"))))
    user_dev = conversations / conversation_id(USER, dev["id"])
    retry_until(lambda: LIVE_ONLY in (user_dev / "handoff.md").read_text("utf-8"), 45,
                describe=lambda: str(list(user_dev.glob("*"))))
    assert MEMORY_ONLY in (user_dev / "log.jsonl").read_text("utf-8")
    # Handoffs are distilled: each turn cut at 240 characters, so no tail crossed.
    handoffs = texts_under(conversations, "*/handoff.md")
    assert len(handoffs) == 3  # user↔Lead, Lead↔Dev, user↔Dev
    for name, text in handoffs.items():
        assert TRANSCRIPT_ONLY not in text and MEMORY_ONLY not in text, name
    assert "- **Prompt:** check the build, then run" in handoffs[f"{pair.name}/handoff.md"]
    # Memory holds the note and its index, nothing of the conversations or live state.
    memory = texts_under(agents.ideai / "memory", "*")
    assert sorted(memory) == ["MEMORY.md", "build-rules.md"]
    assert MEMORY_ONLY in memory["build-rules.md"]
    assert MEMORY_ONLY not in memory["MEMORY.md"]
    assert all(TRANSCRIPT_ONLY not in text and LIVE_ONLY not in text
               for text in memory.values())
    # Live state is lean: rows and previews, no transcript, no memory.
    live = (agents.ideai / "live-state.json").read_text("utf-8")
    assert LIVE_ONLY in live
    assert TRANSCRIPT_ONLY not in live and MEMORY_ONLY not in live

    # What crosses to an agent: a new one gets memory pointers and the others' rows.
    agents.new("Reviewer", "fake-mcp", "# Reviewer\n\nYou review the build and its rules.\n")
    agents.launch("Reviewer", "--background")
    fresh = launch_context(agents, "Reviewer")
    assert "- [build-rules](build-rules.md) — How the build is checked" in fresh
    assert f"- Dev: done — {LIVE_ONLY} waiting for the CI runner" in fresh
    assert "# Conversation resume" not in fresh  # it has talked to no one yet
    # Dev, restarted, gets its threads through the handoffs only.
    before = agents.report(dev["id"])["pid"]
    idea.run("agent", "restart", "Dev")
    again = launch_context(agents, "Dev", not_pid=before)
    resume = again[again.index("# Conversation resume"):]
    assert "## With Lead" in resume and "## With the user" in resume
    assert "- **Prompt:** check the build, then run" in resume
    state = again[again.index("# Project state"):again.index("# Conversation resume")]
    assert "- Lead: done" in state and "- Dev:" not in state
    for context in (fresh, again):
        assert TRANSCRIPT_ONLY not in context  # the transcript never reaches an agent
        assert MEMORY_ONLY not in context  # memory arrives as pointers, not bodies

    # Versioned or not (LOG-8): memory goes with the project, the rest is runtime state.
    project = agents.project
    subprocess.run(["git", "-C", str(project), "init", "-q"], check=True)
    assert not ignored(project, ".ideai/memory/build-rules.md")
    assert not ignored(project, ".ideai/memory/MEMORY.md")
    assert ignored(project, f".ideai/conversations/{pair.name}/log.jsonl")
    assert ignored(project, f".ideai/conversations/{pair.name}/handoff.md")
    assert ignored(project, ".ideai/live-state.json")
