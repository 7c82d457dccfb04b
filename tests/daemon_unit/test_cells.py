"""Cell operations on fakes: what each does to the PTYs, the focus and the saved layout."""

from __future__ import annotations

from pathlib import Path

from core.layout.model import Grid, Split, iter_leaves
from tests.helpers.unit_daemon import UnitDaemon


def _saved_cell_ids(unit: UnitDaemon, root: Path) -> list[str]:
    layouts = unit.stores.layouts.saves_of(root)[-1]
    return [leaf.id for leaf in iter_leaves(layouts.active.tree.root)]


def test_a_split_starts_a_shell_in_the_focused_cells_directory(unit: UnitDaemon) -> None:
    unit.project()
    first = unit.spawner.spawned[0]
    elsewhere = unit.tmp_path / "elsewhere"
    elsewhere.mkdir()
    first.cwd_path = str(elsewhere)
    [new_cell] = unit.call("split", direction="right")["cells"]
    second = unit.spawner.spawned[1]
    assert second.cwd_path == str(elsewhere)
    assert second.env["IDEA_CELL"] == new_cell


def test_a_split_halves_the_cell_and_resizes_both_programs(unit: UnitDaemon) -> None:
    unit.attach(width=101, height=31)
    unit.project()
    unit.call("split", direction="right")
    left, right = unit.spawner.spawned
    assert left.sizes[0] == (101, 30)
    # Side by side with a one-column border between them; each keeps a title line.
    assert left.size[0] + right.size[0] + 1 == 101
    assert left.size[1] == right.size[1] == 30


def test_a_split_focuses_the_new_cell_and_saves_the_layout(unit: UnitDaemon) -> None:
    root = unit.project()
    [new_cell] = unit.call("split", direction="down")["cells"]
    assert unit.focused() == new_cell
    assert new_cell in _saved_cell_ids(unit, root)
    tree = unit.stores.layouts.files[str(root)].active.tree.root
    assert isinstance(tree, Split) and tree.direction.value == "column"


def test_a_split_before_puts_the_new_cell_first(unit: UnitDaemon) -> None:
    root = unit.project()
    first = unit.focused()
    [new_cell] = unit.call("split", direction="left")["cells"]
    assert _saved_cell_ids(unit, root) == [new_cell, first]


def test_a_split_into_three_starts_three_shells(unit: UnitDaemon) -> None:
    unit.project()
    cells = unit.call("split", direction="right", count=3)["cells"]
    assert len(cells) == 3
    assert len(unit.spawner.spawned) == 4


def test_a_bad_split_direction_is_refused_by_name(unit: UnitDaemon) -> None:
    unit.project()
    refusal = unit.refused("split", direction="sideways")
    assert "direction" in str(refusal) and "sideways" in str(refusal)
    assert len(unit.spawner.spawned) == 1


def test_a_split_count_out_of_range_is_refused(unit: UnitDaemon) -> None:
    unit.project()
    refusal = unit.refused("split", count=33)
    assert "count" in str(refusal)


def test_a_grid_fills_the_cell_with_rows_times_columns_shells(unit: UnitDaemon) -> None:
    root = unit.project()
    cells = unit.call("grid", rows=2, cols=3)["cells"]
    # The cell itself becomes the grid's first: five new cells, five new shells.
    assert len(cells) == 5
    assert len(unit.spawner.live()) == 6
    tree = unit.stores.layouts.files[str(root)].active.tree.root
    assert isinstance(tree, Grid)


def test_closing_a_cell_ends_its_program_and_focus_returns(unit: UnitDaemon) -> None:
    unit.project()
    first = unit.focused()
    [second] = unit.call("split", direction="right")["cells"]
    unit.call("close", target=f"%{second}")
    assert unit.spawner.spawned[1].signals == ["HUP"]
    assert unit.spawner.spawned[0].signals == []
    assert [cell["id"] for cell in unit.cells()] == [first]
    assert unit.focused() == first


