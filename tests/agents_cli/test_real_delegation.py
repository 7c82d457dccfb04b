"""Delegation between real Claude Code and Codex agents launched by `idea`, offline.

The agents are the real CLIs on idea's built-in profiles, launched by the daemon with the
MCP config it generates; the scripted model server makes their models call idea's tools.
A user's line to the Lead makes it call `idea_ask_agent`; idea types the task into the
target's terminal with the D8 prefix; the target's model answers with `idea_reply`; the
reply comes back to the Lead as the tool's result, and the Lead says so on its screen.

Scenarios: Claude → Claude, Claude → Codex, Codex → Claude, three asks queued to one
target (answered one at a time, in order), and a long call (the target takes longer than
one long-poll: the Lead gets "No reply yet" and calls again with the ticket).
"""

from __future__ import annotations

import json
import subprocess
import threading
import tomllib

import pytest

from adapters.agents.catalogue import builtin_profiles
from tests.agents_cli.clis import require_cli, run
from tests.agents_cli.delegation import (
    TASK_PREFIX,
    answers,
    asks,
    concludes,
    keeps_waiting,
    marker,
    persona,
)
from tests.agents_cli.homes import base_env, prepare_claude
from tests.agents_cli.in_idea import WAIT, RealTeam
from tests.agents_cli.model_server import (
    Held,
    McpCall,
    ModelRequest,
    ModelServer,
    Script,
)
from tests.helpers.idea import IDEA_BIN, IdeaEnv
from tests.helpers.retry import retry_until

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def requests_of(server: ModelServer, who: str) -> list[ModelRequest]:
    return [r for r in server.turns() if marker(who) in r.system]


def delivered_tasks(server: ModelServer, who: str) -> list[tuple[str, str]]:
    """(caller, ticket) of each task idea typed into `who`, in the order its model saw them."""
    found: list[tuple[str, str]] = []
    for request in requests_of(server, who):
        match = TASK_PREFIX.search(request.latest)
        if match and (match["caller"], match["ticket"]) not in found:
            found.append((match["caller"], match["ticket"]))
    return found


@pytest.mark.parametrize(("lead_cli", "dev_cli"), [
    ("claude", "claude"), ("claude", "codex"), ("codex", "claude")])
def test_a_real_agent_delegates_to_another_and_gets_its_reply(
        idea: IdeaEnv, server: ModelServer, script: Script, lead_cli: str, dev_cli: str) -> None:
    team = RealTeam(idea, server)
    team.project()
    team.new("Lead", lead_cli, persona("lead"))
    team.new("Dev", dev_cli, persona("dev"))
    asks(script, "lead", "START-DELEGATION", "Dev", "TASK-FOR-DEV: what is 6 times 7?")
    keeps_waiting(script, "lead")  # as a model does on a loaded machine's slow turn
    answers(script, "dev", "TASK-FOR-DEV", "RESULT-FROM-DEV: 42")
    concludes(script, "lead", "RESULT-FROM-DEV: 42", "LEAD-HAS-THE-ANSWER-42")

    settings = users_settings(idea)
    dev = team.launch("Dev", dev_cli)
    lead = team.launch("Lead", lead_cli)
    team.type_line(lead["target"], "START-DELEGATION")
    team.wait_marker(lead["target"], "LEAD-HAS-THE-ANSWER-42")
    # idea's server reached them through their command lines only: the user's own settings
    # and MCP servers are as they were, and no project .mcp.json was written.
    assert users_settings(idea) == settings
    assert "idea" not in claude_user_servers(idea)
    assert not (team.team.project / ".mcp.json").exists()

    [(caller, ticket)] = delivered_tasks(server, "dev")
    assert caller == "Lead"
    # The Dev's screen shows the task idea typed in, prefix included.
    team.wait_marker(dev["target"], "TASK-FOR-DEV")
    # The reply reached the Lead through the tool result, not through the screen.
    [result] = [r for r in requests_of(server, "lead") if r.rule == "lead concludes "
                "RESULT-FROM-DEV: 42"]
    assert "RESULT-FROM-DEV: 42" in result.latest
    assert ticket  # one ticket, from one ask


