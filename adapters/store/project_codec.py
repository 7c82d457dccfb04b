"""`.ideai/project.json` (FEATURES.md §3.5) and `.ideai/.gitignore` (DECISIONS D12).

`project.json` does not store the root: a project's root is the folder holding `.ideai/`.
Unknown keys (at the top and in `remote`) are kept and written back (D23).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters.store._reader import JsonReader, key_at, unknown_keys
from adapters.store.atomic import (
    ensure_directory,
    read_json,
    replace_json,
    write_text_atomic,
)
from core.project import LocalRemote, Project, Remote, SshRemote, WslRemote

SUPPORTED_VERSION = 1
IDEAI = ".ideai"
FILE = Path(IDEAI) / "project.json"
GITIGNORE = Path(IDEAI) / ".gitignore"

GITIGNORE_TEXT = """\
# Written by idea: runtime state under .ideai/ that is not worth committing.
# Edit freely; idea only writes this file when it does not exist.
run/
requests/
memory/.index/
live-state.json
conversations/
.*.tmp
"""

_TOP_KEYS = ("version", "id", "name", "remote", "createdAt")
_SSH_KEYS = ("kind", "host", "port", "user", "auth", "remoteRoot")


def decode_project(data: object, root: str, source: str = "project.json") -> Project:
    """Build a `Project` from the parsed JSON of `project.json`.

    Args:
        data: What `json.loads` returned.
        root: The folder holding `.ideai/` (absolute).
        source: The file name for error messages.

    Raises:
        NewerVersion: The file comes from a newer idea.
        CorruptFile: The content does not match the format.
        RelativeRoot: `root` is not absolute.
    """
    read = JsonReader(source)
    top = read.mapping(data, "")
    read.version(top, SUPPORTED_VERSION)
    remote: Remote = LocalRemote()
    if top.get("remote") is not None:
        remote = _decode_remote(read, read.mapping(top["remote"], "remote"))
    return Project(
        id=read.text(top, "id", ""),
        name=read.text(top, "name", ""),
        root=root,
        remote=remote,
        created_at_ms=read.integer(top, "createdAt", ""),
        extra=unknown_keys(top, _TOP_KEYS),
    )


def _decode_remote(read: JsonReader, obj: dict[str, Any]) -> Remote:
    kind = read.text(obj, "kind", "remote")
    if kind == "local":
        return LocalRemote(unknown_keys(obj, ("kind",)))
    if kind == "wsl":
        return WslRemote(read.text(obj, "distro", "remote"), unknown_keys(obj, ("kind", "distro")))
    if kind == "ssh":
        return SshRemote(
            host=read.text(obj, "host", "remote"),
            port=read.integer(obj, "port", "remote", default=22),
            user=read.optional_text(obj, "user", "remote"),
            auth=obj.get("auth"),
            remote_root=read.optional_text(obj, "remoteRoot", "remote"),
            extra=unknown_keys(obj, _SSH_KEYS),
        )
    read.fail(key_at("remote", "kind"), f"unknown remote kind {kind!r}")


def encode_project(project: Project) -> dict[str, Any]:
    """The JSON form of a project, in the seed's key order (the root is not stored)."""
    return {
        "version": SUPPORTED_VERSION,
        "id": project.id,
        "name": project.name,
        "remote": _encode_remote(project.remote),
        "createdAt": project.created_at_ms,
        **project.extra,
    }


def _encode_remote(remote: Remote) -> dict[str, Any]:
    if isinstance(remote, LocalRemote):
        return {"kind": "local", **remote.extra}
    if isinstance(remote, WslRemote):
        return {"kind": "wsl", "distro": remote.distro, **remote.extra}
    encoded: dict[str, Any] = {"kind": "ssh", "host": remote.host, "port": remote.port}
    if remote.user is not None:
        encoded["user"] = remote.user
    if remote.auth is not None:
        encoded["auth"] = remote.auth
    if remote.remote_root is not None:
        encoded["remoteRoot"] = remote.remote_root
    return {**encoded, **remote.extra}


class ProjectStore:
    """Loads and saves `<root>/.ideai/project.json`, and writes `.ideai/.gitignore`."""

    @staticmethod
    def path(project_root: Path) -> Path:
        """Where a project's description lives."""
        return Path(project_root) / FILE

    def load(self, project_root: Path) -> Project | None:
        """The project at `project_root`, or None when it has no `project.json` (yet).

        Raises:
            CorruptFile: The file is not valid; it is left untouched.
            NewerVersion: The file comes from a newer idea; it is left untouched.
            FileAccessError: The system refused the read.
            RelativeRoot: `project_root` is not absolute.
        """
        path = self.path(project_root)
        try:
            data = read_json(path)
        except FileNotFoundError:
            return None
        return decode_project(data, str(project_root), str(path))

    def save(self, project: Project) -> None:
        """Write `project.json` atomically into the project's `.ideai/` (created if needed).

        Raises:
            CorruptFile: The file on disk could not be read; it is NOT overwritten.
            NewerVersion: The file on disk comes from a newer idea; it is NOT overwritten.
            FileAccessError: The system refused the write.
        """
        path = self.path(Path(project.root))
        ensure_directory(path.parent, parents=False)
        replace_json(
            path,
            encode_project(project),
            lambda data: decode_project(data, project.root, str(path)),
        )

    def ensure_gitignore(self, project_root: Path) -> bool:
        """Write `.ideai/.gitignore` for runtime state, unless one exists (D12).

        Returns:
            True if the file was written, False if one was already there.

        Raises:
            FileAccessError: The system refused the write.
        """
        path = Path(project_root) / GITIGNORE
        ensure_directory(path.parent, parents=False)
        return write_text_atomic(path, GITIGNORE_TEXT, overwrite=False)
