"""`workspace.json`: machine-local windows and tabs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.store.workspace_codec import WorkspaceStore, decode_workspace, encode_workspace
from core.errors import CorruptFile, NewerVersion
from core.workspace import Window, Workspace, add_project, add_window


def sample() -> Workspace:
    workspace = add_window(Workspace(), "w1", "main", "/code/a")
    workspace = add_project(workspace, "w1", "/code/b")
    return add_window(workspace, "w2", "empty")


def test_encode_format() -> None:
    assert encode_workspace(sample()) == {
        "version": 1,
        "windows": [
            {
                "id": "w1",
                "name": "main",
                "projects": ["/code/a", "/code/b"],
                "activeProject": "/code/b",
            },
            {"id": "w2", "name": "empty", "projects": []},
        ],
    }


def test_round_trip_keeps_unknown_keys() -> None:
    data: dict[str, Any] = {
        "version": 1,
        "windows": [
            {
                "id": "w1",
                "name": "main",
                "projects": ["/a"],
                "activeProject": "/a",
                "geometry": [80, 24],
            }
        ],
        "lastAttached": "w1",
    }
    workspace = decode_workspace(data)
    assert workspace.windows == (Window("w1", "main", ("/a",), "/a"),)
    assert encode_workspace(workspace) == data


def test_a_missing_or_stale_active_project_falls_back_to_the_first_tab() -> None:
    data = {
        "version": 1,
        "windows": [{"id": "w", "name": "n", "projects": ["/a", "/b"], "activeProject": "/gone"}],
    }
    assert decode_workspace(data).window("w").active == "/a"


@pytest.mark.parametrize(
    ("data", "detail"),
    [
        ({"windows": [{"id": "w", "name": "n", "projects": ["rel"]}]}, "windows[0].projects[0]"),
        ({"windows": [{"id": "w", "name": "n", "projects": [3]}]}, "expected a project root"),
        (
            {
                "windows": [
                    {"id": "w", "name": "n", "projects": ["/a"]},
                    {"id": "v", "name": "m", "projects": ["/a"]},
                ]
            },
            "/a is open in two windows",
        ),
        (
            {"windows": [{"id": "w", "name": "n"}, {"id": "w", "name": "m"}]},
            "window id 'w' is used twice",
        ),
        (
            {"windows": [{"id": "w", "name": "n"}, {"id": "v", "name": "n"}]},
            "window name 'n' is used twice",
        ),
    ],
)
def test_malformed_workspaces_are_corrupt(data: dict[str, Any], detail: str) -> None:
    with pytest.raises(CorruptFile, match=detail.replace("[", r"\[").replace("]", r"\]")):
        decode_workspace(data)


def test_store_round_trip_and_empty_default(tmp_path: Path) -> None:
    store = WorkspaceStore(tmp_path / "idea")
    assert store.load() == Workspace()
    store.save(sample())
    assert store.load() == sample()
    assert json.loads(store.path.read_text())["version"] == 1


@pytest.mark.parametrize("content", [b"[", b'{"version": 2, "windows": []}'])
def test_store_never_overwrites_an_unreadable_file(tmp_path: Path, content: bytes) -> None:
    store = WorkspaceStore(tmp_path)
    store.path.write_bytes(content)
    with pytest.raises((CorruptFile, NewerVersion)):
        store.load()
    with pytest.raises((CorruptFile, NewerVersion)):
        store.save(sample())
    assert store.path.read_bytes() == content


def test_window_size_round_trips_and_is_checked() -> None:
    from core.workspace import resize_window

    workspace = resize_window(sample(), "w1", 120, 33)
    data = encode_workspace(workspace)
    assert data["windows"][0]["size"] == [120, 33]
    assert "size" not in data["windows"][1]
    assert decode_workspace(data).window("w1").size == (120, 33)
    for bad in ([120], [0, 10], ["80", 24], [True, 3], "80x24"):
        broken = {"version": 1, "windows": [{"id": "w", "name": "n", "size": bad}]}
        with pytest.raises(CorruptFile, match=r"windows\[0\]\.size"):
            decode_workspace(broken)
    with pytest.raises(ValueError, match="at least 1x1"):
        resize_window(sample(), "w1", 0, 5)
