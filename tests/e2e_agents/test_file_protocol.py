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


def response(path: Path) -> dict[str, Any]:
    answer = path.with_name(path.name + ".response.json")

    def read() -> dict[str, Any] | None:
        try:
            found: dict[str, Any] = json.loads(answer.read_text())
        except (OSError, ValueError):
            return None
        return found

    found = retry_until(read, WAIT * 2, describe=f"no {answer}")
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
