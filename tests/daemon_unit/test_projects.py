"""Projects and windows on fakes: registration, reopening, closing, their programs."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.errors import IdeaError
from core.project import Project
from tests.helpers.unit_daemon import Stores, UnitDaemon


def test_a_new_project_starts_one_shell_in_its_root(unit: UnitDaemon) -> None:
    root = unit.project()
    [pty] = unit.spawner.spawned
    assert pty.argv == ["/bin/sh"]
    assert pty.cwd_path == str(root)
    # The default window size (80×23) less the cell's title line.
    assert pty.size == (80, 22)
    cell = unit.cells()[0]
    assert pty.env["IDEA_CELL"] == cell["id"]
    assert pty.env["IDEA_SOCKET"] == str(unit.tmp_path / "idea.sock")
    assert pty.env["TERM"] == "xterm-256color"


def test_a_new_project_is_registered_saved_and_gitignored(unit: UnitDaemon) -> None:
    root = unit.project()
    assert str(root) in unit.stores.registry.entries
    assert unit.stores.projects.files[str(root)].name == "proj"
    assert unit.stores.projects.gitignored == [str(root)]
    assert unit.stores.layouts.saves_of(root), "its layouts were written"
    [window] = unit.stores.workspace.current.windows
    assert window.tabs == (str(root),)


def test_creating_a_project_twice_is_refused_with_the_way_to_open_it(unit: UnitDaemon) -> None:
    root = unit.project()
    refusal = unit.refused("project_new", path=str(root))
    assert refusal.code == "exists"
    assert f"idea open {root}" in str(refusal)


def test_a_relative_path_is_refused(unit: UnitDaemon) -> None:
    refusal = unit.refused("project_new", path="relative/dir")
    assert "must be absolute" in str(refusal)
    assert unit.spawner.spawned == []


def test_a_missing_folder_is_not_found(unit: UnitDaemon) -> None:
    refusal = unit.refused("project_new", path=str(unit.tmp_path / "nowhere"))
    assert refusal.code == "not_found"


def test_opening_a_folder_that_is_no_project_says_how_to_create_it(unit: UnitDaemon) -> None:
    folder = unit.tmp_path / "plain"
    folder.mkdir()
    refusal = unit.refused("project_open", path=str(folder))
    assert refusal.code == "not_found"
    assert f"idea new {folder}" in str(refusal)


def test_closing_a_project_ends_its_programs(unit: UnitDaemon) -> None:
    unit.project()
    unit.call("split", direction="right")
    ptys = list(unit.spawner.spawned)
    assert len(ptys) == 2
    unit.call("project_close")
    assert [pty.signals for pty in ptys] == [["HUP"], ["HUP"]]
    assert unit.service.projects == {}
    assert unit.stores.workspace.current.windows[0].tabs == ()


def test_closing_a_busy_project_asks_first_and_force_closes_it(unit: UnitDaemon) -> None:
    unit.project()
    unit.spawner.spawned[0].foreground = "vim"
    refusal = unit.refused("project_close")
    assert refusal.code == "confirm"
    assert "vim" in str(refusal)
    assert unit.spawner.spawned[0].signals == []
    unit.call("project_close", force=True)
    assert unit.spawner.spawned[0].signals == ["HUP"]


def test_switching_projects_cycles_the_tabs_of_the_window(unit: UnitDaemon) -> None:
    unit.project("one")
    unit.project("two")
    assert unit.call("project_switch", which="next")["name"] == "one"
    assert unit.call("project_switch", which="next")["name"] == "two"
    assert unit.call("project_switch", which="0")["name"] == "one"


def test_a_restarted_daemon_reopens_the_projects_with_new_shells(tmp_path: Path) -> None:
    stores = Stores(tmp_path / "data")
    first = UnitDaemon(tmp_path, stores)
    root = first.project()
    first.call("split", direction="right")
    cells = sorted(cell["id"] for cell in first.cells())
    first.close()
    second = UnitDaemon(tmp_path, stores)
    try:
        assert sorted(cell["id"] for cell in second.cells()) == cells
        assert len(second.spawner.spawned) == 2
        assert {pty.cwd_path for pty in second.spawner.spawned} == {str(root)}
    finally:
        second.close()


def test_a_workspace_file_that_cannot_be_read_is_reported_and_never_rewritten(
    tmp_path: Path,
) -> None:
    stores = Stores(tmp_path / "data")
    stores.workspace.broken = "workspace.json is not valid JSON"
    daemon = UnitDaemon(tmp_path, stores)
    try:
        assert any("workspace.json is not valid JSON" in p for p in daemon.service.problems)
        daemon.project()
        assert stores.workspace.saves == []
    finally:
        daemon.close()


def test_a_project_whose_layouts_cannot_be_read_runs_on_a_default_and_keeps_the_file(
    unit: UnitDaemon,
) -> None:
    root = unit.tmp_path / "proj"
    root.mkdir()
    unit.stores.layouts.broken[str(root)] = "layouts.json: truncated"
    result = unit.call("project_new", path=str(root))
    assert any("truncated" in problem for problem in result["problems"])
    assert len(unit.spawner.spawned) == 1, "the default layout's cell has a shell"
    unit.call("split", direction="right")
    assert unit.stores.layouts.saves_of(root) == [], "the unreadable file is left alone"


def test_a_new_window_takes_a_project_and_list_shows_it(unit: UnitDaemon) -> None:
    unit.project("one")
    unit.project("two")
    unit.call("window_new", name="side", project="two")
    listed = {w["name"]: w["projects"] for w in unit.call("window_list")}
    assert listed == {"main": ["one"], "side": ["two"]}
    unit.call("window_rename", window="side", name="right")
    assert [w["name"] for w in unit.call("window_list")] == ["main", "right"]


def test_a_project_whose_folder_is_gone_keeps_its_tab_and_comes_back_with_it(
    tmp_path: Path,
) -> None:
    stores = Stores(tmp_path / "data")
    first = UnitDaemon(tmp_path, stores)
    one, two = first.project("one"), first.project("two")
    first.close()
    away = two.rename(tmp_path / "two-away")

    second = UnitDaemon(tmp_path, stores)
    try:
        assert any("two is unavailable" in p and str(two) in p for p in second.service.problems)
        assert [w["projects"] for w in second.call("window_list")] == [["one"]]
        second.call("window_rename", window="main", name="work")  # saves workspace.json
        assert stores.workspace.saves, "the rename was saved"
        [window] = stores.workspace.current.windows
        assert (window.name, window.tabs) == ("work", (str(one), str(two)))
    finally:
        second.close()

    away.rename(two)
    third = UnitDaemon(tmp_path, stores)
    try:
        assert not any("unavailable" in p for p in third.service.problems)
        assert [w["projects"] for w in third.call("window_list")] == [["one", "two"]]
    finally:
        third.close()


def test_idea_open_brings_a_kept_tab_back_once_its_folder_returns(tmp_path: Path) -> None:
    stores = Stores(tmp_path / "data")
    first = UnitDaemon(tmp_path, stores)
    one, two = first.project("one"), first.project("two")
    first.close()
    away = two.rename(tmp_path / "two-away")
    second = UnitDaemon(tmp_path, stores)
    try:
        assert second.refused("project_open", path=str(two)).code == "not_found"
        away.rename(two)
        second.call("project_open", path=str(two))
        assert [w["projects"] for w in second.call("window_list")] == [["one", "two"]]
        assert not any("unavailable" in p for p in second.service.problems)
        # Saved once, as an open tab (twice would make workspace.json unreadable).
        assert [w.tabs for w in stores.workspace.current.windows] == [(str(one), str(two))]
    finally:
        second.close()


@pytest.mark.parametrize("error", [IdeaError("the disk went away"), OSError(5, "I/O error")])
def test_a_project_that_fails_to_reopen_is_kept_in_the_saved_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception,
) -> None:
    stores = Stores(tmp_path / "data")
    first = UnitDaemon(tmp_path, stores)
    one, two = first.project("one"), first.project("two")
    first.close()
    real_load = stores.projects.load

    def failing_load(project_root: Path) -> Project | None:
        if project_root == two:
            raise error
        return real_load(project_root)

    monkeypatch.setattr(stores.projects, "load", failing_load)
    second = UnitDaemon(tmp_path, stores)
    try:
        second.call("window_rename", window="main", name="work")  # saves workspace.json
        assert [w.tabs for w in stores.workspace.current.windows] == [(str(one), str(two))]
        assert any("two is unavailable" in p for p in second.service.problems)
    finally:
        second.close()


def test_closing_a_kept_tab_forgets_it(tmp_path: Path) -> None:
    stores = Stores(tmp_path / "data")
    first = UnitDaemon(tmp_path, stores)
    one, two = first.project("one"), first.project("two")
    first.close()
    two.rename(tmp_path / "two-away")
    second = UnitDaemon(tmp_path, stores)
    try:
        assert second.call("project_close", project="two") == {"closed": str(two)}
        assert [w.tabs for w in stores.workspace.current.windows] == [(str(one),)]
        assert not any("unavailable" in p for p in second.service.problems)
        assert second.refused("project_close", project="two").code == "not_found"
    finally:
        second.close()
