"""Windows and tabs: a project is one tab and lives in exactly one window (D3, PRJ-6)."""

from __future__ import annotations

import pytest

from core.errors import (
    DuplicateWindowName,
    ProjectAlreadyOpen,
    RelativeRoot,
    TabNotFound,
    UnknownWindow,
)
from core.workspace import (
    KeptTab,
    Window,
    Workspace,
    activate,
    add_project,
    add_window,
    close_project,
    close_window,
    move_project,
    move_project_to_new_window,
    rename_window,
    with_kept_tabs,
)


def two_windows() -> Workspace:
    """main: /a /b /c (active /b); side: /d."""
    workspace = add_window(Workspace(), "w1", "main", "/a")
    workspace = add_project(workspace, "w1", "/b")
    workspace = add_project(workspace, "w1", "/c", activate=False)
    return add_window(workspace, "w2", "side", "/d")


def test_building_windows_and_tabs() -> None:
    workspace = two_windows()
    assert workspace.windows == (
        Window("w1", "main", ("/a", "/b", "/c"), "/b"),
        Window("w2", "side", ("/d",), "/d"),
    )
    assert workspace.window_of("/c/") == workspace.window("w1")
    assert workspace.window_named("side") == workspace.window("w2")


def test_adding_an_open_project_focuses_it_or_is_refused_elsewhere() -> None:
    workspace = add_project(two_windows(), "w1", "/c")
    assert workspace.window("w1").tabs == ("/a", "/b", "/c")
    assert workspace.window("w1").active == "/c"
    with pytest.raises(ProjectAlreadyOpen) as caught:
        add_project(workspace, "w2", "/a")
    assert caught.value.window_name == "main"


def test_window_names_are_unique() -> None:
    with pytest.raises(DuplicateWindowName):
        add_window(two_windows(), "w3", "main")
    with pytest.raises(DuplicateWindowName):
        rename_window(two_windows(), "w2", "main")
    renamed = rename_window(two_windows(), "w2", "work")
    assert renamed.window("w2").name == "work"
    assert rename_window(renamed, "w2", "work") == renamed
    with pytest.raises(ValueError):
        add_window(two_windows(), "w3", "  ")
    with pytest.raises(ValueError):
        add_window(two_windows(), "w1", "other")


def test_moving_the_active_tab_falls_back_to_the_next_one() -> None:
    workspace = move_project(two_windows(), "/b", "w2")
    assert workspace.window("w1") == Window("w1", "main", ("/a", "/c"), "/c")
    assert workspace.window("w2") == Window("w2", "side", ("/d", "/b"), "/b")


def test_moving_the_last_tab_removes_the_emptied_window() -> None:
    workspace = move_project(two_windows(), "/d", "w1")
    assert [w.id for w in workspace.windows] == ["w1"]
    assert workspace.window("w1").tabs == ("/a", "/b", "/c", "/d")
    assert workspace.window("w1").active == "/d"


def test_moving_to_its_own_window_only_focuses_it() -> None:
    workspace = move_project(two_windows(), "/a", "w1")
    assert workspace.window("w1").tabs == ("/a", "/b", "/c")
    assert workspace.window("w1").active == "/a"


def test_move_to_a_new_window() -> None:
    workspace = move_project_to_new_window(two_windows(), "/c", "w3", "third")
    assert workspace.window("w3") == Window("w3", "third", ("/c",), "/c")
    assert workspace.window("w1").tabs == ("/a", "/b")
    assert workspace.window("w1").active == "/b"
    with pytest.raises(TabNotFound):
        move_project_to_new_window(two_windows(), "/zz", "w3", "third")
    with pytest.raises(DuplicateWindowName):
        move_project_to_new_window(two_windows(), "/c", "w3", "side")


def test_closing_tabs() -> None:
    workspace = close_project(two_windows(), "/c")
    assert workspace.window("w1") == Window("w1", "main", ("/a", "/b"), "/b")
    workspace = close_project(workspace, "/b")
    assert workspace.window("w1").active == "/a"
    workspace = close_project(workspace, "/a")
    assert workspace.window("w1") == Window("w1", "main", (), None)
    assert close_window(workspace, "w1").windows == (workspace.window("w2"),)


def test_unknown_windows_and_tabs_are_errors() -> None:
    workspace = two_windows()
    with pytest.raises(UnknownWindow):
        add_project(workspace, "nope", "/x")
    with pytest.raises(UnknownWindow):
        move_project(workspace, "/a", "nope")
    with pytest.raises(UnknownWindow):
        close_window(workspace, "nope")
    with pytest.raises(TabNotFound):
        move_project(workspace, "/zz", "w2")
    with pytest.raises(TabNotFound):
        close_project(workspace, "/zz")
    with pytest.raises(TabNotFound):
        activate(workspace, "/zz")
    with pytest.raises(RelativeRoot):
        add_project(workspace, "w1", "rel/path")


def test_activate_focuses_a_tab() -> None:
    assert activate(two_windows(), "/a").window("w1").active == "/a"


def test_kept_tabs_go_back_where_they_were_and_never_twice() -> None:
    workspace = close_project(close_project(two_windows(), "/b"), "/d")
    kept = [KeptTab("/b", "w1", "main", 1, "missing"), KeptTab("/d", "w2", "side", 0, "gone"),
            KeptTab("/a", "w2", "side", 0, "open again meanwhile")]
    saved = with_kept_tabs(workspace, kept)
    assert [(w.name, w.tabs, w.active) for w in saved.windows] == [
        ("main", ("/a", "/b", "/c"), "/c"), ("side", ("/d",), None)]


def test_a_kept_tab_whose_window_is_gone_goes_to_the_first_or_a_window_made_again() -> None:
    kept = [KeptTab("/x", "w9", "old", 5, "missing")]
    assert with_kept_tabs(two_windows(), kept).windows[0].tabs == ("/a", "/b", "/c", "/x")
    assert with_kept_tabs(Workspace(), kept).windows == (Window("w9", "old", ("/x",)),)
