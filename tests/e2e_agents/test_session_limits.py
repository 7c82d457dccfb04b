"""Session limits end to end (issue 10): the real daemon with a frozen test clock
(IDEA_TEST_CLOCK), fake agents speaking MCP, real PTYs.

The fake agent prints a limit message on `/rate-limit TEXT` (typed into its cell, as a
person would, so no delegated turn is involved); its profile's `rateLimitPattern` captures
the reset time (level 2). The test clock moves only by the `test_clock` command: a resume
"at 10:30" fires when the test says it is 10:31, without sleeping.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from adapters.ipc.messages import Notice
from core.session_limits.prompts import FALLBACK_PROMPT, RESUME_PROMPT
from idea_tui.control import ControlClient
from tests.e2e_agents.delegation import FAST_BOUNDS
from tests.e2e_agents.helpers import FAKE_AGENT, PROMPT_READY, SESSIONS, WAIT, Agents
from tests.e2e_agents.test_resume import restart_daemon
from tests.helpers.idea import IDEA_BIN, IdeaEnv
from tests.helpers.raw_client import RawClient
from tests.helpers.retry import retry_until

pytestmark = pytest.mark.e2e

START = "2026-12-01T10:00:00+00:00"
PATTERN = r"You've hit your limit(?: · resets (?P<reset>[^\n]*\S))?"
LIMITS = """
[session_limits]
resume_margin = 60
stall_after = {stall}
"""


@pytest.fixture
def clocked(tmp_path: Path, test_shell: Path) -> Iterator[IdeaEnv]:
    env = IdeaEnv(tmp_path, test_shell, extra_env={"IDEA_TEST_CLOCK": START, "TZ": "UTC"})
    try:
        yield env
    finally:
        env.stop()


def limited_profile(idea: IdeaEnv, profile_id: str) -> dict[str, Any]:
    """The MCP fake agent with Claude-style session templates and a limit pattern. The
    session words come before the args, so the interpreter is hidden in a wrapper."""
    wrapper = idea.root / f"{profile_id}.sh"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_AGENT}" "$@"\n')
    wrapper.chmod(0o755)
    return {
        "id": profile_id,
        "name": f"Fake {profile_id}",
        "command": str(wrapper),
        "args": ["--report", "{runDir}/report.json", "--context-file", "", "--mcp-connect",
                 "--no-paste-context"],
        "contextInjection": {"strategy": "flag", "flag": "--append-system-prompt {content}"},
        "mcp": {"config": {"strategy": "flag", "flag": "--mcp-config {path}"},
                "transport": "stdio"},
        "session": dict(SESSIONS),
        "promptReadyPattern": PROMPT_READY,
        "rateLimitPattern": PATTERN,
        "state": {"version": 1, "workingTitle": ["working"], "idleScreen": [PROMPT_READY],
                  "quietMs": 200},
    }


def setup(idea: IdeaEnv, stall: float = 0, profiles: tuple[str, ...] = ("fake-a",)) -> Agents:
    config = idea.locations.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(FAST_BOUNDS + LIMITS.format(stall=stall))
    agents = Agents(idea, idea.new_project("proj"))
    for profile in profiles:
        agents.add_profile(limited_profile(idea, profile))
    return agents


def set_clock(idea: IdeaEnv, at: str) -> None:
    with ControlClient.connect(idea.locations) as client:
        client.call("test_clock", at=at)


def limit(agents: Agents, name: str, text: str) -> dict[str, Any]:
    """The agent's `limit` block of `idea agent list --json` once its text is `text`."""
    def found() -> dict[str, Any] | None:
        info = agents.info(name)
        block = info.get("limit")
        return info if isinstance(block, dict) and block.get("text") == text else None

    return retry_until(found, WAIT, describe=lambda: json.dumps(agents.info(name)))


def not_limited(agents: Agents, name: str) -> dict[str, Any]:
    def free() -> dict[str, Any] | None:
        info = agents.info(name)
        return info if "limit" not in info else None

    return retry_until(free, WAIT, describe=lambda: json.dumps(agents.info(name)))


def hit_limit(agents: Agents, target: str, reset: str | None) -> None:
    agents.capture(target, PROMPT_READY)
    text = "You've hit your limit" + (f" · resets {reset}" if reset else "")
    agents.idea.send_keys(target, f"/rate-limit {text}", "Enter")