def users_settings(idea: IdeaEnv) -> dict[str, object]:
    """The user's own settings of both CLIs: Claude Code's settings.json as it is, and the
    MCP servers of Codex's config.toml (Codex writes its own TUI state into that file, e.g.
    `[tui] screen_reader_detection_done`; Claude Code's state file ~/.claude.json, which it
    rewrites itself, is looked at by `claude_user_servers`)."""
    claude = idea.user_home / ".claude" / "settings.json"
    codex = tomllib.loads((idea.user_home / ".codex" / "config.toml").read_text())
    return {"claude settings": claude.read_bytes(), "codex servers": codex.get("mcp_servers")}


def claude_user_servers(idea: IdeaEnv) -> set[str]:
    """The MCP servers the user's ~/.claude.json declares, at user and project scope."""
    state = json.loads((idea.user_home / ".claude.json").read_text())
    names = set(state.get("mcpServers") or {})
    for project in (state.get("projects") or {}).values():
        names |= set(project.get("mcpServers") or {})
    return names


def idea_ask(idea: IdeaEnv, agent: str, task: str, cwd: str) -> subprocess.Popen[str]:
    """`idea ask AGENT TASK --json` as a user's shell runs it (it blocks until the reply)."""
    return subprocess.Popen([IDEA_BIN, "ask", agent, task, "--json"], env=idea.env, cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_three_asks_queue_for_one_target_and_are_answered_in_order(
        idea: IdeaEnv, server: ModelServer, script: Script) -> None:
    team = RealTeam(idea, server)
    agents = team.project()
    team.new("Lead", "claude", persona("lead"))
    team.new("Dev", "claude", persona("dev"))
    first_held = threading.Event()
    # The Dev's model takes its time on the first task, so the other two queue behind it.
    script.add("QUEUED-TASK-1", lambda request: Held(
        answers_now(request, "RESULT-1"), first_held.is_set), system=marker("dev"))
    answers(script, "dev", "QUEUED-TASK-2", "RESULT-2")
    answers(script, "dev", "QUEUED-TASK-3", "RESULT-3")
    asks(script, "lead", "START-QUEUE", "Dev", "QUEUED-TASK-1 from the Lead")
    concludes(script, "lead", "RESULT-1", "LEAD-GOT-RESULT-1")

    team.launch("Dev", "claude")
    lead = team.launch("Lead", "claude")
    team.type_line(lead["target"], "START-QUEUE")
    server.wait_for(lambda r: r.rule is not None and "QUEUED-TASK-1" in r.latest,
                    timeout=WAIT, what="the first task reaching the Dev")
    cwd = str(agents.project)
    second = idea_ask(idea, "Dev", "QUEUED-TASK-2 from the user", cwd)
    retry_until(lambda: queue_depth(team, "Dev") == 1, WAIT,
                describe=lambda: json.dumps(agents.list(), indent=1))
    third = idea_ask(idea, "Dev", "QUEUED-TASK-3 from the user", cwd)
    retry_until(lambda: queue_depth(team, "Dev") == 2, WAIT,
                describe=lambda: json.dumps(agents.list(), indent=1))
    first_held.set()

    out2, err2 = second.communicate(timeout=WAIT * 2)
    out3, err3 = third.communicate(timeout=WAIT * 2)
    assert second.returncode == 0, err2
    assert third.returncode == 0, err3
    assert "RESULT-2" in out2 and "RESULT-3" in out3
    team.wait_marker(lead["target"], "LEAD-GOT-RESULT-1")
    tasks = [r.latest for r in requests_of(server, "dev") if TASK_PREFIX.search(r.latest)]
    order = [n for text in tasks for n in ("1", "2", "3") if f"QUEUED-TASK-{n}" in text]
    assert order == ["1", "2", "3"], order  # FIFO, one turn at a time


def answers_now(request: ModelRequest, result: str) -> list[McpCall]:
    found = TASK_PREFIX.search(request.latest)
    assert found is not None
    return [McpCall("idea", "idea_reply", {"result": result, "ticket": found["ticket"]})]


def queue_depth(team: RealTeam, name: str) -> int:
    """Tasks waiting for `name`, its current turn excluded (`idea agent state --json`)."""
    state = team.idea.json("agent", "state", name, "-p", str(team.team.project))
    depth = state["queue"]
    assert isinstance(depth, int)
    return depth


@pytest.mark.timeout(900)
def test_a_long_task_comes_back_after_no_reply_yet_and_a_second_call(
        idea: IdeaEnv, server: ModelServer, script: Script) -> None:
    """The Dev's model takes longer than one long-poll (~100 s): the Lead's first call
    returns "No reply yet … ticket T", the Lead calls again with the ticket, and the reply
    arrives on that call. The Claude Code TUI never reaches its 120 s background switch."""
    team = RealTeam(idea, server)
    team.project()
    team.new("Lead", "claude", persona("lead"))
    team.new("Dev", "claude", persona("dev"))
    asks(script, "lead", "START-LONG", "Dev", "LONG-TASK: take your time")
    keeps_waiting(script, "lead")
    waited = threading.Event()
    script.add("LONG-TASK", lambda request: Held(answers_now(request, "LONG-RESULT"),
                                                 waited.is_set), system=marker("dev"))
    concludes(script, "lead", "LONG-RESULT", "LEAD-GOT-LONG-RESULT")

    team.launch("Dev", "claude")
    lead = team.launch("Lead", "claude")
    team.type_line(lead["target"], "START-LONG")
    # The model holds the Dev's answer until the Lead was told "No reply yet".
    server.wait_for(lambda r: r.rule == "lead waits again", timeout=300,
                    what="the Lead calling again after No reply yet")
    waited.set()
    team.wait_marker(lead["target"], "LEAD-GOT-LONG-RESULT", timeout=300)
    lead_calls = [r for r in requests_of(server, "lead") if r.rule is not None]
    rules = [r.rule for r in lead_calls]
    # Asked once; called again (once, or more on a very slow machine); concluded.
    assert rules[0] == "lead asks Dev" and rules[-1] == "lead concludes LONG-RESULT", rules
    assert set(rules[1:-1]) == {"lead waits again"}, rules
    # The answer is the second call's own tool result (a call the TUI moved to the
    # background would come back later as a task notification instead).
    assert json.loads(lead_calls[-1].latest) == {"result": "LONG-RESULT"}


@pytest.mark.parametrize("dev_cli", ["claude", "codex"])
def test_asking_an_agent_that_is_not_running_launches_it_and_delivers_the_task(
        idea: IdeaEnv, server: ModelServer, script: Script, dev_cli: str) -> None:
    """Cold launch (DLG-10): the Dev is started in the background by the ask, and its first
    task is typed in only once its MCP client is up and its prompt is ready."""
    team = RealTeam(idea, server)
    agents = team.project()
    team.new("Lead", "claude", persona("lead"))
    team.new("Dev", dev_cli, persona("dev"))
    asks(script, "lead", "START-COLD", "Dev", "COLD-TASK: are you up?")
    keeps_waiting(script, "lead")
    answers(script, "dev", "COLD-TASK", "COLD-RESULT: up and running")
    concludes(script, "lead", "COLD-RESULT: up and running", "LEAD-SAW-COLD-RESULT")

    lead = team.launch("Lead", "claude")
    assert team.team.info("Dev")["state"] != "running"
    team.type_line(lead["target"], "START-COLD")
    team.wait_marker(lead["target"], "LEAD-SAW-COLD-RESULT")
    dev = agents.info("Dev")
    assert dev["state"] == "running" and dev["background"] is True
    [(caller, _)] = delivered_tasks(server, "dev")
    assert caller == "Lead"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_claude_mcp_list_connects_to_the_config_idea_generated(
        idea: IdeaEnv, server: ModelServer, transport: str) -> None:
    """The `idea` entry of the mcp.json the daemon wrote for an agent, given to a real
    `claude mcp list` (its own health check, a real MCP handshake through idea's stdio
    bridge or its streamable HTTP endpoint): Connected. The same entry with a forged
    secret is refused."""
    claude = require_cli("claude")
    team = RealTeam(idea, server)
    agents = team.project()
    claude_profile = next(p for p in builtin_profiles() if p["id"] == "claude-code")
    agents.add_profile({**claude_profile, "id": f"claude-{transport}",
                        "mcp": {**claude_profile["mcp"], "transport": transport}})
    created = agents.new("Lead", f"claude-{transport}", persona("lead"))
    team.launch("Lead", "claude")
    config = json.loads((agents.run_dir(created["id"]) / "mcp.json").read_text())
    entry = config["mcpServers"]["idea"]
    assert entry["type"] == transport
    home = idea.root / "check-home"
    env = {**base_env(home, idea.env["PATH"]),
           **prepare_claude(home, server.url, [agents.project])}
    bad = json.loads(json.dumps(entry))
    if transport == "stdio":
        for name, value in bad["env"].items():
            if "SECRET" in name:
                bad["env"][name] = "0" * len(value)
    else:
        bad["headers"]["Authorization"] = "Bearer " + "0" * 32
    for name, server_entry in (("idea", entry), ("forged", bad)):
        added = run([claude, "mcp", "add-json", name, json.dumps(server_entry)], env=env,
                    cwd=agents.project)
        assert added.returncode == 0, added.stdout + added.stderr
    listed = run([claude, "mcp", "list"], env=env, cwd=agents.project)
    lines = {line.split(":", 1)[0]: line for line in listed.stdout.splitlines() if ":" in line}
    assert "✔ Connected" in lines["idea"], listed.stdout + listed.stderr
    assert "✔ Connected" not in lines["forged"], listed.stdout


def test_esc_in_the_claude_tui_cancels_the_ask_and_frees_the_target(
        idea: IdeaEnv, server: ModelServer, script: Script) -> None:
    """Esc while the Lead's idea_ask_agent call blocks: Claude Code cancels the call, idea
    ends the ticket (DLG-7), the Dev is not left "busy" with it, and the next task reaches
    the Dev and is answered."""
    team = RealTeam(idea, server)
    agents = team.project()
    team.new("Lead", "claude", persona("lead"))
    team.new("Dev", "claude", persona("dev"))
    asks(script, "lead", "START-CANCEL", "Dev", "CANCELLED-TASK: never mind")
    released = threading.Event()
    script.add("CANCELLED-TASK", lambda request: Held(answers_now(request, "TOO-LATE"),
                                                      released.is_set), system=marker("dev"))
    answers(script, "dev", "AFTER-CANCEL", "AFTER-CANCEL-RESULT")

    team.launch("Dev", "claude")
    lead = team.launch("Lead", "claude")
    team.type_line(lead["target"], "START-CANCEL")
    server.wait_for(lambda r: "CANCELLED-TASK" in r.latest and marker("dev") in r.system,
                    timeout=WAIT, what="the task reaching the Dev")
    ticket = state_of(team, "Dev")["ticket"]
    assert ticket is not None
    idea.send_keys(lead["target"], "Escape")
    retry_until(lambda: state_of(team, "Dev")["ticket"] is None, WAIT,
                describe=lambda: json.dumps(state_of(team, "Dev")))
    released.set()  # the Dev's late reply to the cancelled ticket goes nowhere

    after = idea_ask(idea, "Dev", "AFTER-CANCEL please", str(agents.project))
    out, err = after.communicate(timeout=WAIT * 2)
    assert after.returncode == 0, err
    assert "AFTER-CANCEL-RESULT" in out


def state_of(team: RealTeam, name: str) -> dict[str, object]:
    state: dict[str, object] = team.idea.json("agent", "state", name, "-p",
                                              str(team.team.project))
    return state
