"""A saved project whose folder is gone at start (renamed, on an unmounted disk) keeps its tab
in `workspace.json`: the user is told, later saves keep it, and it is back once the folder is."""

from __future__ import annotations

import json

import pytest

from adapters.ipc.messages import Scene
from tests.helpers.idea import IdeaEnv
from tests.helpers.raw_client import RawClient

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


def unavailable(idea: IdeaEnv) -> list[dict[str, str]]:
    return [kept for w in idea.json("ls")["windows"] for kept in w["unavailable"]]


def test_an_unavailable_project_is_listed_with_its_reason_and_a_retry_brings_it_back(
    idea: IdeaEnv,
) -> None:
    one, two = idea.new_project("one"), idea.new_project("two")
    idea.run("kill-server", "-f")
    away = two.rename(idea.root / "two-away")

    idea.run("project", "list")  # a daemon that cannot reopen `two`
    assert unavailable(idea) == [{"name": "two", "root": str(two),
                                  "reason": f"{two} is missing"}]
    listing = idea.run("ls").stdout
    assert f"project two  {two}  [unavailable: {two} is missing; `idea open {two}` retries]" \
        in listing
    # What an attached client is sent: the kept tab, after the open one, with the reason.
    with RawClient(str(idea.locations.socket)) as client:
        scene = client.wait_for(lambda m: isinstance(m, Scene))
    assert isinstance(scene, Scene)
    assert [(t.name, t.unavailable) for t in scene.tabs] == [
        ("one", ""), ("two", f"{two} is missing")]

    failed = idea.run("open", str(two), check=False)  # the retry while it is still gone
    assert failed.returncode != 0 and "no such directory" in failed.stderr
    assert len(unavailable(idea)) == 1

    away.rename(two)
    idea.run("open", str(two))  # the retry a click on the tab makes (project_open)
    assert unavailable(idea) == []
    assert open_tabs(idea) == [[str(one), str(two)]]


def test_a_project_whose_ideai_is_not_a_folder_keeps_a_tab_with_the_reason(
    idea: IdeaEnv,
) -> None:
    idea.new_project("one")
    two = idea.new_project("two")
    idea.run("kill-server", "-f")
    original = (two / ".ideai").rename(idea.root / "ideai-away")
    (two / ".ideai").write_bytes(b"\x00garbage")

    idea.run("project", "list")
    kept = unavailable(idea)
    assert kept == [{"name": "two", "root": str(two), "reason": f"{two}/.ideai is not a folder"}]
    failed = idea.run("open", str(two), check=False)  # a retry while it is still so
    assert failed.returncode != 0 and ".ideai is not a folder" in failed.stderr
    assert (two / ".ideai").read_bytes() == b"\x00garbage"  # left as it was
    (two / ".ideai").unlink()
    original.rename(two / ".ideai")
    idea.run("open", str(two))
    assert unavailable(idea) == []
