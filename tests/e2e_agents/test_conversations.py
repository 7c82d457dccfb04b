"""Conversations end to end (issue 9, LOG): fake agents delegating through the real daemon,
turns in each pair's log.jsonl and handoff.md, the handoff injected after a profile swap."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.conversations.ids import USER, conversation_id
from tests.e2e_agents.delegation import mcp_profile, team
from tests.e2e_agents.helpers import WAIT, Agents
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e


def log_turns(agents: Agents, cid: str, count: int) -> list[dict[str, Any]]:
    path = agents.ideai / "conversations" / cid / "log.jsonl"

    def read() -> list[dict[str, Any]] | None:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return None
        return [json.loads(line) for line in lines] if len(lines) >= count else None

    return retry_until(read, WAIT, describe=lambda: f"{path} has fewer than {count} turns")


def handoff_holding(agents: Agents, cid: str, text: str) -> str:
    path = agents.ideai / "conversations" / cid / "handoff.md"

    def read() -> str | None:
        try:
            found = path.read_text(encoding="utf-8")
        except OSError:
            return None
        return found if text in found else None

    return retry_until(read, WAIT, describe=lambda: f"{path} does not hold {text!r}")


def test_a_delegation_and_its_reply_land_in_the_log_and_handoff_and_survive_a_swap(
    idea: IdeaEnv,
) -> None:
    agents = team(idea, ("Conductor", "Dev"))
    other = mcp_profile("fake-mcp-other")
    other["name"] = "Other fake"
    agents.add_profile(other)
    done = idea.run("ask", "Conductor", "ask Dev check the build", "--json",
                    timeout=WAIT * 2)
    assert json.loads(done.stdout)["reply"] == "Dev said: done: check the build"
    conductor, dev = agents.info("Conductor"), agents.info("Dev")

    pair = conversation_id(conductor["id"], dev["id"])
    prompt, response = log_turns(agents, pair, 2)
    assert prompt["source"] == {"kind": "agent", "agentId": conductor["id"]}
    assert prompt["role"] == "prompt" and prompt["text"] == "check the build"
    assert response["source"] == {"kind": "agent", "agentId": dev["id"]}
    assert response["role"] == "response" and response["text"] == "done: check the build"
    handoff = handoff_holding(agents, pair, "- **Response:** done: check the build")
    assert handoff.startswith(f"---\nupTo: {response['id']}\nobjective: check the build\n---\n")

    # The user's ask is a user↔agent turn pair of its own.
    user_turns = log_turns(agents, conversation_id(USER, conductor["id"]), 2)
    assert [t["source"]["kind"] for t in user_turns] == ["user", "agent"]
    assert user_turns[1]["text"] == "Dev said: done: check the build"

    # Dev restarted on another profile: the new CLI has no session of the old one, but its
    # context carries the thread.
    before = agents.report(dev["id"])["pid"]
    swapped = idea.json("agent", "set-profile", "Dev", "fake-mcp-other", "-f")
    assert swapped["profileId"] == "fake-mcp-other"
    _report, context = agents.contexts(dev["id"], "flag", not_pid=before)
    text = context["content"]
    assert "# Conversation resume" in text
    section = text[text.index("# Conversation resume"):]
    assert "## With Conductor" in section and "## With the user" not in section
    assert "- **Prompt:** check the build" in section
    assert "- **Response:** done: check the build" in section
    assert "upTo" not in section  # the frontmatter is not injected

    # The CLI shows the pair, in either order, as text and as JSON.
    shown = idea.json("conversation", "show", "Dev", "Conductor")
    assert shown["conversation"] == pair and shown["segments"] == []
    assert [(t["source"], t["role"], t["text"]) for t in shown["turns"]] == [
        ("Conductor", "prompt", "check the build"),
        ("Dev", "response", "done: check the build"),
    ]
    printed = idea.run("conversation", "show", "Conductor", "Dev").stdout
    assert "Conversation Conductor ↔ Dev" in printed and "done: check the build" in printed
    listed = idea.json("conversation", "list", "Dev")
    assert [sorted(entry["parties"]) for entry in listed] == [["Conductor", "Dev"]]


def test_a_users_line_is_a_user_turn_and_bad_pairs_are_refused(idea: IdeaEnv) -> None:
    agents = team(idea, ("Solo",))
    agents.launch("Solo", "--background")
    idea.run("agent", "send", "Solo", "hello there")
    solo = agents.info("Solo")
    [turn] = log_turns(agents, conversation_id(USER, solo["id"]), 1)
    assert turn["source"] == {"kind": "user"} and turn["text"] == "hello there"
    same = idea.run("conversation", "show", "Solo", "Solo", check=False)
    assert same.returncode == 1 and "two different parties" in same.stderr
    unknown = idea.run("conversation", "show", "Solo", "Nobody", check=False)
    assert unknown.returncode == 1 and "Nobody" in unknown.stderr
    missing = idea.run("conversation", "show", "user", "Solo", "--segment", "3", check=False)
    assert missing.returncode == 1 and "no archived segment 3" in missing.stderr


def test_a_corrupt_handoff_is_reported_and_never_overwritten(idea: IdeaEnv) -> None:
    agents = team(idea, ("Solo",))
    solo = agents.info("Solo")
    folder: Path = agents.ideai / "conversations" / conversation_id(USER, solo["id"])
    folder.mkdir(parents=True)
    (folder / "handoff.md").write_text("this is not a handoff\n")
    done = idea.run("ask", "Solo", "reply fine", "--json", timeout=WAIT * 2)
    assert json.loads(done.stdout)["reply"] == "fine"  # the delegation is not hurt
    log_turns(agents, folder.name, 2)
    assert (folder / "handoff.md").read_text() == "this is not a handoff\n"

    def reported() -> list[str] | None:
        [project] = idea.json("ls")["windows"][0]["projects"]
        problems = [p for p in project["problems"] if "handoff.md" in p]
        return problems or None

    [problem] = retry_until(reported, WAIT, describe=lambda: str(idea.json("ls")))
    assert "will not overwrite" in problem


def test_switching_back_to_a_profile_resumes_its_own_session(idea: IdeaEnv) -> None:
    """LOG-4: each profile's session id is kept in the agent's user conversation; after a
    round trip to another CLI, a resume continues the first CLI's session, not afresh."""
    from tests.e2e_agents.helpers import fake_profile

    agents = Agents(idea, idea.new_project("proj"))
    agents.add_profile(fake_profile("fake-a", "flag"))
    agents.add_profile(fake_profile("fake-b", "env"))
    created = agents.new("Swapper", "fake-a")
    agents.launch("Swapper", "--background")
    first = agents.report(created["id"], lambda r: r["session"]["id"] is not None)
    session_a = first["session"]["id"]
    idea.run("agent", "stop", "Swapper")
    idea.json("agent", "set-profile", "Swapper", "fake-b")
    agents.launch("Swapper", "--background")
    on_b = agents.report(created["id"], lambda r: r["pid"] != first["pid"]
                         and r["session"]["id"] not in (None, session_a))
    idea.run("agent", "stop", "Swapper")
    idea.json("agent", "set-profile", "Swapper", "fake-a")
    agents.launch("Swapper", "--background", "--resume")
    back = agents.report(created["id"], lambda r: r["pid"] not in (first["pid"], on_b["pid"]))
    assert back["session"] == {**back["session"], "id": session_a, "resumed": True}
    providers = json.loads((agents.ideai / "conversations" / conversation_id(USER, created["id"])
                            / "providers.json").read_text())
    assert providers["providers"] == {"fake-a": {"resumableId": session_a},
                                      "fake-b": {"resumableId": on_b["session"]["id"]}}


