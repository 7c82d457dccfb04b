"""The global registry of known projects: `projects.json` in idea's data dir (PRJ-8, D18).

Entries are keyed by project root, never by project id: two clones of one repository share
the committed id in `.ideai/project.json` but are two projects (D23). Each change re-reads
the file and writes it back atomically; a file that cannot be read is left untouched and
every change is refused with the same error until the user fixes or removes it. The daemon
is the only writer, so read-modify-write needs no lock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from adapters.store._reader import JsonReader, index_at, unknown_keys
from adapters.store.atomic import ensure_directory, read_json, replace_json
from core.errors import ProjectNotRegistered, RelativeRoot
from core.project import RegisteredProject, normalize_root

SUPPORTED_VERSION = 1
FILE_NAME = "projects.json"

_ENTRY_KEYS = ("root", "id", "name", "addedAt", "lastOpenedAt")


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class _Content:
    projects: tuple[RegisteredProject, ...]
    extra: dict[str, Any]


def _decode(data: object, source: str) -> _Content:
    read = JsonReader(source)
    top = read.mapping(data, "")
    read.version(top, SUPPORTED_VERSION)
    projects: dict[str, RegisteredProject] = {}
    items = read.array(top.get("projects", []), "projects")
    for i, item in enumerate(items):
        at = index_at("projects", i)
        entry = read.mapping(item, at)
        try:
            project = RegisteredProject(
                root=read.text(entry, "root", at),
                id=read.text(entry, "id", at),
                name=read.text(entry, "name", at),
                added_at_ms=read.integer(entry, "addedAt", at),
                last_opened_at_ms=read.integer(entry, "lastOpenedAt", at),
                extra=unknown_keys(entry, _ENTRY_KEYS),
            )
        except RelativeRoot as error:
            read.fail(f"{at}.root", error.message)
        # A root listed twice (hand edits) keeps its first entry.
        projects.setdefault(project.root, project)
    return _Content(tuple(projects.values()), unknown_keys(top, ("version", "projects")))


def _encode(content: _Content) -> dict[str, Any]:
    return {
        "version": SUPPORTED_VERSION,
        "projects": [
            {
                "root": project.root,
                "id": project.id,
                "name": project.name,
                "addedAt": project.added_at_ms,
                "lastOpenedAt": project.last_opened_at_ms,
                **project.extra,
            }
            for project in content.projects
        ],
        **content.extra,
    }


class ProjectRegistry:
    """Add, remove, list and touch the known projects.

    Args:
        data_dir: idea's data directory (`$XDG_DATA_HOME/idea`), created on first write.
        clock: Current time in epoch milliseconds (injected for tests).
    """

    def __init__(self, data_dir: Path, clock: Callable[[], int] = _now_ms) -> None:
        self.path = Path(data_dir) / FILE_NAME
        self._clock = clock

    def list_projects(self) -> list[RegisteredProject]:
        """Every known project, in the order they were added.

        Raises:
            CorruptFile: The registry cannot be read (it is left untouched).
            NewerVersion: It comes from a newer idea (it is left untouched).
            FileAccessError: The system refused the read.
        """
        return list(self._read().projects)

    def get(self, root: str) -> RegisteredProject | None:
        """The entry for a root, or None."""
        key = normalize_root(root)
        return next((p for p in self._read().projects if p.root == key), None)

    def add(self, root: str, project_id: str, name: str) -> RegisteredProject:
        """Register a project, or update the id and name of one already registered there.

        Returns:
            The entry as saved.

        Raises:
            RelativeRoot: `root` is not absolute.
            CorruptFile, NewerVersion, FileAccessError: As for `list_projects`; nothing is
                written then.
        """
        key = normalize_root(root)
        content = self._read()
        now = self._clock()
        existing = next((p for p in content.projects if p.root == key), None)
        if existing is None:
            entry = RegisteredProject(key, project_id, name, now, now)
            projects = (*content.projects, entry)
        else:
            entry = replace(existing, id=project_id, name=name)
            projects = tuple(entry if p.root == key else p for p in content.projects)
        self._write(replace(content, projects=projects))
        return entry

    def remove(self, root: str) -> RegisteredProject:
        """Forget a project (its files are not touched).

        Returns:
            The entry removed.

        Raises:
            ProjectNotRegistered: No project is registered at that root.
        """
        key = normalize_root(root)
        content = self._read()
        entry = self._find(content, key)
        self._write(replace(content, projects=tuple(p for p in content.projects if p.root != key)))
        return entry

    def touch(self, root: str) -> RegisteredProject:
        """Record that a project was just opened.

        Raises:
            ProjectNotRegistered: No project is registered at that root.
        """
        key = normalize_root(root)
        content = self._read()
        entry = replace(self._find(content, key), last_opened_at_ms=self._clock())
        self._write(
            replace(
                content, projects=tuple(entry if p.root == key else p for p in content.projects)
            )
        )
        return entry

    @staticmethod
    def _find(content: _Content, root: str) -> RegisteredProject:
        for project in content.projects:
            if project.root == root:
                return project
        raise ProjectNotRegistered(root)

    def _read(self) -> _Content:
        try:
            data = read_json(self.path)
        except FileNotFoundError:
            return _Content((), {})
        return _decode(data, str(self.path))

    def _write(self, content: _Content) -> None:
        ensure_directory(self.path.parent)
        replace_json(self.path, _encode(content), lambda data: _decode(data, str(self.path)))
