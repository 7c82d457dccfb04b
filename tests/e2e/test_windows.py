"""Windows group project tabs (D3): create, move a project between windows, attach to one,
and a window closes with its last tab."""

from __future__ import annotations

import pytest

from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until
from tests.helpers.tui import TuiFactory

pytestmark = pytest.mark.e2e


def windows(idea: IdeaEnv) -> dict[str, list[str]]:
    return {window["name"]: window["projects"] for window in idea.json("window", "list")}


def test_windows_new_move_attach_and_close_with_the_last_tab(
        idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("alpha")
    idea.new_project("beta")
    assert windows(idea) == {"main": ["alpha", "beta"]}

    created = idea.json("window", "new", "W2", "beta")
    assert created["name"] == "W2"
    assert windows(idea) == {"main": ["alpha"], "W2": ["beta"]}

    second = tui(window="W2")
    second.wait_for(r"^ W2 +0:beta")
    assert "alpha" not in second.lines()[0]
    first = tui()
    first.wait_for(r"^ main +0:alpha")
    assert "beta" not in first.lines()[0]

    # Moving main's only project away closes main; its client moves on to W2.
    moved = idea.json("project", "move", "alpha", "W2")
    assert moved == {"project": "alpha", "window": "W2"}
    assert windows(idea) == {"W2": ["beta", "alpha"]}
    second.wait_for(r"^ W2 +0:beta +1:alpha")
    first.wait_for(r"^ W2 +0:beta +1:alpha")

    # A window of its own for alpha; closing its only tab (prefix X) closes the window and
    # its client moves on to another window.
    idea.run("window", "new", "W3", "alpha")
    third = tui(window="W3")
    third.wait_for(r"^ W3 +0:alpha")
    third.wait_cells(1)
    third.prefix("X")
    retry_until(lambda: windows(idea) == {"W2": ["beta"]}, describe=lambda: str(windows(idea)))
    third.wait_for(r"^ W2 +0:beta")

    # From the command line as well.
    idea.new_project("gamma")
    idea.run("window", "new", "W4", "gamma")
    assert windows(idea) == {"W2": ["beta"], "W4": ["gamma"]}
    idea.run("project", "close", "gamma")
    assert windows(idea) == {"W2": ["beta"]}


def test_window_rename(idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("alpha")
    renamed = idea.json("window", "rename", "Work", "-w", "main")
    assert renamed["name"] == "Work"
    assert list(windows(idea)) == ["Work"]
    client = tui(window="Work")
    client.wait_for(r"^ Work +0:alpha")


def test_attach_to_an_unknown_window_says_so(idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("alpha")
    client = tui(window="Nope")
    assert client.wait_exit() == 1
    assert "no window named 'Nope'" in client.transcript()