def test_closing_a_cell_running_a_program_asks_first(unit: UnitDaemon) -> None:
    unit.project()
    [second] = unit.call("split", direction="right")["cells"]
    unit.pty_of(second).foreground = "htop"
    refusal = unit.refused("close", target=f"%{second}")
    assert refusal.code == "confirm" and "htop" in str(refusal)
    assert len(unit.cells()) == 2
    unit.call("close", target=f"%{second}", force=True)
    assert len(unit.cells()) == 1


def test_closing_the_last_cell_of_the_last_page_closes_the_project(unit: UnitDaemon) -> None:
    unit.project()
    unit.call("close")
    assert unit.service.projects == {}


def test_closing_the_last_cell_of_a_page_closes_the_page(unit: UnitDaemon) -> None:
    unit.project()
    unit.call("layout_new", name="Second")
    unit.call("close")
    assert [page["name"] for page in unit.call("layout_list")] == ["Default"]


def test_focus_moves_by_direction_and_back_to_the_last_cell(unit: UnitDaemon) -> None:
    unit.project()
    left = unit.focused()
    [right] = unit.call("split", direction="right")["cells"]
    assert unit.call("select", direction="left")["id"] == left
    assert unit.focused() == left
    assert unit.call("select", direction="right")["id"] == right
    assert unit.call("select", direction="last")["id"] == left
    assert unit.call("select", direction="next")["id"] == right
    assert unit.call("select", direction="next")["id"] == left


def test_selecting_an_unknown_direction_is_refused(unit: UnitDaemon) -> None:
    unit.project()
    assert "diagonal" in str(unit.refused("select", direction="diagonal"))


def test_selecting_a_cell_by_index_target(unit: UnitDaemon) -> None:
    unit.project()
    first = unit.focused()
    unit.call("split", direction="right")
    assert unit.call("select", target="proj:Default.0")["id"] == first


def test_zoom_gives_the_cell_the_whole_window_and_unzoom_gives_it_back(unit: UnitDaemon) -> None:
    unit.attach(width=100, height=30)
    unit.project()
    [right] = unit.call("split", direction="right")["cells"]
    pty = unit.pty_of(right)
    half = pty.size
    assert unit.call("zoom")["zoomed"] is True
    assert pty.size == (100, 29)
    assert unit.call("zoom")["zoomed"] is False
    assert pty.size == half


def test_resizing_a_cell_moves_its_border_and_resizes_both_programs(unit: UnitDaemon) -> None:
    unit.attach(width=101, height=30)
    unit.project()
    left_cell = unit.focused()
    unit.call("split", direction="right")
    left, right = unit.spawner.spawned
    before = (left.size[0], right.size[0])
    described = unit.call("resize", target=f"%{left_cell}", side="right", cells=5)
    assert (left.size[0], right.size[0]) == (before[0] + 5, before[1] - 5)
    assert described["cols"] == left.size[0]


def test_a_resize_with_a_bad_side_is_refused(unit: UnitDaemon) -> None:
    unit.project()
    assert "side" in str(unit.refused("resize", side="inward"))


def test_a_client_size_change_resizes_every_program_of_its_window(unit: UnitDaemon) -> None:
    client = unit.attach(width=80, height=24)
    unit.project()
    unit.call("split", direction="down")
    client.width, client.height = 120, 40
    unit.server.claim_size(client)
    top, bottom = unit.spawner.spawned
    assert top.size[0] == bottom.size[0] == 120
    # Two title lines and one border between them (as a real terminal's rows add up).
    assert top.size[1] + bottom.size[1] + 2 == 40


def test_equalize_makes_the_cells_the_same_size(unit: UnitDaemon) -> None:
    unit.attach(width=101, height=30)
    unit.project()
    first = unit.focused()
    unit.call("split", direction="right")
    unit.call("resize", target=f"%{first}", side="right", cells=20)
    left, right = unit.spawner.spawned
    assert left.size[0] != right.size[0]
    unit.call("equalize")
    assert left.size[0] == right.size[0]


