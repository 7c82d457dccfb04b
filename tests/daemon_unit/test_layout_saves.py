"""Layout edits in bursts (a border dragged with the mouse): written once after the burst,
always before the daemon stops or answers a detach; one drag is one undo step, and an edit
that changes nothing is no step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.layout.model import LayoutSet, LayoutTree, iter_leaves
from tests.helpers.unit_daemon import UnitDaemon


def _border(unit: UnitDaemon) -> Any:
    runtime = next(iter(unit.service.projects.values()))
    return unit.service.lookups.page_geometry(runtime, runtime.active.id).borders[0]


def _drag(unit: UnitDaemon, positions: range, drag: int | None = 1) -> None:
    """Border moves from the attached client (where drags come from)."""
    border = _border(unit)
    client = next(iter(unit.server.clients.values()))
    for position in positions:
        unit.call("set_border", client=client, container=border.container_id,
                  index=border.index, position=position, vertical=True, drag=drag)


def _tree(unit: UnitDaemon) -> LayoutTree:
    return next(iter(unit.service.projects.values())).active.tree


def _last_saved(unit: UnitDaemon, root: Path) -> LayoutSet:
    return unit.stores.layouts.saves_of(root)[-1]


def test_a_burst_of_border_moves_is_written_once_after_it(unit: UnitDaemon) -> None:
    unit.attach(width=120, height=30)
    root = unit.project()
    unit.call("split", direction="right")
    before = len(unit.layouts.saves_of(root))
    _drag(unit, range(20, 100))
    # Written once the burst is over (at most once a second while it lasts, on a machine
    # slow enough to take seconds for these 80 moves), with the last position.
    saves = unit.layouts.saves_of(root)[before:]
    assert 1 <= len(saves) < 10, len(saves)
    assert saves[-1].active.tree == _tree(unit)


def test_pending_layouts_are_written_before_a_detach_is_answered(unit: UnitDaemon) -> None:
    unit.attach(width=120, height=30)
    root = unit.project()
    unit.call("split", direction="right")
    _drag(unit, range(30, 40))
    client = next(iter(unit.server.clients.values()))
    unit.call("detach", client=client)  # no loop turn between: answered after the write
    assert not unit.service.persistence.layout_saver.pending
    assert _last_saved(unit, root).active.tree == _tree(unit)


def test_pending_layouts_are_written_when_the_daemon_stops(unit: UnitDaemon) -> None:
    unit.attach(width=120, height=30)
    root = unit.project()
    unit.call("split", direction="right")
    _drag(unit, range(30, 40))
    tree = _tree(unit)
    unit.service.shutdown()
    assert _last_saved(unit, root).active.tree == tree


def test_pending_layouts_are_written_when_the_project_closes(unit: UnitDaemon) -> None:
    unit.attach(width=120, height=30)
    root = unit.project()
    unit.call("split", direction="right")
    _drag(unit, range(30, 40))
    tree = _tree(unit)
    client = next(iter(unit.server.clients.values()))
    unit.call("project_close", client=client, project=str(root), force=True)
    assert _last_saved(unit, root).active.tree == tree


def test_a_one_shot_command_is_answered_once_its_change_is_written(unit: UnitDaemon) -> None:
    root = unit.project()
    unit.call("split", direction="right")  # `idea split` from a script: no loop turn after
    assert _last_saved(unit, root).active.tree == _tree(unit)


def test_one_drag_is_one_undo_step_and_keeps_the_history(unit: UnitDaemon) -> None:
    unit.attach(width=120, height=30)
    unit.project()
    unit.call("split", direction="right")
    unit.call("split", direction="down")
    after_splits = _tree(unit)
    _drag(unit, range(20, 90))  # 70 moves: more than the 50 steps of history
    assert _tree(unit) != after_splits
    assert unit.call("undo")["changed"] is True
    assert _tree(unit) == after_splits, "one undo puts the border back where it was"
    unit.call("undo")
    unit.call("undo")
    assert len(list(iter_leaves(_tree(unit).root))) == 1, "the splits are still undoable"


def test_two_drags_are_two_undo_steps(unit: UnitDaemon) -> None:
    unit.attach(width=120, height=30)
    unit.project()
    unit.call("split", direction="right")
    start = _tree(unit)
    _drag(unit, range(30, 40), drag=1)
    middle = _tree(unit)
    _drag(unit, range(70, 80), drag=2)
    unit.call("undo")
    assert _tree(unit) == middle
    unit.call("undo")
    assert _tree(unit) == start


def test_border_moves_without_a_drag_are_a_step_each(unit: UnitDaemon) -> None:
    unit.attach(width=120, height=30)
    unit.project()
    unit.call("split", direction="right")
    _drag(unit, range(30, 33), drag=None)  # `idea` scripts: each call is its own edit
    unit.call("undo")
    unit.call("undo")
    unit.call("undo")
    assert len(list(iter_leaves(_tree(unit).root))) == 2, "the split is not undone yet"


def test_an_edit_that_changes_nothing_adds_no_undo_step(unit: UnitDaemon) -> None:
    unit.attach(width=120, height=30)
    unit.project()
    unit.call("split", direction="right")
    unit.call("equalize")  # the halves are equal already
    _drag(unit, range(59, 60), drag=None)
    _drag(unit, range(59, 60), drag=None)  # the same position twice
    unit.call("undo")
    unit.call("undo")
    assert len(list(iter_leaves(_tree(unit).root))) == 1, "two undos undo the move and split"


def test_pending_layouts_are_written_when_the_dragging_client_leaves(unit: UnitDaemon) -> None:
    unit.attach(width=120, height=30)
    root = unit.project()
    unit.call("split", direction="right")
    _drag(unit, range(30, 40))
    client = next(iter(unit.server.clients.values()))
    unit.server.clients.pop(client.id)
    unit.server._on_client_gone(client)  # what the server does when its socket closes
    assert not unit.service.persistence.layout_saver.pending
    assert _last_saved(unit, root).active.tree == _tree(unit)


def test_a_burst_is_written_by_the_worker_thread_not_on_the_loop(unit: UnitDaemon) -> None:
    """The write that ends a burst (encode, write, fsync, rename) runs off the loop; the loop
    learns when it is done (`pending` stays true until then)."""
    import threading

    unit.attach(width=120, height=30)
    root = unit.project()
    unit.call("split", direction="right")
    store = unit.service.persistence.layout_saver._store  # the fake store, whose save we wrap
    threads: list[str] = []
    save = store.save

    def recording(path: Path, layouts: LayoutSet) -> None:
        threads.append(threading.current_thread().name)
        save(path, layouts)

    store.save = recording  # type: ignore[method-assign,assignment]
    _drag(unit, range(20, 40))
    saves = unit.layouts.saves_of(root)
    assert saves[-1].active.tree == _tree(unit)
    assert threads and all(name.startswith("idea-layouts") for name in threads), threads
    assert threading.current_thread().name not in threads
