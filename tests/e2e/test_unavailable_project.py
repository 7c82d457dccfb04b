"""A saved project whose folder is gone at start (renamed, on an unmounted disk) keeps its tab
in `workspace.json`: the user is told, later saves keep it, and it is back once the folder is."""

from __future__ import annotations

import json

import pytest

from tests.helpers.idea import IdeaEnv

pytestmark = pytest.mark.e2e


def saved_tabs(idea: IdeaEnv) -> list[list[str]]:
    data = json.loads((idea.locations.data / "workspace.json").read_text())
    return [window["projects"] for window in data["windows"]]


def open_tabs(idea: IdeaEnv) -> list[list[str]]:
    return [[p["root"] for p in w["projects"]] for w in idea.json("ls")["windows"]]


def test_a_missing_project_folder_keeps_its_tab_across_restarts_and_saves(
    idea: IdeaEnv,
) -> None:
    one, two = idea.new_project("one"), idea.new_project("two")
    idea.run("kill-server", "-f")
    layouts = (two / ".ideai" / "layouts.json").read_bytes()
    away = two.rename(idea.root / "two-away")

    idea.run("project", "list")  # starts a daemon, which cannot reopen `two`
    overview = idea.json("ls")
    assert open_tabs(idea) == [[str(one)]]
    assert any("two is unavailable" in p and str(two) in p for p in overview["problems"])
    idea.run("window", "rename", "work")  # an edit that writes workspace.json
    idea.run("split", "-h")
    assert [w["name"] for w in idea.json("window", "list")] == ["work"]
    assert saved_tabs(idea) == [[str(one), str(two)]]
    idea.run("kill-server", "-f")
    assert saved_tabs(idea) == [[str(one), str(two)]]

    away.rename(two)
    idea.run("project", "list")  # a new daemon, which reopens both
    assert open_tabs(idea) == [[str(one), str(two)]]
    assert not any("unavailable" in p for p in idea.json("ls")["problems"])
    assert (two / ".ideai" / "layouts.json").read_bytes() == layouts
