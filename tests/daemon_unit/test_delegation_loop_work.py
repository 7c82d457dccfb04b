"""Work a stream of delegations no longer puts on the daemon's loop (bench_delegation.py,
part 3, measures the echo it protects; these tests pin the behaviour and its correctness):
profiles decoded only when profiles.json changed, the context refresh's file reads in a
worker thread, the sweeper woken only for a bound earlier than its next look, and a submit
verified by the CLI's working title without rendering its screen."""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any

import pytest

from adapters.agents import catalogue
from core.agents.agent import Agent
from core.agents.context import ContextSections
from core.agents.state_rules import parse_rules
from core.orchestration.tickets import Limits
from idea_daemon.errors import CommandError
from idea_daemon.orchestration import refresh as refresh_module
from idea_daemon.orchestration.delivery import Deliverer
from idea_daemon.orchestration.refresh import ContextRefresh, Knowledge
from idea_daemon.orchestration.service import OrchestrationService
from tests.helpers.unit_daemon import UnitDaemon


def _count(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(owner, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counting)
    return calls


def test_profiles_are_decoded_again_only_when_profiles_json_changed(
    unit: UnitDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    agents = unit.server.agents
    assert agents is not None
    builtin = agents.profile("claude-code")
    agents.profile_store.save([dataclasses.replace(builtin, id="mine", name="Mine")])
    loads = _count(monkeypatch, agents.profile_store, "load")
    catalogue_reads = _count(monkeypatch, catalogue, "builtin_profiles")
    for _ in range(5):
        assert agents.profile("mine").name == "Mine"
        assert agents.profile("codex").id == "codex"
    assert len(loads) == 1
    assert len(catalogue_reads) <= 1, "the built-in catalogue is decoded once"
    # A rewrite (the settings screen, `idea profile add`, an edit by hand) is seen at once.
    agents.profile_store.save([dataclasses.replace(builtin, id="mine", name="Renamed")])
    assert agents.profile("mine").name == "Renamed"
    assert len(loads) == 2
    # A file that cannot be read is reported, never served from the cache.
    agents.profile_store.path.write_text("{ not json")
    with pytest.raises(CommandError) as refused:
        agents.profile("mine")
    assert refused.value.code == "corrupt"
    assert agents.profile("codex").id == "codex", "built-in profiles still work"


def _agent(name: str) -> Agent:
    return Agent(id=f"id-{name.lower()}", name=name, md_path=f"agents/{name.lower()}.md",
                 profile_id="claude-code")


def test_the_context_refresh_reads_files_in_a_worker_thread_not_on_the_loop(
    unit: UnitDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(refresh_module, "RECHECK_DELAY", 0.0)
    root = unit.project()
    session = unit.session_of(unit.focused())
    assert session is not None
    runtime = unit.service.projects[str(root)]
    agent = _agent("Dev")
    threads: list[threading.Thread] = []
    memory_reads: list[threading.Thread] = []
    knowledge = {"memory": "one note"}

    def split(_runtime: Any, _agent: Agent, _material: bool) -> Any:
        memory_reads.append(threading.current_thread())  # the in-memory part: on the loop

        def files() -> Knowledge:
            threads.append(threading.current_thread())
            return dict(knowledge)

        return files

    def compose(runtime: Any, agent: Agent, material: bool) -> Knowledge:
        result: Knowledge = split(runtime, agent, material)()
        return result

    scenes: list[int] = []
    refresh = ContextRefresh(unit.service.projects, lambda _r: [(agent, session)], compose,
                             lambda: scenes.append(1), split=split)
    refresh.launched(runtime, agent, session, ContextSections(project_root="", memory="one note"),
                     None)

    async def changed() -> None:
        refresh.changed(str(root))

    unit.loop.run_until_complete(changed())
    unit.until(lambda: refresh.checks == 1 and bool(threads), "the first re-check ran")
    assert session.context_changed is False, "nothing changed"
    knowledge["memory"] = "two notes"
    unit.loop.run_until_complete(changed())
    unit.until(lambda: session.context_changed, "the changed memory was noticed")
    assert scenes, "the cell's marker is shown"
    assert threads and all(t is not threading.main_thread() for t in threads), threads
    assert memory_reads and all(t is threading.main_thread() for t in memory_reads)
    refresh.stop()


def _orchestration(unit: UnitDaemon) -> OrchestrationService:
    assert unit.server.agents is not None
    return OrchestrationService(unit.service, unit.server.agents)


def test_the_sweeper_is_woken_only_for_a_bound_before_its_next_look(unit: UnitDaemon) -> None:
    root = unit.project()
    unit.call("agent_new", name="Dev")
    orchestration = _orchestration(unit)
    runtime = unit.service.projects[str(root)]
    assert unit.server.agents is not None
    dev = unit.server.agents.agent(runtime, "Dev")
    box = orchestration.box(runtime)

    async def change() -> bool:
        orchestration._wake.clear()
        orchestration._sweep_due = time.monotonic() + 1.0  # as while it waits its second
        orchestration.changed(runtime, ticket)
        return orchestration._wake.is_set()

    ticket = box.ask(requester="user", requester_name="user", target=dev.id,
                     target_name="Dev", task="t", now=time.monotonic())
    assert not unit.loop.run_until_complete(change()), "a bound hours away does not wake it"
    orchestration.limits = box.limits = Limits(queue_wait_cap=0.01)
    assert unit.loop.run_until_complete(change()), "a bound due before its next look does"


def test_a_submit_shown_by_the_working_title_is_verified_without_rendering_the_screen(
    unit: UnitDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = unit.project()
    unit.call("agent_new", name="Dev")
    cell = unit.focused()
    session = unit.session_of(cell)
    assert session is not None
    runtime = unit.service.projects[str(root)]
    orchestration = _orchestration(unit)
    assert unit.server.agents is not None
    dev = unit.server.agents.agent(runtime, "Dev")
    box = orchestration.box(runtime)
    ticket = box.ask(requester="user", requester_name="user", target=dev.id,
                     target_name="Dev", task="the task", now=time.monotonic())
    rules = parse_rules({"version": 1, "workingTitle": ["working"]}, "(?m)^> ")
    submitted_at = session.last_output  # the output below comes after the submit
    unit.pty_of(cell).output(b"\x1b]0;agent: working\x07> the task")
    unit.until(lambda: session.title == "agent: working", "the title was read")
    assert session.last_output > submitted_at

    def no_screen(*_args: Any) -> list[str]:
        raise AssertionError("the screen was rendered")

    monkeypatch.setattr(session, "screen_text", no_screen)
    deliverer = Deliverer(orchestration)
    started = unit.loop.run_until_complete(
        deliverer._started(session, rules, ticket, submitted_at, "the task"))
    assert started is True
