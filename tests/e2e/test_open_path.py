"""`idea PATH` / `idea .` opens the project at PATH and attaches, like `code .` (issue 7).

A folder that is not a project yet is made one after a yes/no question on the terminal; no
creates nothing. `idea open PATH` keeps its scripting meaning (tests/e2e/test_projects.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from idea_tui.cli import build_parser, subcommand_names
from idea_tui.cli_open import looks_like_path
from tests.helpers.idea import IdeaEnv
from tests.helpers.tui import TuiFactory

pytestmark = pytest.mark.e2e

QUESTION = r"is not an idea project yet\. Create it\? \[y/N\]"


def active_project(idea: IdeaEnv) -> str:
    windows = idea.json("ls")["windows"]
    return str(next(p["name"] for w in windows for p in w["projects"] if p["active"]))


def test_idea_path_asks_then_creates_the_project_and_attaches(
        idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("other")  # a daemon runs, with another project active
    folder = idea.root / "fresh"
    folder.mkdir()
    client = tui(args=(str(folder),))
    client.wait_for(QUESTION)
    client.type("y")
    client.send_keys("Enter")
    client.wait_cells(1)
    client.wait_for(r"\bfresh\b")
    assert (folder / ".ideai" / "project.json").is_file()
    assert active_project(idea) == "fresh"
    client.prefix("d")
    assert client.wait_exit() == 0


def test_idea_path_answered_no_creates_nothing(idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("other")
    folder = idea.root / "plain"
    folder.mkdir()
    client = tui(args=(str(folder),))
    client.wait_for(QUESTION)
    client.type("n")
    client.send_keys("Enter")
    assert client.wait_exit() == 1
    assert "nothing created" in client.transcript()
    assert not (folder / ".ideai").exists()
    assert [p["name"] for p in idea.json("project", "list")] == ["other"]


def test_idea_dot_opens_the_project_of_the_current_folder_without_asking(
        idea: IdeaEnv, tui: TuiFactory) -> None:
    web = idea.new_project("web")
    idea.new_project("api")
    assert active_project(idea) == "api"
    client = tui(args=(".",), cwd=str(web))
    client.wait_cells(1)
    assert active_project(idea) == "web"
    assert "Create it?" not in client.transcript()


def test_idea_path_to_a_missing_folder_says_so(idea: IdeaEnv, tui: TuiFactory) -> None:
    idea.new_project("other")
    client = tui(args=(str(idea.root / "missing"),))
    assert client.wait_exit() == 1
    assert "no such directory" in client.transcript()


def test_the_first_word_is_a_path_only_when_it_is_not_a_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    commands = subcommand_names(build_parser())
    (tmp_path / "ls").mkdir()
    (tmp_path / "proj").mkdir()
    monkeypatch.chdir(tmp_path)
    assert looks_like_path(".", commands) and looks_like_path("..", commands)
    assert looks_like_path("proj", commands) and looks_like_path("./ls", commands)
    assert looks_like_path("~/x", commands) and looks_like_path("a/b", commands)
    assert not looks_like_path("ls", commands)  # a command even with a folder of that name
    assert not looks_like_path("new", commands) and not looks_like_path("a", commands)
    assert not looks_like_path("-w", commands) and not looks_like_path("lss", commands)
