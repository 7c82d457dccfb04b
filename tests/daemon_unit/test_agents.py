"""Agents on fakes: launching, the records that say what ran, resuming after a restart.

The agents' own files (`agents.json`, personas, `run/`) are real files in the project folder;
the programs are fake PTYs and the layouts are in memory.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.layout.model import Leaf, iter_leaves
from tests.helpers.unit_daemon import Stores, UnitDaemon


def _leaves(unit: UnitDaemon, root: Path) -> list[Leaf]:
    layouts = unit.stores.layouts.files[str(root)]
    return [leaf for lay in layouts.layouts for leaf in iter_leaves(lay.tree.root)]


def _agent_leaf(unit: UnitDaemon, root: Path) -> Leaf:
    return next(leaf for leaf in _leaves(unit, root) if leaf.agent is not None)


def _background(root: Path) -> dict[str, Any]:
    path = root / ".ideai" / "run" / "background.json"
    if not path.exists():
        return {}
    entries: dict[str, Any] = json.loads(path.read_text())["agents"]
    return entries


def test_a_new_agent_gets_its_persona_file_and_manifest_entry(unit: UnitDaemon) -> None:
    root = unit.project()
    created = unit.call("agent_new", name="Coder")
    assert created["profileId"] == "claude-code"
    assert Path(created["path"]).is_file()
    manifest = json.loads((root / ".ideai" / "agents.json").read_text())
    assert [agent["name"] for agent in manifest["agents"]] == ["Coder"]


def test_agents_run_at_the_configured_lower_priority_and_shells_do_not(
        unit: UnitDaemon) -> None:
    unit.project()
    assert unit.server.agents is not None
    unit.server.agents.nice = 7  # what bootstrap sets from config.toml's agent_nice
    unit.call("agent_new", name="Coder")
    unit.call("agent_launch", agent="Coder")
    agent, shells = unit.spawner.spawned[-1], unit.spawner.spawned[:-1]
    assert agent.argv[0] == "claude" and agent.nice == 7
    assert shells and all(pty.nice == 0 for pty in shells)


def test_launching_an_agent_starts_its_cli_in_a_new_split(unit: UnitDaemon) -> None:
    root = unit.project()
    unit.call("agent_new", name="Coder")
    status = unit.call("agent_launch", agent="Coder")
    assert status["state"] == "running" and status["background"] is False
    pty = unit.spawner.spawned[-1]
    assert pty.argv[0] == "claude"
    assert "--append-system-prompt" in pty.argv
    assert pty.env["IDEA_AGENT_NAME"] == "Coder"
    assert pty.env["IDEA_CELL"] == status["cell"]
    assert len(unit.cells()) == 2 and unit.focused() == status["cell"]
    context = root / ".ideai" / "run" / status["id"] / "context.md"
    assert f"rooted at `{root}`" in context.read_text()


def test_a_running_agents_cell_is_recorded_as_running_with_its_conversation(
    unit: UnitDaemon,
) -> None:
    root = unit.project()
    unit.call("agent_new", name="Coder")
    status = unit.call("agent_launch", agent="Coder")
    leaf = _agent_leaf(unit, root)
    assert leaf.id == status["cell"]
    assert leaf.agent == status["id"]
    assert leaf.agent_was_running is True
    assert leaf.conversation_id is not None
    # Claude Code is given its conversation id at launch (`--session-id`).
    assert leaf.conversation_id in unit.spawner.spawned[-1].argv


def test_an_agent_runs_once_a_second_launch_names_where_it_is(unit: UnitDaemon) -> None:
    unit.project()
    unit.call("agent_new", name="Coder")
    unit.call("agent_launch", agent="Coder")
    refusal = unit.refused("agent_launch", agent="Coder")
    assert refusal.code == "AGENT_ALREADY_RUNNING"
    assert "proj:Default.1" in str(refusal)
    assert sum(1 for pty in unit.spawner.spawned if pty.argv[0] == "claude") == 1


def test_stopping_an_agent_ends_its_cli_and_records_it_stopped(unit: UnitDaemon) -> None:
    root = unit.project()
    unit.call("agent_new", name="Coder")
    unit.call("agent_launch", agent="Coder")
    cli = unit.spawner.spawned[-1]
    status = unit.call("agent_stop", agent="Coder")
    assert cli.signals == ["HUP"]
    assert status["state"] == "stopped"
    assert _agent_leaf(unit, root).agent_was_running is False
    [agent_cell] = [c for c in unit.cells() if c["id"] == status["cell"]]
    assert agent_cell["running"] is False


def test_an_agent_whose_cli_exits_by_itself_is_not_offered_for_resume(unit: UnitDaemon) -> None:
    root = unit.project()
    unit.call("agent_new", name="Coder")
    unit.call("agent_launch", agent="Coder")
    unit.spawner.spawned[-1].exit(0)
    unit.until(lambda: not _agent_leaf(unit, root).agent_was_running, "the exit was recorded")
    assert unit.call("agent_resumable") == []


def test_a_background_agent_is_recorded_in_background_json(unit: UnitDaemon) -> None:
    root = unit.project()
    unit.call("agent_new", name="Worker")
    status = unit.call("agent_launch", agent="Worker", background=True)
    assert status["background"] is True and "cell" not in status
    assert len(unit.cells()) == 1, "no cell for a background agent"
    assert _background(root)[status["id"]]["running"] is True
    assert unit.spawner.spawned[-1].env["IDEA_CELL"] == f"background:{status['id']}"
    unit.call("agent_stop", agent="Worker")
    assert _background(root) == {}


def test_a_background_agent_brought_into_a_cell_is_not_respawned(unit: UnitDaemon) -> None:
    root = unit.project()
    unit.call("agent_new", name="Worker")
    unit.call("agent_launch", agent="Worker", background=True)
    spawned = len(unit.spawner.spawned)
    cell = unit.focused()
    shell = unit.pty_of(cell)
    status = unit.call("agent_launch", agent="Worker", target=f"%{cell}", force=True)
    assert status["cell"] == cell and status["background"] is False
    assert len(unit.spawner.spawned) == spawned, "the running CLI was moved, not restarted"
    assert shell.signals == ["HUP"], "the cell's shell made way"
    assert _background(root) == {}


def test_after_a_restart_the_agent_that_ran_is_resumable_and_resumes_its_conversation(
    tmp_path: Path,
) -> None:
    stores = Stores(tmp_path / "data")
    first = UnitDaemon(tmp_path, stores)
    root = first.project()
    first.call("agent_new", name="Coder")
    status = first.call("agent_launch", agent="Coder")
    conversation = _agent_leaf(first, root).conversation_id
    first.close()  # the daemon stops: the agent was running
    second = UnitDaemon(tmp_path, stores)
    try:
        [entry] = second.call("agent_resumable")
        assert entry["agent"] == "Coder" and entry["cell"] == status["cell"]
        assert entry["conversationId"] == conversation
        assert second.spawner.spawned[-1].argv[0] == "/bin/sh", "nothing relaunched by itself"
        [resumed] = second.call("agent_resume")
        assert resumed["state"] == "running" and resumed["cell"] == status["cell"]
        cli = second.spawner.spawned[-1]
        assert cli.argv[0] == "claude" and "--resume" in cli.argv
        assert conversation in cli.argv
        assert second.call("agent_resumable") == []
    finally:
        second.close()


def test_switching_profile_of_a_running_agent_asks_then_relaunches_it(unit: UnitDaemon) -> None:
    unit.project()
    unit.call("agent_new", name="Coder")
    unit.call("agent_launch", agent="Coder")
    claude = unit.spawner.spawned[-1]
    assert unit.refused("agent_set_profile", agent="Coder", profile="codex").code == "confirm"
    status = unit.call("agent_set_profile", agent="Coder", profile="codex", force=True)
    assert claude.signals == ["HUP"]
    assert unit.spawner.spawned[-1].argv[0] == "codex"
    assert status["profileId"] == "codex" and status["state"] == "running"


def test_an_agent_cli_that_is_not_installed_fails_with_how_to_fix_it(unit: UnitDaemon) -> None:
    unit.project()
    unit.call("agent_new", name="Coder")
    unit.spawner.missing.add("claude")
    refusal = unit.refused("agent_launch", agent="Coder")
    assert refusal.code == "launch_failed"
    assert "idea agent set-profile Coder" in str(refusal)


def test_deleting_an_agent_keeps_its_markdown_in_the_trash(unit: UnitDaemon) -> None:
    root = unit.project()
    created = unit.call("agent_new", name="Coder")
    assert unit.refused("agent_rm", agent="Coder").code == "confirm"
    unit.call("agent_rm", agent="Coder", force=True)
    assert not Path(created["path"]).exists()
    assert list((root / ".ideai" / "run" / "trash").glob("*.md"))
    assert unit.call("agent_list") == []


class _Threads:
    """Where the launch's file reads ran: the thread of each call."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, threading.Thread]] = []

    def spy(self, label: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.seen.append((label, threading.current_thread()))
            return real(*args, **kwargs)
        return call


def test_a_launch_reads_persona_context_and_memory_off_the_loop_thread(
    unit: UnitDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    from idea_daemon.knowledge_sections import MEMORY_SECTIONS, project_context_section

    root = unit.project()
    unit.call("agent_new", name="Coder")
    (root / ".ideai" / "CONTEXT.md").write_text("Ship on Fridays only.\n")
    threads = _Threads()
    agents = unit.server.agents
    assert agents is not None
    monkeypatch.setattr(agents.persona_store, "read",
                        threads.spy("persona", agents.persona_store.read))
    monkeypatch.setattr("idea_daemon.agent_launch.project_context_section",
                        threads.spy("context", project_context_section))
    monkeypatch.setattr(MEMORY_SECTIONS, "section", threads.spy("memory", MEMORY_SECTIONS.section))
    loop_thread = threading.current_thread()  # UnitDaemon turns its loop on this thread

    status = unit.call("agent_launch", agent="Coder")
    background = unit.call("agent_launch", agent="Coder", background=True)  # already running
    unit.call("agent_restart", agent="Coder")
    assert status["state"] == "running" and background["state"] == "running"
    labels = [label for label, _ in threads.seen]
    assert labels.count("persona") >= 2 and labels.count("context") >= 2, labels
    assert "memory" in labels
    assert all(thread is not loop_thread for _, thread in threads.seen), threads.seen
    # What was read off the loop is what the agent got (the same composition as before).
    context = (root / ".ideai" / "run" / status["id"] / "context.md").read_text()
    assert "# Project context\n\nShip on Fridays only." in context


def test_resuming_agents_rotates_the_long_conversation_logs(tmp_path: Path) -> None:
    """LOG-5: rotation runs when agents are resumed, not only when a project opens (a log
    that grew past 500 turns after the open is rotated at the resume)."""
    from core.conversations import handoff as h
    from core.conversations.ids import USER, conversation_id
    from core.conversations.turns import Turn, encode_turn
    from idea_daemon.bootstrap import ServicePorts

    stores = Stores(tmp_path / "data")
    services = ServicePorts(mcp_socket=tmp_path / "mcp.sock")
    first = UnitDaemon(tmp_path, stores, services=services)
    root = first.project()
    coder = first.call("agent_new", name="Coder")
    first.call("agent_launch", agent="Coder")
    first.close()
    second = UnitDaemon(tmp_path, stores, services=services)
    try:
        conversations = second.server.conversations
        assert conversations is not None
        conversations.recorder.drain()  # whatever the open queued is done
        cid = conversation_id(USER, coder["id"])
        folder = root / ".ideai" / "conversations" / cid
        folder.mkdir(parents=True, exist_ok=True)  # the launch kept its session id there
        turns = [Turn(f"00000000-0000-4000-8000-{n:012d}", cid, 1_000 + n,
                      USER if n % 2 == 0 else coder["id"],
                      "prompt" if n % 2 == 0 else "response", f"turn {n}")
                 for n in range(600)]
        (folder / "log.jsonl").write_text("".join(encode_turn(t) + "\n" for t in turns))
        folded = h.EMPTY
        for t in turns:
            folded = h.fold(folded, t)
        (folder / "handoff.md").write_text(h.render(folded))
        conversations.recorder.drain()
        assert not (folder / "log.1.jsonl").exists()
        [resumed] = second.call("agent_resume")
        assert resumed["state"] == "running"
        conversations.recorder.drain()
        assert len((folder / "log.1.jsonl").read_text().splitlines()) == 599
        assert (folder / "log.jsonl").read_text().splitlines() == [encode_turn(turns[-1])]
    finally:
        second.close()
