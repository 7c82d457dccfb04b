"""The global registry of known projects, keyed by root (D23)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from adapters.store.registry import ProjectRegistry
from core.errors import CorruptFile, NewerVersion, ProjectNotRegistered, RelativeRoot
from core.project import RegisteredProject


class Clock:
    """A settable clock in epoch milliseconds."""

    def __init__(self) -> None:
        self.now = 1000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def registry(tmp_path: Path, clock: Clock) -> ProjectRegistry:
    return ProjectRegistry(tmp_path / "data" / "idea", clock)


def test_an_empty_registry_lists_nothing_and_writes_nothing(registry: ProjectRegistry) -> None:
    assert registry.list_projects() == []
    assert not registry.path.exists()


def test_add_list_touch_remove(registry: ProjectRegistry, clock: Clock) -> None:
    registry.add("/code/a/", "id-a", "A")
    clock.now = 2000
    registry.add("/code/b", "id-b", "B")
    assert registry.list_projects() == [
        RegisteredProject("/code/a", "id-a", "A", 1000, 1000),
        RegisteredProject("/code/b", "id-b", "B", 2000, 2000),
    ]
    clock.now = 3000
    assert registry.touch("/code/a").last_opened_at_ms == 3000
    assert registry.get("/code/a/.") == RegisteredProject("/code/a", "id-a", "A", 1000, 3000)
    assert registry.remove("/code/b").id == "id-b"
    assert [p.root for p in registry.list_projects()] == ["/code/a"]
    data = json.loads(registry.path.read_text())
    assert data == {
        "version": 1,
        "projects": [
            {"root": "/code/a", "id": "id-a", "name": "A", "addedAt": 1000, "lastOpenedAt": 3000}
        ],
    }


def test_two_clones_with_one_id_are_two_projects(registry: ProjectRegistry) -> None:
    registry.add("/code/clone1", "same-id", "P")
    registry.add("/code/clone2", "same-id", "P")
    assert len(registry.list_projects()) == 2


def test_adding_a_known_root_updates_it_and_keeps_its_dates(
    registry: ProjectRegistry, clock: Clock
) -> None:
    registry.add("/code/a", "id-a", "A")
    clock.now = 5000
    entry = registry.add("/code/a", "id-a", "Renamed")
    assert entry == RegisteredProject("/code/a", "id-a", "Renamed", 1000, 1000)
    assert registry.list_projects() == [entry]


def test_unknown_roots_and_relative_roots_are_errors(registry: ProjectRegistry) -> None:
    with pytest.raises(ProjectNotRegistered):
        registry.remove("/nowhere")
    with pytest.raises(ProjectNotRegistered):
        registry.touch("/nowhere")
    with pytest.raises(RelativeRoot):
        registry.add("relative", "i", "n")


def test_unknown_keys_are_kept(registry: ProjectRegistry) -> None:
    registry.path.parent.mkdir(parents=True)
    registry.path.write_text(
        json.dumps(
            {
                "version": 1,
                "sort": "recent",
                "projects": [
                    {
                        "root": "/a",
                        "id": "i",
                        "name": "n",
                        "addedAt": 1,
                        "lastOpenedAt": 2,
                        "pin": True,
                    }
                ],
            }
        )
    )
    registry.touch("/a")
    data = json.loads(registry.path.read_text())
    assert data["sort"] == "recent" and data["projects"][0]["pin"] is True


@pytest.mark.parametrize(
    "content",
    [
        b"{oops",
        b'{"version": 1, "projects": [{"root": "rel", "id": "i", "name": "n",'
        b' "addedAt": 1, "lastOpenedAt": 1}]}',
        b'{"version": 1, "projects": [{"root": "/a"}]}',
        b'{"version": 4, "projects": []}',
    ],
)
def test_a_corrupt_registry_is_a_clear_error_and_stays_untouched(
    registry: ProjectRegistry, content: bytes
) -> None:
    registry.path.parent.mkdir(parents=True)
    registry.path.write_bytes(content)
    with pytest.raises((CorruptFile, NewerVersion)) as caught:
        registry.list_projects()
    assert str(registry.path) in caught.value.message
    with pytest.raises((CorruptFile, NewerVersion)):
        registry.add("/code/x", "i", "n")
    assert registry.path.read_bytes() == content
