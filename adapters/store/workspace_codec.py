"""`workspace.json` in idea's data dir: which projects are open in which window.

Machine-local, never in a project (PRJ-5, D18). Format, version 1:

    {"version": 1,
     "windows": [{"id": "...", "name": "main", "projects": ["/abs/root", ...],
                  "activeProject": "/abs/root"}]}

`activeProject` is omitted when the window has no tab. Unknown keys are kept (D23).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters.store._reader import JsonReader, index_at, key_at, unknown_keys
from adapters.store.atomic import ensure_directory, read_json, replace_json
from core.errors import RelativeRoot
from core.project import normalize_root
from core.workspace import Window, Workspace

SUPPORTED_VERSION = 1
FILE_NAME = "workspace.json"

_WINDOW_KEYS = ("id", "name", "projects", "activeProject", "size")


def decode_workspace(data: object, source: str = FILE_NAME) -> Workspace:
    """Build a `Workspace` from the parsed JSON of `workspace.json`.

    Raises:
        NewerVersion: The file comes from a newer idea.
        CorruptFile: The content does not match the format, or a project appears in two
            windows, or two windows share an id or a name.
    """
    read = JsonReader(source)
    top = read.mapping(data, "")
    read.version(top, SUPPORTED_VERSION)
    windows: list[Window] = []
    seen_projects: set[str] = set()
    for i, item in enumerate(read.array(top.get("windows", []), "windows")):
        at = index_at("windows", i)
        obj = read.mapping(item, at)
        window_id, name = read.text(obj, "id", at), read.text(obj, "name", at)
        if any(w.id == window_id for w in windows):
            read.fail(key_at(at, "id"), f"window id {window_id!r} is used twice")
        if any(w.name == name for w in windows):
            read.fail(key_at(at, "name"), f"window name {name!r} is used twice")
        tabs: list[str] = []
        projects_at = key_at(at, "projects")
        for j, value in enumerate(read.array(obj.get("projects", []), projects_at)):
            tab_at = index_at(projects_at, j)
            if not isinstance(value, str):
                read.expect(value, tab_at, "a project root")
            try:
                root = normalize_root(value)
            except RelativeRoot as error:
                read.fail(tab_at, error.message)
            if root in seen_projects:
                read.fail(tab_at, f"{root} is open in two windows")
            seen_projects.add(root)
            tabs.append(root)
        active = read.optional_text(obj, "activeProject", at)
        if active is not None and _root_or_none(active) in tabs:
            active = _root_or_none(active)
        else:
            active = tabs[0] if tabs else None
        size = _size(read, obj, key_at(at, "size"))
        windows.append(
            Window(window_id, name, tuple(tabs), active, size, unknown_keys(obj, _WINDOW_KEYS))
        )
    return Workspace(tuple(windows), unknown_keys(top, ("version", "windows")))


def _size(read: JsonReader, obj: dict[str, Any], at: str) -> tuple[int, int] | None:
    """`"size": [columns, rows]`, both whole numbers of at least 1, or absent."""
    value = obj.get("size")
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in value)
    ):
        read.expect(value, at, "[columns, rows], two whole numbers of at least 1")
    return (value[0], value[1])


def _root_or_none(root: str) -> str | None:
    """A root normalized for comparison, or None when it is not absolute."""
    try:
        return normalize_root(root)
    except RelativeRoot:
        return None


def encode_workspace(workspace: Workspace) -> dict[str, Any]:
    """The JSON form of a `Workspace`."""
    windows = []
    for window in workspace.windows:
        encoded: dict[str, Any] = {
            "id": window.id,
            "name": window.name,
            "projects": list(window.tabs),
        }
        if window.active is not None:
            encoded["activeProject"] = window.active
        if window.size is not None:
            encoded["size"] = list(window.size)
        windows.append({**encoded, **window.extra})
    return {"version": SUPPORTED_VERSION, "windows": windows, **workspace.extra}


class WorkspaceStore:
    """Loads and saves `workspace.json` in idea's data dir.

    Args:
        data_dir: idea's data directory (`$XDG_DATA_HOME/idea`), created on first save.
    """

    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / FILE_NAME

    def load(self) -> Workspace:
        """The saved workspace, or an empty one when there is no file yet.

        Raises:
            CorruptFile: The file is not valid; it is left untouched.
            NewerVersion: The file comes from a newer idea; it is left untouched.
            FileAccessError: The system refused the read.
        """
        try:
            data = read_json(self.path)
        except FileNotFoundError:
            return Workspace()
        return decode_workspace(data, str(self.path))

    def save(self, workspace: Workspace) -> None:
        """Write the workspace atomically.

        Raises:
            CorruptFile: The file on disk could not be read; it is NOT overwritten.
            NewerVersion: The file on disk comes from a newer idea; it is NOT overwritten.
            FileAccessError: The system refused the write.
        """
        ensure_directory(self.path.parent)
        replace_json(
            self.path, encode_workspace(workspace), lambda d: decode_workspace(d, str(self.path))
        )
