"""What a delegation costs the daemon's loop: lookups and screen reads served from what the
daemon already knows, and the ticket journal written off the loop (bench_delegation.py
measures the time; these tests pin the behaviour that keeps it low, and its correctness)."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from adapters.ipc.messages import Scene
from adapters.store.atomic import write_text_atomic
from core.orchestration.journal import decode_journal
from core.orchestration.mailbox import Mailbox
from core.orchestration.tickets import Limits, TicketState
from idea_daemon.orchestration import journal_store, marks
from idea_daemon.orchestration.journal_store import JournalWriter, journal_path
from tests.helpers.unit_daemon import UnitDaemon


def _runtime(unit: UnitDaemon, root: Path) -> Any:
    return unit.service.projects[str(root)]


def test_the_agents_file_is_decoded_again_only_when_it_changed(
    unit: UnitDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = unit.project()
    unit.call("agent_new", name="Coder")
    agents = unit.server.agents
    assert agents is not None
    loads: list[Path] = []
    real_load = agents.agent_store.load

    def counting_load(project_root: Path) -> Any:
        loads.append(project_root)
        return real_load(project_root)

    monkeypatch.setattr(agents.agent_store, "load", counting_load)
    runtime = _runtime(unit, root)
    for _ in range(5):
        assert agents.agent(runtime, "Coder").name == "Coder"
    assert len(loads) == 1
    # An edit by hand (another size, another inode) is seen at the next lookup.
    path = root / ".ideai" / "agents.json"
    data = json.loads(path.read_text())
    data["agents"][0]["name"] = "Developer"
    replacement = path.with_name("agents.json.new")
    replacement.write_text(json.dumps(data))
    replacement.replace(path)
    assert agents.agent(runtime, "Developer").name == "Developer"
    assert len(loads) == 2


def test_the_daemons_own_manifest_writes_are_seen_at_once(unit: UnitDaemon) -> None:
    root = unit.project()
    unit.call("agent_new", name="Coder")
    agents = unit.server.agents
    assert agents is not None
    runtime = _runtime(unit, root)
    assert [a.name for a in agents.manifest(runtime).agents] == ["Coder"]
    unit.call("agent_new", name="Tester")
    unit.call("agent_rename", agent="Coder", name="Dev")
    assert [a.name for a in agents.manifest(runtime).agents] == ["Dev", "Tester"]


def test_a_corrupt_agents_file_is_reported_not_served_from_the_cache(unit: UnitDaemon) -> None:
    root = unit.project()
    unit.call("agent_new", name="Coder")
    agents = unit.server.agents
    assert agents is not None
    runtime = _runtime(unit, root)
    agents.manifest(runtime)
    (root / ".ideai" / "agents.json").write_text("{ not json")
    refusal = unit.refused("agent_list")
    assert refusal.code == "corrupt"


def test_the_screen_text_follows_every_change_of_the_screen(unit: UnitDaemon) -> None:
    unit.project()
    cell = unit.focused()
    session = unit.session_of(cell)
    assert session is not None
    pty = unit.pty_of(cell)
    pty.output(b"first\r\nsecond")
    unit.until(lambda: session.screen_text()[1] == "second", "the output was read")
    before = session.screen_text()
    # Rewriting one row: only it changes, and the copy handed out earlier stays as it was.
    pty.output(b"\rSECOND")
    unit.until(lambda: session.screen_text()[1] == "SECOND", "the row was rewritten")
    assert session.screen_text()[0] == "first"
    assert before[1] == "second"
    session.resize(40, 10)
    assert len(session.screen_text()) == 10
    pty.output(b"\x1b[2J\x1b[Hcleared")
    unit.until(lambda: session.screen_text()[0] == "cleared", "the screen was cleared")
    assert session.screen_text()[1:] == [""] * 9


def _box() -> Mailbox:
    counter = itertools.count(1)
    return Mailbox(Limits(), lambda: f"T{next(counter)}")


def _ask(box: Mailbox, task: str) -> None:
    box.ask(requester="a", requester_name="A", target="dev", target_name="Dev", task=task,
            now=0.0)


def test_the_journal_is_written_off_the_loop_and_ends_with_the_last_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[tuple[int, str]] = []
    real_write = write_text_atomic
    release = threading.Event()

    def recording_write(path: Path, text: str) -> Any:
        writes.append((threading.get_ident(), text))
        release.wait(10)  # a slow disk: the loop must go on meanwhile
        return real_write(path, text)

    monkeypatch.setattr(journal_store, "write_text_atomic", recording_write)
    monkeypatch.setattr(journal_store, "DELAY", 0.0)
    root = str(tmp_path)
    box = _box()
    writer = JournalWriter()

    async def scenario() -> None:
        loop_thread = threading.get_ident()
        _ask(box, "one")
        writer.schedule(root, box)
        while not writes:
            await asyncio.sleep(0.001)
        assert writes[0][0] != loop_thread
        # While the first write is held, the loop runs and a second change comes.
        _ask(box, "two")
        writer.schedule(root, box)
        release.set()
        while len(writes) < 2:
            await asyncio.sleep(0.001)
        await writer.drain()
        while writer._writing or writer._scheduled:
            await asyncio.sleep(0.001)
        await writer.drain()

    asyncio.run(scenario())
    tickets = decode_journal(journal_path(root).read_bytes())
    assert [t.task for t in tickets] == ["one", "two"]
    assert all(t.state is TicketState.QUEUED for t in tickets)


def test_a_final_flush_is_not_overtaken_by_a_write_in_flight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = write_text_atomic
    started = threading.Event()
    release = threading.Event()

    def slow_write(path: Path, text: str) -> Any:
        if not started.is_set():
            started.set()
            release.wait(10)
        return real_write(path, text)

    monkeypatch.setattr(journal_store, "write_text_atomic", slow_write)
    monkeypatch.setattr(journal_store, "DELAY", 0.0)
    root = str(tmp_path)
    box = _box()
    writer = JournalWriter()

    async def scenario() -> None:
        _ask(box, "one")
        writer.schedule(root, box)
        while not started.is_set():
            await asyncio.sleep(0.001)
        _ask(box, "two")
        threading.Timer(0.05, release.set).start()
        await writer.drain()  # as the service's close does, before its flush
        writer.flush(root, box)

    asyncio.run(scenario())
    tickets = decode_journal(journal_path(root).read_bytes())
    assert [t.task for t in tickets] == ["one", "two"]


def _scenes(client: Any) -> list[Scene]:
    return [m for m in client.writer.messages() if isinstance(m, Scene)]


def test_a_scene_equal_to_the_last_one_sent_is_not_sent_again(unit: UnitDaemon) -> None:
    client = unit.attach()
    unit.project()
    unit.until(lambda: bool(_scenes(client)), "the first scene")
    unit.turn(0.05)
    sent = len(_scenes(client))
    # Something asks for a scene but nothing a scene shows changed (a ticket moved, say).
    for _ in range(5):
        unit.service.programs.notify_scene()
        unit.turn(0.01)
    assert len(_scenes(client)) == sent
    # A real change still goes out, and a client told to repaint gets the scene again.
    unit.call("split", direction="right")
    unit.until(lambda: len(_scenes(client)) == sent + 1, "the split's scene")
    client.forget_frames()
    unit.service.programs.notify_scene()
    unit.until(lambda: len(_scenes(client)) == sent + 2, "the repaint's scene")


def test_a_delegation_mark_is_the_cells_title_mark_until_the_cell_is_selected(
    unit: UnitDaemon,
) -> None:
    client = unit.attach()
    unit.project()
    first = unit.focused()
    [second] = unit.call("split", direction="right")["cells"]
    session = unit.session_of(first)
    assert session is not None
    session.attention = marks.PREFIX + "T3 timed out"
    unit.service.programs.notify_scene()
    unit.until(lambda: any(c.mark == "T3 timed out" for s in _scenes(client)[-1:]
                           for c in s.cells), "the marked scene")
    cell = next(c for c in _scenes(client)[-1].cells if c.id == first)
    assert cell.attention and cell.mark == "T3 timed out"
    assert next(c for c in _scenes(client)[-1].cells if c.id == second).mark == ""
    assert unit.cells()[0]["attention"] == "delegation: T3 timed out"
    # A bell is attention, not a delegation mark: no text in the title.
    assert marks.cell_mark("bell") == ""
    unit.call("select", target=f"%{first}")
    unit.until(lambda: all(c.mark == "" for c in _scenes(client)[-1].cells), "mark cleared")


def test_a_delivery_waits_for_the_next_output_not_for_a_timer(unit: UnitDaemon) -> None:
    unit.project()
    cell = unit.focused()
    session = unit.session_of(cell)
    assert session is not None
    waiter = session.next_output()
    unit.turn(0.05)
    assert not waiter.done(), "nothing was printed"
    unit.pty_of(cell).output(b"x")
    unit.until(waiter.done, "the output woke it")
    # A program that ends wakes its waiters too (a pump must see the exit at once).
    last = session.next_output()
    unit.pty_of(cell).exit(0)
    unit.until(last.done, "the exit woke it")
    assert session.next_output().done(), "after the exit, nothing to wait for"
