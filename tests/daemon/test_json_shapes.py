"""The `--json` output of every command that has one: the keys scripts can rely on.

The CLI's `main()` runs in this process against the real daemon served from a thread, so
this is the exact text a script would parse. Shapes list required keys and types; new keys
may appear without breaking anything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.daemon.conftest import CliRunner
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.shapes import Optional, check_shape

CELL = {
    "id": str, "target": str, "project": str, "root": str, "page": str, "index": int,
    "focused": bool, "running": bool, "cols": int, "rows": int, "title": str,
    "exitCode": Optional(int), "pid": int, "command": str, "foreground": Optional(str),
}
PROJECT = {
    "id": str, "name": str, "root": str, "window": Optional(str), "open": bool,
    "pages": [str], "activePage": str, "problems": [str],
}
CLOSED_PROJECT = {"id": str, "name": str, "root": str, "window": Optional(str), "open": bool}
PAGE = {"id": str, "name": str, "kind": str, "active": bool, "cells": int}
LS = {
    "windows": [{
        "name": str, "id": str, "clients": int,
        "projects": [{
            "name": str, "root": str, "active": bool, "problems": [str],
            "pages": [{"name": str, "kind": str, "active": bool, "cells": [CELL]}],
        }],
    }],
    "problems": [str],
    "sessions": int,
}
WINDOW = {"id": str, "name": str, "projects": [str], "clients": int, "width": int,
          "height": int}


@pytest.fixture
def projects(tmp_path: Path, run_cli: CliRunner) -> tuple[Path, Path]:
    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    alpha.mkdir()
    beta.mkdir()
    check_shape(run_cli("new", str(alpha), "--json").json(), PROJECT)
    return alpha, beta


def test_project_commands(run_cli: CliRunner, projects: tuple[Path, Path]) -> None:
    alpha, beta = projects
    created = run_cli("project", "new", str(beta), "--name", "Beta", "--json").json()
    check_shape(created, PROJECT)
    assert (created["name"], created["root"], created["open"]) == ("Beta", str(beta), True)
    assert created["pages"] == ["Default"] and created["activePage"] == "Default"
    check_shape(run_cli("open", str(alpha), "--json").json(), PROJECT)
    check_shape(run_cli("project", "open", str(alpha), "--json").json(), PROJECT)
    listed = run_cli("project", "list", "--json").json()
    check_shape(listed, [PROJECT])
    assert run_cli("project", "--json").json() == listed
    switched = run_cli("project", "switch", "alpha", "--json").json()
    check_shape(switched, PROJECT)
    assert switched["name"] == "alpha"
    closed = run_cli("project", "close", "Beta", "--json").json()
    assert closed == {"closed": str(beta)}
    listed = run_cli("project", "list", "--json").json()
    check_shape([p for p in listed if not p["open"]], [CLOSED_PROJECT])
    assert {p["root"]: p["open"] for p in listed} == {str(alpha): True, str(beta): False}


def test_window_commands(run_cli: CliRunner, projects: tuple[Path, Path]) -> None:
    beta = projects[1]
    run_cli("new", str(beta))
    created = run_cli("window", "new", "W2", "beta", "--json").json()
    check_shape(created, {"id": str, "name": str, "projects": [str]})
    assert created["name"] == "W2" and created["projects"] == [str(beta)]
    listed = run_cli("window", "list", "--json").json()
    check_shape(listed, [WINDOW])
    assert run_cli("window", "--json").json() == listed
    assert [(w["name"], w["projects"]) for w in listed] == [("main", ["alpha"]),
                                                            ("W2", ["beta"])]
    moved = run_cli("project", "move", "alpha", "W2", "--json").json()
    assert moved == {"project": "alpha", "window": "W2"}
    renamed = run_cli("window", "rename", "Work", "-w", "W2", "--json").json()
    check_shape(renamed, {"id": str, "name": str})
    assert renamed["name"] == "Work"
    assert run_cli("detach", "--json").json() == {"detached": 0}


def test_overview_and_cell_listing(run_cli: CliRunner, projects: tuple[Path, Path]) -> None:
    listing = run_cli("ls", "--json").json()
    check_shape(listing, LS)
    cells = run_cli("list-cells", "--json").json()
    check_shape(cells, [CELL])
    assert cells == listing["windows"][0]["projects"][0]["pages"][0]["cells"]
    assert run_cli("list-cells", "--all", "--json").json() == cells
    assert run_cli("list-cells", "-p", "alpha", "--page", "Default", "--json").json() == cells


def test_cell_commands(run_cli: CliRunner, projects: tuple[Path, Path]) -> None:
    split = run_cli("split", "-h", "--json").json()
    check_shape(split, {"cells": [str]})
    assert len(split["cells"]) == 1
    assert run_cli("split", "-h", "-P").out.strip() != ""
    grid = run_cli("grid", "2x2", "-t", "0", "--json").json()
    check_shape(grid, {"cells": [str]})
    assert len(run_cli("list-cells", "--json").json()) == 6
    selected = run_cli("select", "-t", "0", "--json").json()
    check_shape(selected, CELL)
    assert selected["index"] == 0 and selected["focused"]
    assert run_cli("select", "-R", "--json").json()["index"] == 1
    check_shape(run_cli("resize", "-t", "0", "-R", "2", "--json").json(), CELL)
    merged = run_cli("merge", "-t", "0", "-s", "1", "--json").json()
    check_shape(merged, {"kept": str, "removed": str})
    swapped = run_cli("swap", "-t", "0", "-s", "1", "--json").json()
    check_shape(swapped, {"swapped": [str]})
    assert len(swapped["swapped"]) == 2
    moved = run_cli("move", "-t", "0", "-d", "2", "-v", "--json").json()
    check_shape(moved, {"moved": str})
    assert run_cli("equalize", "--json").json() is None
    assert run_cli("zoom", "-t", "1", "--json").json() == {"zoomed": True}
    assert run_cli("zoom", "-t", "1", "--json").json() == {"zoomed": False}
    restarted = run_cli("restart", "-t", "1", "--json").json()
    check_shape(restarted, CELL)
    assert restarted["running"]
    last = str(len(run_cli("list-cells", "--json").json()) - 1)
    closed = run_cli("close", "-t", last, "--json").json()
    check_shape(closed, {"closed": str})


def test_capture(run_cli: CliRunner, projects: tuple[Path, Path]) -> None:
    assert run_cli("send-keys", "-t", "0", "echo J=$((8*8))", "Enter").code == 0
    captured = run_cli("capture", "-t", "0", "--wait", "J=64", "--json").json()
    check_shape(captured, {"text": str, "cols": int, "rows": int, "cursor": [int],
                           "cell": str})
    assert "J=64" in captured["text"]
    assert len(captured["text"].split("\n")) == captured["rows"]
    assert len(captured["cursor"]) == 2


def test_layout_commands(run_cli: CliRunner, projects: tuple[Path, Path]) -> None:
    pages = run_cli("layout", "list", "--json").json()
    check_shape(pages, [PAGE])
    assert [(p["name"], p["active"]) for p in pages] == [("Default", True)]
    new = run_cli("layout", "new", "Build", "--json").json()
    check_shape(new, {"id": str, "name": str})
    switched = run_cli("layout", "switch", "Default", "--json").json()
    assert switched["name"] == "Default"
    renamed = run_cli("layout", "rename", "Main", "--json").json()
    assert renamed["name"] == "Main"
    closed = run_cli("layout", "close", "Build", "--json").json()
    assert closed == {"closed": "Build"}
    assert [p["name"] for p in run_cli("layout", "list", "--json").json()] == ["Main"]
    assert run_cli("layout").out.split() == ["*", "Main", "terminal", "1", "cells"]


def test_bare_group_commands_list_with_json(run_cli: CliRunner,
                                            projects: tuple[Path, Path]) -> None:
    for group in ("window", "project", "layout"):
        assert run_cli(group, "--json").code == 0, group


def test_commands_without_a_project_say_how_to_make_one(run_cli: CliRunner,
                                                       daemon: InProcessDaemon) -> None:
    result = run_cli("split")
    assert result.code == 1
    assert result.err == "idea: no project is open: create one with `idea new PATH`\n"
    listing: dict[str, Any] = run_cli("ls", "--json").json()
    assert listing["windows"] == [] and listing["sessions"] == 0
    assert run_cli("ls").out == (
        "no windows (create a project with `idea new PATH`)\n"
        f"emulator: {listing['emulator']}\n"  # which backend the cells use (D26)
    )
    assert listing["emulator"].split()[0] in ("ghostty", "pyte")
