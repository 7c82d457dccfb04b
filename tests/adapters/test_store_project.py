"""`.ideai/project.json`, the `Project` value and `.ideai/.gitignore`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from adapters.store.project_codec import (
    GITIGNORE_TEXT,
    ProjectStore,
    decode_project,
    encode_project,
)
from core.errors import CorruptFile, NewerVersion, RelativeRoot
from core.project import LocalRemote, Project, SshRemote, WslRemote, normalize_root

SEED = Path(__file__).parent.parent / "fixtures" / "seed_project.json"


def seed_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SEED.read_text(encoding="utf-8"))
    return data


def test_the_seed_file_decodes_and_encodes_back_unchanged() -> None:
    project = decode_project(seed_data(), "/home/me/idea")
    assert project == Project(
        "97b49ac2-8376-4aa3-8ea9-bf3ac81d0023",
        "IdeA",
        "/home/me/idea",
        LocalRemote(),
        1780702317785,
    )
    assert encode_project(project) == seed_data()


@pytest.mark.parametrize(
    "remote",
    [
        {
            "kind": "ssh",
            "host": "box",
            "port": 2222,
            "user": "me",
            "auth": {"kind": "agent"},
            "remoteRoot": "/srv/p",
        },
        {"kind": "ssh", "host": "box", "port": 22},
        {"kind": "wsl", "distro": "Ubuntu"},
        {"kind": "local", "futureKey": 1},
    ],
)
def test_remote_kinds_round_trip(remote: dict[str, Any]) -> None:
    data = {**seed_data(), "remote": remote, "defaultProfile": "claude"}
    project = decode_project(data, "/p")
    assert encode_project(project) == data


def test_remote_values() -> None:
    ssh = decode_project({**seed_data(), "remote": {"kind": "ssh", "host": "h"}}, "/p").remote
    assert ssh == SshRemote("h", 22)
    wsl = decode_project({**seed_data(), "remote": {"kind": "wsl", "distro": "D"}}, "/p").remote
    assert wsl == WslRemote("D")


@pytest.mark.parametrize(
    ("data", "location"),
    [
        ({**seed_data(), "remote": {"kind": "ftp"}}, "remote.kind: unknown remote kind 'ftp'"),
        ({**seed_data(), "remote": {"kind": "wsl"}}, "remote.distro: missing"),
        ({**seed_data(), "createdAt": "yesterday"}, "createdAt: expected an integer"),
        ({**seed_data(), "name": None}, "name: expected a string, found null"),
    ],
)
def test_malformed_project_files_name_the_key(data: dict[str, Any], location: str) -> None:
    with pytest.raises(CorruptFile, match=location.replace("(", r"\(")):
        decode_project(data, "/p")


def test_roots_are_absolute_and_normalized() -> None:
    assert Project("i", "n", "/a/b/../c/").root == "/a/c"
    assert normalize_root("/x//y/.") == "/x/y"
    with pytest.raises(RelativeRoot):
        Project("i", "n", "code/p")


def test_store_save_load_and_missing_file(tmp_path: Path) -> None:
    store = ProjectStore()
    assert store.load(tmp_path) is None
    project = Project("id-1", "Demo", str(tmp_path), created_at_ms=42)
    store.save(project)
    assert store.load(tmp_path) == project
    assert json.loads((tmp_path / ".ideai" / "project.json").read_text())["version"] == 1


@pytest.mark.parametrize("content", [b"{", json.dumps({**seed_data(), "version": 5}).encode()])
def test_store_never_overwrites_an_unreadable_project_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / ".ideai" / "project.json"
    path.parent.mkdir()
    path.write_bytes(content)
    store = ProjectStore()
    with pytest.raises((CorruptFile, NewerVersion)):
        store.load(tmp_path)
    with pytest.raises((CorruptFile, NewerVersion)):
        store.save(Project("id", "n", str(tmp_path)))
    assert path.read_bytes() == content


def test_gitignore_lists_runtime_state_and_is_written_once(tmp_path: Path) -> None:
    store = ProjectStore()
    assert store.ensure_gitignore(tmp_path)
    path = tmp_path / ".ideai" / ".gitignore"
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    # `.*.tmp`: a write cut short by a crash (kill -9) leaves one until the next write.
    assert lines == ["run/", "requests/", "memory/.index/", "live-state.json", "conversations/",
                     ".*.tmp"]
    path.write_text("# mine\nrun/\n")
    assert not store.ensure_gitignore(tmp_path)
    assert path.read_text() == "# mine\nrun/\n"
    assert GITIGNORE_TEXT.endswith("\n")