def mcp_ready(idea: IdeaEnv) -> None:
    """The daemon has loaded its MCP server (`loop_stats` says warm): a resume relaunches
    the agent's CLI, which connects to it. A restarted daemon shows its limits at once but
    loads the MCP SDK for seconds more (many on a loaded machine): a wait for the resumed
    agent must not also cover that."""
    def warm() -> bool:
        with ControlClient.connect(idea.locations) as client:
            return bool(client.call("loop_stats")["warm"])

    retry_until(warm, WAIT, describe=lambda: idea.locations.log_file.read_text()[-2000:])


def ask_in_background(idea: IdeaEnv, name: str, task: str,
                      *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([IDEA_BIN, "ask", name, task, "--json", *extra], env=idea.env,
                            cwd=idea.root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finished(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = process.communicate(timeout=WAIT * 2)
    assert out, err
    result: dict[str, Any] = json.loads(out)
    return result


def queued_ticket(agents: Agents, name: str) -> dict[str, Any]:
    def found() -> dict[str, Any] | None:
        listed = agents.idea.json("agent", "tickets")
        waiting = [t for t in listed if t["target"] == name and t["state"] == "queued"]
        return waiting[0] if waiting else None

    return retry_until(found, WAIT, describe=lambda: agents.idea.run("agent", "tickets").stdout)


def tickets_of(agents: Agents, name: str) -> list[tuple[str, str]]:
    """The agent's unfinished tickets, oldest first: (id, state)."""
    listed = agents.idea.json("agent", "tickets")
    return [(t["ticket"], t["state"]) for t in listed
            if t["target"] == name and t["state"] in ("queued", "delivered", "submitted")]


def queued_count(agents: Agents, name: str, count: int) -> None:
    """Until the agent has `count` unfinished tickets."""
    retry_until(lambda: len(tickets_of(agents, name)) == count or None, WAIT,
                describe=lambda: agents.idea.run("agent", "tickets").stdout)


class Notices:
    """An attached client (as `idea attach` is) that keeps every notice it is sent, read
    in a thread so the daemon's frames never back up."""

    def __init__(self, idea: IdeaEnv) -> None:
        self.client = RawClient(str(idea.locations.socket), width=120, height=40)
        self.texts: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            message = self.client.receive(0.2)
            self.client.messages.clear()
            if isinstance(message, Notice):
                self.texts.append(message.text)

    def close(self) -> list[str]:
        self._stop.set()
        self._thread.join(10)
        self.client.close()
        return self.texts


def test_limit_badge_held_queue_and_resume_at_the_reset(clocked: IdeaEnv) -> None:
    agents = setup(clocked)
    alice = agents.new("alice", "fake-a")
    target = agents.launch("alice")["target"]
    first = agents.report(alice["id"], lambda r: r["mcp"]["connected"])
    notices = Notices(clocked)
    hit_limit(agents, target, "10:30am (UTC)")

    info = limit(agents, "alice", "rate_limited (until 10:30)")
    block = info["limit"]
    assert block["level"] == 2 and block["source"] == "screen"
    assert block["resumeAt"] == "2026-12-01T10:31:00+00:00"
    assert block["countdown"] == "31m 00s" and block["armedBy"] == "auto"
    # The cell's border says it too.
    [cell] = [c for c in clocked.cells() if c["id"] == info["cell"]]
    assert cell["agentState"] == "rate_limited (until 10:30)", cell
    # And `idea monitor`, with when it resumes (no countdown: it prints a line per change).
    watched = json.loads(clocked.run("monitor", "--once", "--json").stdout)
    [row] = [r for r in watched["agents"] if r["name"] == "alice"]
    assert (row["state"], row["detail"]) == ("rate_limited", "until 10:30, resumes 10:31"), row

    # A task asked meanwhile waits in the held FIFO; its progress says why.
    asking = ask_in_background(clocked, "alice", "reply done after the limit")
    ticket = queued_ticket(agents, "alice")
    assert "target limited until 10:31" in ticket["progress"], ticket
    assert agents.info("alice")["queue"] == 1

    set_clock(clocked, "2026-12-01T10:31:05+00:00")
    result = finished(asking)
    assert result["state"] == "replied" and result["reply"] == "done after the limit", result
    not_limited(agents, "alice")
    # Resumed with the profile's resume template, then the resume prompt, then the task.
    report = agents.report(alice["id"], lambda r: r["pid"] != first["pid"]
                           and len(r["messages"]) >= 2)
    assert report["argv"][:2] == ["--resume", first["session"]["id"]], report["argv"]
    assert report["session"]["resumed"] is True
    assert report["messages"][0] == RESUME_PROMPT
    assert report["messages"][1].endswith("reply done after the limit")
    # The user was told once of each transition, though the limit's message stayed on the
    # agent's screen through every redraw meanwhile (the queued task, the countdown).
    retry_until(lambda: any("resumed after its usage limit" in t for t in notices.texts),
                WAIT, describe=lambda: str(notices.texts))
    told = notices.close()
    assert len([t for t in told if "alice hit a usage limit" in t]) == 1, told
    assert len([t for t in told if "alice resumed after its usage limit" in t]) == 1, told


def test_unknown_time_set_time_cancel_and_resume_now(clocked: IdeaEnv) -> None:
    agents = setup(clocked)
    bob = agents.new("bob", "fake-a")
    target = agents.launch("bob")["target"]
    agents.report(bob["id"], lambda r: r["mcp"]["connected"])
    hit_limit(agents, target, None)
    info = limit(agents, "bob", "rate_limited (unknown)")
    assert info["limit"]["resumeAt"] is None

    said = clocked.run("agent", "resume", "bob", "--cancel").stdout
    assert "no resume was armed" in said
    armed = clocked.json("agent", "resume", "bob", "--at", "10:20")
    assert armed["limit"]["resumeAt"] == "2026-12-01T10:20:00+00:00"
    assert armed["limit"]["armedBy"] == "user"
    cancelled = clocked.json("agent", "resume", "bob", "--cancel")
    assert cancelled["cancelled"] is True and cancelled["limit"]["resumeAt"] is None
    # Cancelled: the time passing resumes nothing; the agent stays limited.
    set_clock(clocked, "2026-12-01T10:25:00+00:00")
    assert agents.info("bob")["limit"]["text"] == "rate_limited (until 10:20)"
    bad = clocked.run("agent", "resume", "bob", "--at", "25:99", check=False)
    assert bad.returncode != 0 and "not a time" in bad.stderr + bad.stdout

    clocked.run("agent", "resume", "bob", "--now")
    not_limited(agents, "bob")
    agents.report(bob["id"], lambda r: RESUME_PROMPT in r["messages"])


def test_a_cli_that_cannot_resume_is_relaunched_fresh_with_the_handoff(
        clocked: IdeaEnv) -> None:
    """A profile with no session templates cannot continue a conversation by its id. Its
    CLI exited while limited (no CLI to go on in): at the reset it is launched afresh where
    it was, its conversation's handoff in its context, then the resume prompt comes first
    through its FIFO and the tasks held meanwhile follow in their order."""
    agents = setup(clocked)
    profile = limited_profile(clocked, "fake-n")
    del profile["session"]
    agents.add_profile(profile)
    noah = agents.new("noah", "fake-n")
    launched = agents.launch("noah")
    first = agents.report(noah["id"], lambda r: r["mcp"]["connected"])
    assert "--session-id" not in first["argv"]  # no templates: idea knows no id
    said = finished(ask_in_background(clocked, "noah", "reply the cache is warm"))
    assert said["reply"] == "the cache is warm", said
    hit_limit(agents, launched["target"], "10:30am (UTC)")
    limit(agents, "noah", "rate_limited (until 10:30)")
    asked = []
    for which in ("first", "second"):  # one after the other: queued in this order
        asked.append(ask_in_background(clocked, "noah", f"reply {which} after the limit"))
        queued_count(agents, "noah", len(asked))
    clocked.send_keys(launched["target"], "/exit 0", "Enter")
    agents.report(noah["id"], lambda r: r["state"] == "exited")
    retry_until(lambda: agents.info("noah")["state"] != "running" or None, WAIT,
                describe=lambda: json.dumps(agents.info("noah")))

    set_clock(clocked, "2026-12-01T10:31:05+00:00")
    replies = [finished(process)["reply"] for process in asked]
    assert replies == ["first after the limit", "second after the limit"]
    not_limited(agents, "noah")
    report = agents.report(noah["id"], lambda r: r["pid"] != first["pid"]
                           and len(r["messages"]) >= 3)
    assert "--resume" not in report["argv"] and report["session"]["resumed"] is not True
    [context] = [c for c in report["contexts"] if c["strategy"] == "flag"]
    assert "# Conversation resume" in context["content"], context["content"]
    assert "the cache is warm" in context["content"].split("# Conversation resume", 1)[1]
    assert report["messages"][0] == RESUME_PROMPT
    assert [m.split("] ", 1)[1] for m in report["messages"][1:]] == [
        "reply first after the limit", "reply second after the limit"]
    assert agents.info("noah")["cell"] == launched["cell"]  # where it was


def test_a_caller_whose_bound_passes_first_gets_a_clear_error(clocked: IdeaEnv) -> None:
    agents = setup(clocked)
    carol = agents.new("carol", "fake-a")
    target = agents.launch("carol")["target"]
    agents.report(carol["id"], lambda r: r["mcp"]["connected"])
    hit_limit(agents, target, "4pm (UTC)")
    limit(agents, "carol", "rate_limited (until 16:00)")
    result = finished(ask_in_background(clocked, "carol", "reply never", "--timeout", "60"))
    assert result["state"] == "failed", result
    assert "carol limited until 16:01" in result["reason"] and "time bound" in result["reason"]


def test_a_stall_is_suspected_and_the_user_arms_the_resume(clocked: IdeaEnv) -> None:
    agents = setup(clocked, stall=1.5)
    dana = agents.new("dana", "fake-a")
    agents.launch("dana")
    first = agents.report(dana["id"], lambda r: r["mcp"]["connected"])
    # A task the agent takes but never answers: after stall_after, "limit suspected".
    asking = ask_in_background(clocked, "dana", "never think about the cache")
    info = limit(agents, "dana", "limit suspected")
    assert info["limit"]["level"] == 3 and info["limit"]["resumeAt"] is None
    # Asking = arming: the user's time; the interrupted task went back to the queue.
    clocked.json("agent", "resume", "dana", "--at", "10:05")
    assert agents.info("dana")["limit"]["text"] == "rate_limited (until 10:05)"
    queued_ticket(agents, "dana")
    set_clock(clocked, "2026-12-01T10:05:01+00:00")
    report = agents.report(dana["id"], lambda r: r["pid"] != first["pid"]
                           and len(r["messages"]) >= 2)
    # Its conversation resumed, the resume prompt, then the task again.
    assert report["argv"][:2] == ["--resume", first["session"]["id"]]
    assert report["messages"][0] == RESUME_PROMPT
    assert report["messages"][1].endswith("never think about the cache"), report["messages"]
    asking.kill()
    asking.communicate()


def test_a_wrong_suspicion_is_answered_not_a_limit_and_the_task_goes_on(
        clocked: IdeaEnv, tmp_path: Path) -> None:
    """A task the agent works on silently (longer than `stall_after`): "limit suspected".
    The suspicion holds the queue but leaves the turn running; the user's answer "not a
    limit" restarts nothing, the agent's reply to that task is taken when it comes, the
    task is delivered once, and the queue goes on in its order."""
    agents = setup(clocked, stall=1.5)
    dana = agents.new("dana", "fake-a")
    agents.launch("dana")
    first = agents.report(dana["id"], lambda r: r["mcp"]["connected"])
    go = tmp_path / "go"
    task = f"hold {go} the plan"
    asking = ask_in_background(clocked, "dana", task)
    limit(agents, "dana", "limit suspected")
    [(ticket, state)] = tickets_of(agents, "dana")
    assert state in ("delivered", "submitted")  # still its turn
    then = ask_in_background(clocked, "dana", "reply the tests")
    waiting = queued_ticket(agents, "dana")
    assert "target seems stuck: a usage limit is suspected" in waiting["progress"], waiting
    assert [t for t, _state in tickets_of(agents, "dana")] == [ticket, waiting["ticket"]]

    said = clocked.run("agent", "resume", "dana", "--not-limited").stdout
    assert said.strip() == "dana: not a limit (its task goes on)", said
    not_limited(agents, "dana")
    # The same turn goes on, the queue in its order.
    [(now_first, now_state), after] = tickets_of(agents, "dana")
    assert now_first == ticket and now_state in ("delivered", "submitted")
    assert after == (waiting["ticket"], "queued")
    go.touch()
    assert finished(asking)["reply"] == "the plan"
    assert finished(then)["reply"] == "the tests"
    report = agents.report(dana["id"], lambda r: len(r["messages"]) >= 2)
    assert report["pid"] == first["pid"]  # not restarted
    assert [m.split("] ", 1)[1] for m in report["messages"]] == [task, "reply the tests"]
    # Answered again later: nothing to answer.
    again = clocked.run("agent", "resume", "dana", "--not-limited", check=False)
    assert again.returncode != 0 and "dana is not at a usage limit" in again.stderr


def test_a_suspected_agent_that_answers_after_all_is_no_longer_suspected(
        clocked: IdeaEnv, tmp_path: Path) -> None:
    agents = setup(clocked, stall=1.5)
    eve = agents.new("eve", "fake-a")
    agents.launch("eve")
    agents.report(eve["id"], lambda r: r["mcp"]["connected"])
    go = tmp_path / "go"
    asking = ask_in_background(clocked, "eve", f"hold {go} late but done")
    limit(agents, "eve", "limit suspected")
    go.touch()
    result = finished(asking)
    assert (result["state"], result["reply"]) == ("replied", "late but done"), result
    not_limited(agents, "eve")


def test_an_armed_resume_survives_a_daemon_restart(clocked: IdeaEnv) -> None:
    agents = setup(clocked)
    erin = agents.new("erin", "fake-a")
    launched = agents.launch("erin")
    first = agents.report(erin["id"], lambda r: r["mcp"]["connected"])
    hit_limit(agents, launched["target"], "10:30am (UTC)")
    limit(agents, "erin", "rate_limited (until 10:30)")
    book = agents.ideai / "run" / "session-limits.json"
    saved = json.loads(book.read_text())
    assert saved["limits"][0]["fireAt"] == "2026-12-01T10:31:00Z"

    restart_daemon(clocked, agents.project, [first["pid"]])
    clocked.run("open", str(agents.project))
    # Back with its schedule (the test clock starts at 10:00 again).
    info = limit(agents, "erin", "rate_limited (until 10:30)")
    assert info["limit"]["resumeAt"] == "2026-12-01T10:31:00+00:00"
    mcp_ready(clocked)
    set_clock(clocked, "2026-12-01T10:31:30+00:00")
    report = agents.report(erin["id"], lambda r: r["pid"] != first["pid"]
                           and RESUME_PROMPT in r["messages"])
    assert report["argv"][:2] == ["--resume", first["session"]["id"]]
    assert not agents.info("erin").get("limit")
    assert agents.info("erin")["cell"] == launched["cell"]  # where it was


def test_a_corrupt_book_is_reported_and_kept(clocked: IdeaEnv) -> None:
    agents = setup(clocked)
    fred = agents.new("fred", "fake-a")
    book = agents.ideai / "run" / "session-limits.json"
    book.parent.mkdir(parents=True, exist_ok=True)
    book.write_text("{not json")
    clocked.run("kill-server", "-f")
    clocked.run("open", str(agents.project))
    target = agents.launch("fred")["target"]
    agents.report(fred["id"], lambda r: r["mcp"]["connected"])
    hit_limit(agents, target, "10:30am (UTC)")
    limit(agents, "fred", "rate_limited (until 10:30)")  # still detected, in memory
    assert book.read_text() == "{not json"
    problems = clocked.run("ls").stdout + clocked.run("ls").stderr
    assert "session-limits.json" in problems, problems


def test_fallback_continues_on_another_profile_and_swaps_back(clocked: IdeaEnv) -> None:
    agents = setup(clocked, profiles=("fake-a", "fake-b"))
    gus = agents.new("gus", "fake-a", "# Gus\n\nYou keep the cache warm.\n")
    # A note in the project's memory, for the recall that goes along.
    remembered = subprocess.run(
        [IDEA_BIN, "memory", "edit", "cache-ttl", "--file", "-",
         "--description", "The cache keeps entries for ten minutes"],
        input="# Cache TTL\n\nTen minutes.\n", capture_output=True, text=True,
        env=clocked.env, cwd=agents.project, timeout=60)
    assert remembered.returncode == 0, remembered.stderr
    clocked.run("agent", "fallback", "gus", "fake-b")
    assert clocked.json("agent", "fallback")["agents"] == {"gus": "fake-b"}
    target = agents.launch("gus")["target"]
    first = agents.report(gus["id"], lambda r: r["mcp"]["connected"])
    # Some conversation first, so there is a handoff to carry over.
    said = finished(ask_in_background(clocked, "gus", "reply the cache is warm"))
    assert said["reply"] == "the cache is warm", said
    hit_limit(agents, target, "10:30am (UTC)")

    info = limit(agents, "gus", "on fallback fake-b until 10:31")
    assert info["profileId"] == "fake-b" and info["limit"]["swappedFrom"] == "fake-a"
    on_b = agents.report(gus["id"], lambda r: r["pid"] != first["pid"]
                         and FALLBACK_PROMPT in r["messages"])
    assert "--resume" not in on_b["argv"]  # a Claude id is not another CLI's id
    [context] = [c for c in on_b["contexts"] if c["strategy"] == "flag"]
    assert "You keep the cache warm." in context["content"]  # the persona came along
    # The handoff of its conversation with the user came along too (# Conversation resume).
    assert "# Conversation resume" in context["content"], context["content"]
    assert "the cache is warm" in context["content"].split("# Conversation resume", 1)[1]
    # And its memory recall (# Project memory), as at any launch.
    assert "# Project memory\n\n" in context["content"], context["content"]
    recall = context["content"].split("# Project memory", 1)[1]
    assert "- [cache-ttl](cache-ttl.md) — The cache keeps entries for ten minutes" in recall
    # Its queue moved with it: a task now is answered on fake-b.
    result = finished(ask_in_background(clocked, "gus", "reply answered on b"))
    assert result["reply"] == "answered on b"

    set_clock(clocked, "2026-12-01T10:31:10+00:00")
    def swapped_back() -> dict[str, Any] | None:
        info = agents.info("gus")
        return info if info["profileId"] == "fake-a" and "limit" not in info else None

    back = retry_until(swapped_back, WAIT, describe=lambda: json.dumps(agents.info("gus")))
    assert back["state"] == "running"
    agents.report(gus["id"], lambda r: r["pid"] != on_b["pid"]
                  and FALLBACK_PROMPT in r["messages"])


def test_continue_on_another_profile_from_the_cli_and_stay_there(clocked: IdeaEnv) -> None:
    """`idea agent resume NAME --on PROFILE --stay`: the hot-swap from the command line, for
    good (no swap back at the reset: nothing stays armed)."""
    agents = setup(clocked, profiles=("fake-a", "fake-b"))
    jo = agents.new("jo", "fake-a", "# Jo\n\nYou write the release notes.\n")
    target = agents.launch("jo")["target"]
    first = agents.report(jo["id"], lambda r: r["mcp"]["connected"])
    hit_limit(agents, target, "10:30am (UTC)")
    limit(agents, "jo", "rate_limited (until 10:30)")
    said = clocked.run("agent", "resume", "jo", "--on", "fake-b", "--stay").stdout
    assert said.strip() == "jo: continues on fake-b", said
    info = not_limited(agents, "jo")
    assert info["profileId"] == "fake-b", info
    on_b = agents.report(jo["id"], lambda r: r["pid"] != first["pid"]
                         and FALLBACK_PROMPT in r["messages"])
    [context] = [c for c in on_b["contexts"] if c["strategy"] == "flag"]
    assert "You write the release notes." in context["content"]


def test_a_project_wide_fallback_and_an_agent_opted_out_of_it(clocked: IdeaEnv) -> None:
    agents = setup(clocked, profiles=("fake-a", "fake-b"))
    kim = agents.new("kim", "fake-a")
    lee = agents.new("lee", "fake-a")
    clocked.run("agent", "fallback", "--project-wide", "fake-b")
    clocked.run("agent", "fallback", "lee", "--off")
    assert clocked.json("agent", "fallback") == {"project": "fake-b", "agents": {"lee": None},
                                                 "swapBack": True}
    for name, agent in (("kim", kim), ("lee", lee)):
        target = agents.launch(name)["target"]
        agents.report(agent["id"], lambda r: r["mcp"]["connected"])
        hit_limit(agents, target, "10:30am (UTC)")
    info = limit(agents, "kim", "on fallback fake-b until 10:31")
    assert info["profileId"] == "fake-b" and info["limit"]["swappedFrom"] == "fake-a"
    info = limit(agents, "lee", "rate_limited (until 10:30)")  # opted out: it waits
    assert info["profileId"] == "fake-a"


def test_a_cli_that_goes_on_by_itself_is_not_resumed_twice(clocked: IdeaEnv) -> None:
    """Claude Code continues at the reset by itself: seen working after the reset time (here
    a turn typed straight into the cell, as the CLI's own continue would start one), the
    agent needs no resume from idea, and its armed resume is dropped."""
    agents = setup(clocked)
    hana = agents.new("hana", "fake-a")
    target = agents.launch("hana")["target"]
    first = agents.report(hana["id"], lambda r: r["mcp"]["connected"])
    hit_limit(agents, target, "10:30am (UTC)")
    limit(agents, "hana", "rate_limited (until 10:30)")
    set_clock(clocked, "2026-12-01T10:30:10+00:00")  # after the reset, before the resume
    clocked.send_keys(target, "[idea · task from user · ticket T0] stall 3 done", "Enter")
    not_limited(agents, "hana")
    set_clock(clocked, "2026-12-01T10:35:00+00:00")  # long past the armed resume
    report = agents.report(hana["id"], lambda r: "stall 3 done" in " ".join(r["messages"]))
    assert report["pid"] == first["pid"]  # not restarted
    assert RESUME_PROMPT not in report["messages"]
    assert agents.info("hana")["state"] == "running" and "limit" not in agents.info("hana")


@pytest.mark.parametrize(("down_until", "fires"), [("2026-12-01T10:45:00+00:00", True),
                                                   ("2026-12-01T18:00:00+00:00", False)])
def test_a_resume_due_while_the_daemon_was_down(clocked: IdeaEnv, down_until: str,
                                                fires: bool) -> None:
    """Due at 10:31 while idea was down: at 10:45 it fires at start; at 18:00 (more than
    `ask_after`, 6 h, later) the user is asked instead and the agent stays limited until
    the user answers (here: resume it now)."""
    agents = setup(clocked)
    ivy = agents.new("ivy", "fake-a")
    launched = agents.launch("ivy")
    first = agents.report(ivy["id"], lambda r: r["mcp"]["connected"])
    hit_limit(agents, launched["target"], "10:30am (UTC)")
    limit(agents, "ivy", "rate_limited (until 10:30)")
    restart_daemon(clocked, agents.project, [first["pid"]])
    clocked.env["IDEA_TEST_CLOCK"] = down_until  # the daemon starts later
    clocked.run("open", str(agents.project))
    if fires:
        mcp_ready(clocked)  # the resume waits for it
        report = agents.report(ivy["id"], lambda r: r["pid"] != first["pid"]
                               and RESUME_PROMPT in r["messages"])
        assert report["argv"][:2] == ["--resume", first["session"]["id"]]
        not_limited(agents, "ivy")
        return
    info = limit(agents, "ivy", "rate_limited (until 10:30)")
    assert info["limit"]["resumeAt"] is None and info["state"] != "running"
    # The user is asked (the client's question when attaching, `idea agent list`, the
    # status line; the daemon's log here).
    said = "ivy's resume was due at 10:30 while idea was not running (7h 29m ago)"
    assert info["limit"]["overdue"] == "2026-12-01T10:31:00+00:00"
    assert info["limit"]["question"].startswith(said + ": resume it now?"), info
    assert "its resume was missed" in clocked.run("agent", "list").stdout
    retry_until(lambda: said in clocked.locations.log_file.read_text(), WAIT,
                describe=lambda: clocked.locations.log_file.read_text()[-2000:])
    # The answer.
    clocked.run("agent", "resume", "ivy", "--now")
    report = agents.report(ivy["id"], lambda r: r["pid"] != first["pid"]
                           and RESUME_PROMPT in r["messages"])
    assert report["argv"][:2] == ["--resume", first["session"]["id"]]
    not_limited(agents, "ivy")