def test_opening_a_project_rotates_its_long_logs_and_the_viewer_pages_back(
    idea: IdeaEnv,
) -> None:
    """LOG-5 at project open: 600 turns and a handoff at the last one: 599 go to log.1.jsonl,
    the upTo turn stays active; `idea conversation show --segment 1` reads the archive."""
    from core.conversations import handoff as h
    from core.conversations.turns import Turn, encode_turn

    agents = team(idea, ("Alpha", "Beta"))
    alpha, beta = agents.info("Alpha"), agents.info("Beta")
    cid = conversation_id(alpha["id"], beta["id"])
    folder = agents.ideai / "conversations" / cid
    folder.mkdir(parents=True)
    turns = [Turn(f"00000000-0000-4000-8000-{n:012d}", cid, 1_000 + n,
                  alpha["id"] if n % 2 == 0 else beta["id"],
                  "prompt" if n % 2 == 0 else "response", f"turn {n}") for n in range(600)]
    (folder / "log.jsonl").write_text("".join(encode_turn(t) + "\n" for t in turns))
    folded = h.EMPTY
    for t in turns:
        folded = h.fold(folded, t)
    (folder / "handoff.md").write_text(h.render(folded))
    idea.run("project", "close", "proj", "-f")
    idea.run("open", str(agents.project))

    def rotated() -> bool:
        return (folder / "log.1.jsonl").exists() and len(
            (folder / "log.jsonl").read_text().splitlines()) == 1

    retry_until(rotated, WAIT, describe=lambda: str(sorted(p.name for p in folder.iterdir())))
    active = idea.json("conversation", "show", "Alpha", "Beta")
    assert active["segments"] == [1] and [t["text"] for t in active["turns"]] == ["turn 599"]
    archived = idea.json("conversation", "show", "Alpha", "Beta", "--segment", "1")
    assert len(archived["turns"]) == 599 and archived["turns"][0]["text"] == "turn 0"
    everything = idea.json("conversation", "show", "Alpha", "Beta", "--all")
    assert [t["text"] for t in everything["turns"]] == [f"turn {n}" for n in range(600)]
    found = idea.json("conversation", "search", "Alpha", "Beta", "TURN 59")
    assert [(hit["segment"], hit["index"]) for hit in found["hits"]] == [
        (1, 59), *((1, n) for n in range(590, 599)), (None, 0)]
