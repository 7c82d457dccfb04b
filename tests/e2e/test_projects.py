"""Creating, adopting and opening projects from the command line, and the files that go wrong."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.helpers.idea import PROMPT_RE, IdeaEnv
from tests.helpers.tui import TuiFactory

pytestmark = pytest.mark.e2e

FIXTURES = Path(__file__).parent.parent / "fixtures"


def test_new_dot_resolves_against_the_current_directory(idea: IdeaEnv) -> None:
    folder = idea.root / "web"
    folder.mkdir()
    result = idea.run("new", ".", cwd=folder)
    assert result.stdout.strip() == f"created project web at {folder} (window main)"
    project = json.loads((folder / ".ideai" / "project.json").read_text())
    assert project["version"] == 1 and project["name"] == "web"
    assert project["remote"] == {"kind": "local"}
    assert isinstance(project["createdAt"], int) and len(project["id"]) == 36
    assert "run/" in (folder / ".ideai" / ".gitignore").read_text().splitlines()
    listed = idea.json("project", "list")
    assert [(p["name"], p["root"], p["open"]) for p in listed] == [("web", str(folder), True)]
    assert idea.in_directory("0", folder)


def test_new_on_a_missing_folder_or_a_registered_root_is_refused(idea: IdeaEnv) -> None:
    missing = idea.root / "nope"
    result = idea.run("new", str(missing), check=False)
    assert result.returncode == 1
    assert result.stderr == f"idea: no such directory: {missing}\n"
    assert not missing.exists()

    folder = idea.new_project("web")
    files = {p.name: p.read_bytes() for p in (folder / ".ideai").iterdir() if p.is_file()}
    again = idea.run("new", str(folder), check=False)
    assert again.returncode == 1
    assert "already a registered project (web)" in again.stderr
    assert f"idea open {folder}" in again.stderr
    assert {p.name: p.read_bytes() for p in (folder / ".ideai").iterdir() if p.is_file()} == files
    assert len(idea.json("project", "list")) == 1


def test_a_folder_with_a_project_file_is_adopted_as_it_is(idea: IdeaEnv) -> None:
    clone = idea.root / "clone"
    (clone / ".ideai").mkdir(parents=True)
    seed = FIXTURES / "seed_project.json"
    shutil.copy(seed, clone / ".ideai" / "project.json")
    created = idea.json("new", str(clone))
    assert (created["id"], created["name"]) == ("97b49ac2-8376-4aa3-8ea9-bf3ac81d0023", "IdeA")
    assert (clone / ".ideai" / "project.json").read_bytes() == seed.read_bytes()

    # `idea open` adopts such a folder as well, without `idea new`.
    other = idea.root / "other"
    (other / ".ideai").mkdir(parents=True)
    shutil.copy(seed, other / ".ideai" / "project.json")
    opened = idea.json("open", str(other))
    assert opened["root"] == str(other) and opened["name"] == "IdeA"
    roots = {p["root"] for p in idea.json("project", "list")}
    assert roots == {str(clone), str(other)}


BAD_FILES = {
    "corrupt layouts": ("layouts.json", b'{\n  "version": 1,\n  "layouts": [\n'),
    "newer layouts": ("layouts.json", b'{"version": 2, "activeId": "x", "layouts": []}\n'),
    "corrupt project": ("project.json", b"[1, 2"),
    "newer project": ("project.json", b'{"version": 2, "id": "x", "name": "n"}\n'),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_project_file_is_named_left_untouched_and_the_project_opens(
        idea: IdeaEnv, tui: TuiFactory, case: str) -> None:
    name, content = BAD_FILES[case]
    folder = idea.new_project("web")
    idea.run("project", "close", "web")
    bad = folder / ".ideai" / name
    bad.write_bytes(content)

    opened = idea.run("open", str(folder))
    assert f"! {bad}" in opened.stderr
    assert ("version 2" in opened.stderr) == case.startswith("newer")
    assert "untouched" in opened.stderr
    cells = idea.cells()
    assert len(cells) == 1 and cells[0]["running"]
    # Layout changes work in memory and never overwrite the file.
    idea.run("split", "-h")
    assert len(idea.cells()) == 2
    assert bad.read_bytes() == content
    problems = idea.json("ls")["windows"][0]["projects"][0]["problems"]
    assert any(str(bad) in problem for problem in problems)
    # An attaching client is told too.
    client = tui(width=200, height=20)
    status = client.wait_for(r"\.ideai/" + re.escape(name)).splitlines()[-1]
    assert str(bad) in status
    client.wait_for("^" + PROMPT_RE)
    idea.run("kill-server", "-f")
    assert bad.read_bytes() == content
