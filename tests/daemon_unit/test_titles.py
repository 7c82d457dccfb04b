"""A program retitling its cell (OSC 0/2) costs a small `CellTitle` to the clients that show
the cell: no new scene, no look at /proc, nothing for cells nobody sees."""

from __future__ import annotations

from adapters.ipc.messages import CellTitle, DaemonMessage, Scene
from tests.helpers.unit_daemon import FakeWriter, UnitDaemon


def _messages(writer: object) -> list[DaemonMessage]:
    assert isinstance(writer, FakeWriter)
    return writer.messages()


def test_a_title_flood_sends_titles_only_and_reads_no_process(unit: UnitDaemon) -> None:
    client = unit.attach()
    unit.project()
    cell = unit.focused()
    pty = unit.pty_of(cell)
    unit.until(lambda: any(isinstance(m, Scene) and m.cells for m in _messages(client.writer)),
               "the first scene")
    scenes = sum(isinstance(m, Scene) for m in _messages(client.writer))
    reads = sum(p.foreground_reads for p in unit.spawner.spawned)
    for n in range(300):
        pty.output(f"\x1b]2;build {n}\x07".encode())
    unit.until(lambda: any(isinstance(m, CellTitle) and m.title == "build 299"
                           for m in _messages(client.writer)), "the last title arrived")
    messages = _messages(client.writer)
    assert sum(isinstance(m, Scene) for m in messages) == scenes, "no scene for a title"
    assert sum(p.foreground_reads for p in unit.spawner.spawned) == reads
    titles = [m for m in messages if isinstance(m, CellTitle)]
    assert all(m.cell == cell for m in titles)
    # Paced like output: far fewer messages than titles set (one per frame at most).
    assert len(titles) < 300


def test_a_title_nobody_sees_sends_nothing(unit: UnitDaemon) -> None:
    client = unit.attach()
    unit.project()
    hidden = unit.pty_of(unit.focused())
    unit.call("layout_new", name="Two")  # the first page's cell is now out of sight
    shown = unit.pty_of(unit.focused())
    hidden.output(b"\x1b]2;hidden title\x07")
    shown.output(b"\x1b]2;shown title\x07")
    unit.until(lambda: any(isinstance(m, CellTitle) and m.title == "shown title"
                           for m in _messages(client.writer)), "the visible title arrived")
    assert not any(isinstance(m, CellTitle) and m.title == "hidden title"
                   for m in _messages(client.writer))
    # Shown again later, the cell comes with its title, in the scene.
    unit.call("layout_switch", page="Default")
    unit.until(lambda: any(isinstance(m, Scene) and any(c.title == "hidden title"
                                                        for c in m.cells)
                           for m in _messages(client.writer)), "the title in the scene")


def test_an_unchanged_title_is_not_sent_again(unit: UnitDaemon) -> None:
    client = unit.attach()
    unit.project()
    pty = unit.pty_of(unit.focused())
    pty.output(b"\x1b]2;same\x07")
    unit.until(lambda: any(isinstance(m, CellTitle) for m in _messages(client.writer)), "sent")
    pty.output(b"\x1b]2;same\x07\x1b]2;same\x07marker")
    unit.until(lambda: "marker" in unit.call("capture")["text"], "read")
    unit.turn(0.05)
    assert sum(isinstance(m, CellTitle) for m in _messages(client.writer)) == 1
