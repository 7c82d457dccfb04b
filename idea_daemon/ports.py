"""The daemon's ports: what its services need from the outside world, as Protocols.

The composition root (`idea_daemon.bootstrap`) passes real adapters (PTYs from
`adapters.pty`, JSON stores from `adapters.store`, the system clock); unit tests pass the
recording fakes of `tests/fakes.py`, so the services run without shells or files.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from core.layout.model import LayoutSet
from core.project import Project, RegisteredProject
from core.terminal import TerminalEmulator
from core.workspace import Workspace


class SpawnFailed(Exception):
    """A program could not be started on a PTY (the message is for the user)."""


class Pty(Protocol):
    """One program on one pseudo-terminal (`adapters.pty.PtyProcess`)."""

    @property
    def fd(self) -> int:
        """The master side, non-blocking, watched by the loop with `add_reader`."""

    @property
    def pid(self) -> int: ...

    def read(self, size: int = 16384) -> bytes | None:
        """What is available; `None`: nothing now, `b""`: the end."""

    def write(self, data: bytes) -> int:
        """Write without blocking; how many bytes were taken."""

    def resize(self, cols: int, rows: int) -> None: ...

    def poll(self) -> int | None: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...

    def close(self) -> None: ...

    def cwd(self) -> str | None: ...

    def foreground_command(self) -> str | None: ...

    def command_name(self) -> str: ...


class PtySpawner(Protocol):
    def __call__(
        self, argv: Sequence[str], *, cwd: str, env: Mapping[str, str], cols: int, rows: int,
        nice: int = 0,
    ) -> Pty:
        """Start `argv` on a new PTY, `nice` steps below the daemon's CPU priority; raises
        `SpawnFailed`."""


EmulatorFactory = Callable[[int, int], TerminalEmulator]


class Clock(Protocol):
    def monotonic(self) -> float:
        """Seconds for intervals (activity, silence, frame pacing)."""

    def now_ms(self) -> int:
        """Wall-clock milliseconds, for what is written down (a project's creation)."""


class LayoutStorePort(Protocol):
    def path(self, project_root: Path) -> Path:
        """Where a project's `layouts.json` is."""

    def load(self, project_root: Path) -> LayoutSet: ...

    def save(self, project_root: Path, layouts: LayoutSet) -> None: ...


class ProjectStorePort(Protocol):
    def path(self, project_root: Path) -> Path:
        """Where a project's `project.json` is."""

    def load(self, project_root: Path) -> Project | None: ...

    def save(self, project: Project) -> None: ...

    def ensure_gitignore(self, project_root: Path) -> bool: ...


class RegistryPort(Protocol):
    path: Path
    """The registry's file (set aside when damaged)."""

    def list_projects(self) -> list[RegisteredProject]: ...

    def get(self, root: str) -> RegisteredProject | None: ...

    def add(self, root: str, project_id: str, name: str) -> RegisteredProject: ...

    def touch(self, root: str) -> RegisteredProject: ...


class WorkspaceStorePort(Protocol):
    path: Path
    """`workspace.json` (set aside when damaged)."""

    def load(self) -> Workspace: ...

    def save(self, workspace: Workspace) -> None: ...


@dataclass(frozen=True, slots=True)
class WorkspacePorts:
    """Everything the workspace service is given instead of building it."""

    layouts: LayoutStorePort
    projects: ProjectStorePort
    registry: RegistryPort
    workspace: WorkspaceStorePort
    spawn: PtySpawner
    emulators: EmulatorFactory
    clock: Clock
    new_id: Callable[[], str]
