"""A project: a folder (its root) whose `.ideai/` holds agents, layouts and memory.

Value objects only (FEATURES.md PRJ-1, §3.5). Files are read and written by
`adapters.store.project_codec` and `adapters.store.registry`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.errors import RelativeRoot
from core.layout.model import EMPTY_EXTRA


@dataclass(frozen=True, slots=True)
class LocalRemote:
    """The project lives on this machine."""

    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class SshRemote:
    """The project lives on an SSH host.

    Attributes:
        host: Host name or address.
        port: SSH port.
        user: Login, or None for the SSH default.
        auth: How to authenticate, kept as found in the file (its shape is not fixed yet).
        remote_root: The project root on the host.
    """

    host: str
    port: int = 22
    user: str | None = None
    auth: Any = None
    remote_root: str | None = None
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


@dataclass(frozen=True, slots=True)
class WslRemote:
    """The project lives in a WSL distribution (kept in the model, DECISIONS D5)."""

    distro: str
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)


Remote = LocalRemote | SshRemote | WslRemote

LOCAL = LocalRemote()


def normalize_root(root: str) -> str:
    """A project root in canonical form: absolute, without `..`, `.` or a trailing slash.

    Symbolic links are not resolved: the registry keys projects by the root the user chose
    (D23), and two paths to one folder stay two entries rather than surprising the user.

    Raises:
        RelativeRoot: `root` is not absolute.
    """
    if not posixpath.isabs(root):
        raise RelativeRoot(root)
    return posixpath.normpath(root)


@dataclass(frozen=True, slots=True)
class Project:
    """A project as described by its `.ideai/project.json` plus where it lives.

    Attributes:
        id: The committed project id (never rewritten, D23).
        name: Display name.
        root: Absolute path of the project folder (normalized).
        remote: Where the folder is.
        created_at_ms: Creation time, epoch milliseconds.
        extra: Keys of `project.json` this version does not know, written back unchanged.
    """

    id: str
    name: str
    root: str
    remote: Remote = LOCAL
    created_at_ms: int = 0
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)

    def __post_init__(self) -> None:
        # Frozen: the normalized root is set through object.__setattr__ (validation only).
        object.__setattr__(self, "root", normalize_root(self.root))


@dataclass(frozen=True, slots=True)
class RegisteredProject:
    """An entry of the global registry of known projects (keyed by root, D23).

    Attributes:
        root: Absolute path of the project folder (normalized); the key.
        id: The project's id, as read from its `project.json` when registered.
        name: Display name.
        added_at_ms: When it was first registered, epoch milliseconds.
        last_opened_at_ms: When it was last opened, epoch milliseconds.
        extra: Keys this version does not know, written back unchanged.
    """

    root: str
    id: str
    name: str
    added_at_ms: int
    last_opened_at_ms: int
    extra: Mapping[str, Any] = field(default=EMPTY_EXTRA, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", normalize_root(self.root))
