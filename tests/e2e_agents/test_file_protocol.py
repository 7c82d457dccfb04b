"""The file protocol (ORC-1..6, §3.14): `.ideai/requests/<requester>/<name>.json` goes through
the same dispatch as MCP; the response lands next to it; bad requests get `ok: false`."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_agents.delegation import team
from tests.e2e_agents.helpers import WAIT, Agents, fake_profile
from tests.helpers.idea import IDEA_BIN, IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e


def request(agents: Agents, requester: str, name: str, body: bytes | dict[str, Any]) -> Path:
    folder = agents.ideai / "requests" / requester
    folder.mkdir(parents=True, exist_ok=True)
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    temporary = folder / f".{name}.tmp"
    temporary.write_bytes(data)
    path = folder / f"{name}.json"
    temporary.rename(path)  # whole, as the orchestration section tells agents to write it
    return path


def answer_of(path: Path) -> dict[str, Any] | None:
    """The response beside a request, once there is one."""
    try:
        found: dict[str, Any] = json.loads(path.with_name(path.name + ".response.json")
                                           .read_text())
    except (OSError, ValueError):
        return None
    return found


def response(path: Path) -> dict[str, Any]:
    found = retry_until(lambda: answer_of(path), WAIT * 2, describe=f"no answer to {path}")
    assert not path.exists(), "the request is deleted once read"
    return found


def test_an_ask_and_a_reply_through_files(idea: IdeaEnv) -> None:
    agents = team(idea, ("Dev",))
    files = fake_profile("fake-files", "flag", session=False)
    files["args"].append("--no-paste-context")  # idea's tasks come as bracketed pastes
    agents.add_profile(files)
    lead = agents.new("Lead", "fake-files")
    asked = request(agents, lead["id"], "ask1",
                    {"type": "agent.message", "targetAgent": "Dev", "task": "reply from files"})
    assert response(asked) == {"ok": True, "action": "agent.message", "reply": "from files"}

    # A file-protocol agent answers its task with a file too (here the test writes it).
    pending = subprocess.Popen([IDEA_BIN, "ask", "Lead", "what is up", "--json"], env=idea.env,
                               stdout=subprocess.PIPE, text=True)
    try:
        report = agents.report(lead["id"], lambda r: bool(r["messages"]))
        ticket = re.search(r"ticket (\S+)\]", report["messages"][0])
        assert ticket is not None, report["messages"]
        answered = request(agents, "Lead", "r1",
                           {"type": "agent.reply", "ticket": ticket.group(1), "result": "all up"})
        assert response(answered)["ok"] is True
        out, _ = pending.communicate(timeout=WAIT)
    finally:
        pending.kill()
    assert json.loads(out)["reply"] == "all up"
    # The orchestration section told Lead how (its context, as launched).
    context = (agents.run_dir(lead["id"]) / "context.md").read_text()
    assert ".ideai/requests/$IDEA_AGENT/" in context and '"agent.reply"' in context


MALFORMED: list[tuple[bytes | dict[str, Any], str]] = [
    (b"{", "not JSON"),
    (b"[1]", "JSON object"),
    ({"type": "agent.dance"}, "unknown type"),
    ({"action": "rm_rf"}, "unknown action"),
    ({"type": "agent.message", "targetAgent": "Dev"}, "'task' is required"),
    ({"type": "agent.message", "targetAgent": "Nobody", "task": "x"}, "no agent named"),
    ({"type": "agent.run", "targetAgent": "Dev", "visibility": "loud"}, "visibility"),
]


def test_malformed_requests_get_ok_false_and_spawn_nothing(idea: IdeaEnv) -> None:
    agents = team(idea, ("Dev",))
    dev = agents.info("Dev")
    paths = [request(agents, dev["id"], f"bad{n}", body) for n, (body, _) in
             enumerate(MALFORMED)]
    intruder = request(agents, "intruder", "x", {"type": "agent.run", "targetAgent": "Dev"})
    for path, (_, error) in zip(paths, MALFORMED, strict=True):
        answer = response(path)
        assert answer["ok"] is False and error in answer["error"], (path.name, answer)
    answer = response(intruder)
    assert answer["ok"] is False and "not an agent" in answer["error"]
    # Nothing was spawned for any of them.
    assert agents.info("Dev")["state"] == "stopped"


def test_a_request_dropped_twice_is_processed_once(idea: IdeaEnv) -> None:
    """ORC-1: the same bytes dropped again under the same name — while the first copy is in
    flight, or just after it was answered — are not dispatched again; other bytes under a
    busy name wait for it and then go as a request of their own."""
    agents = team(idea, ("Dev",))
    agents.add_profile(fake_profile("fake-files", "flag", session=False))
    lead = agents.new("Lead", "fake-files")
    release = idea.root / "release"
    ask = {"type": "agent.message", "targetAgent": "Dev", "task": f"hold {release} the answer"}
    first = request(agents, lead["id"], "ask", ask)
    dev = agents.info("Dev")
    retry_until(lambda: first.exists() is False or None, WAIT)
    agents.report(dev["id"], lambda r: len(r["messages"]) == 1)
    # Dropped again while Dev works on it: taken away, no second task.
    again = request(agents, lead["id"], "ask", ask)
    retry_until(lambda: again.exists() is False or None, WAIT, describe="the repeat stays")
    release.touch()
    assert response(first) == {"ok": True, "action": "agent.message", "reply": "the answer"}
    # Dropped once more just after the answer, the answer still beside it: it stands.
    answer = first.with_name(first.name + ".response.json")
    answered_at = answer.stat().st_mtime_ns
    request(agents, lead["id"], "ask", ask)
    retry_until(lambda: first.exists() is False or None, WAIT)
    asked = [t for t in agents.idea.json("agent", "tickets") if t["requester"] == "Lead"]
    assert len(asked) == 1, asked
    assert agents.report(dev["id"])["messages"][1:] == []
    assert answer.stat().st_mtime_ns == answered_at

    # Other bytes under a name in flight wait for it, then go as a new request.
    hold = idea.root / "second-release"
    busy = request(agents, lead["id"], "busy", {
        "type": "agent.message", "targetAgent": "Dev", "task": f"hold {hold} first"})
    agents.report(dev["id"], lambda r: len(r["messages"]) == 2)
    waiting = request(agents, lead["id"], "busy", {
        "type": "agent.message", "targetAgent": "Dev", "task": "reply second"})
    assert waiting.exists(), "it waits for the name"
    hold.touch()
    second = retry_until(lambda: (r := answer_of(busy)) and r.get("reply") == "second" and r,
                         WAIT * 2, describe=lambda: str(answer_of(busy)))
    assert second["ok"] is True and not waiting.exists()
    assert [m.split("] ", 1)[1] for m in agents.report(dev["id"])["messages"]] == [
        f"hold {release} the answer", f"hold {hold} first", "reply second"]