def test_undo_and_redo_a_split(unit: UnitDaemon) -> None:
    unit.project()
    first = unit.focused()
    [second] = unit.call("split", direction="right")["cells"]
    assert unit.call("undo")["changed"] is True
    assert [cell["id"] for cell in unit.cells()] == [first]
    assert unit.spawner.spawned[1].signals == ["HUP"]
    assert unit.call("undo", redo=True)["changed"] is True
    assert [cell["id"] for cell in unit.cells()] == [first, second]
    assert len(unit.spawner.spawned) == 3, "the redone cell gets a new shell"


def test_undo_with_no_history_changes_nothing(unit: UnitDaemon) -> None:
    unit.project()
    saves = len(unit.stores.layouts.saves)
    assert unit.call("undo")["changed"] is False
    assert len(unit.stores.layouts.saves) == saves


def test_swap_exchanges_the_programs_of_two_cells(unit: UnitDaemon) -> None:
    unit.project()
    first = unit.focused()
    [second] = unit.call("split", direction="right")["cells"]
    a, b = unit.pty_of(first), unit.pty_of(second)
    result = unit.call("swap", target=f"%{first}", other=f"%{second}")
    assert result["swapped"] == [first, second]
    assert unit.pty_of(first) is b and unit.pty_of(second) is a
    assert a.signals == [] and b.signals == []
    assert unit.focused() == second


def test_swap_without_another_cell_is_refused(unit: UnitDaemon) -> None:
    unit.project()
    refusal = unit.refused("swap", direction="right")
    assert "no cell right" in str(refusal)


def test_merge_ends_the_absorbed_cells_program(unit: UnitDaemon) -> None:
    unit.project()
    first = unit.focused()
    [second] = unit.call("split", direction="right")["cells"]
    result = unit.call("merge", target=f"%{first}", other=f"%{second}")
    assert result == {"kept": first, "removed": second}
    assert unit.spawner.spawned[1].signals == ["HUP"]
    assert [cell["id"] for cell in unit.cells()] == [first]


def test_merging_into_a_busy_cell_asks_first(unit: UnitDaemon) -> None:
    unit.project()
    first = unit.focused()
    [second] = unit.call("split", direction="right")["cells"]
    unit.pty_of(second).foreground = "make"
    refusal = unit.refused("merge", target=f"%{first}", other=f"%{second}")
    assert refusal.code == "confirm" and "make" in str(refusal)


def test_move_puts_a_cell_beside_another(unit: UnitDaemon) -> None:
    root = unit.project()
    a = unit.focused()
    [b] = unit.call("split", direction="right")["cells"]
    [c] = unit.call("split", direction="right")["cells"]
    unit.call("move", target=f"%{c}", dst=f"%{a}", direction="left")
    assert _saved_cell_ids(unit, root) == [c, a, b]
    assert unit.focused() == c


def test_restart_ends_the_program_and_starts_a_new_shell(unit: UnitDaemon) -> None:
    unit.project()
    cell = unit.focused()
    old = unit.pty_of(cell)
    described = unit.call("restart")
    assert old.signals == ["HUP"]
    new = unit.pty_of(cell)
    assert new is not old and new is unit.spawner.spawned[-1]
    assert described["running"] is True


def test_restarting_a_busy_cell_asks_first(unit: UnitDaemon) -> None:
    unit.project()
    unit.spawner.spawned[0].foreground = "python3"
    assert unit.refused("restart").code == "confirm"
    unit.call("restart", force=True)
    assert len(unit.spawner.spawned) == 2


def test_an_unknown_cell_id_is_not_found(unit: UnitDaemon) -> None:
    unit.project()
    refusal = unit.refused("close", target="%nosuchcell")
    assert refusal.code == "not_found"
