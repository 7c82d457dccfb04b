"""Fakes of the daemon's ports (`idea_daemon.ports`) that record what was asked of them.

No shell, no PTY device, no JSON file: the daemon's services run on these in the unit tests
of `tests/daemon_unit/`, in milliseconds. A `FakePty` still has a real file descriptor (a
pipe) so that the daemon's loop can watch it exactly as it watches a PTY; `output()` is what
the program prints, `exit()` ends it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from adapters.store.background_store import BackgroundRecord
from core.agents.profile import AgentProfile
from core.errors import StoreError
from core.layout.model import Layout, LayoutKind, LayoutSet, LayoutTree, Leaf
from core.project import Project, RegisteredProject
from core.session_limits import LimitQuery, LimitSignal
from core.workspace import Workspace
from idea_daemon.ports import SpawnFailed

# ─── PTYs ──────────────────────────────────────────────────────────────────────────────


class FakePty:
    """A program that runs nowhere: what is written to it and how it was sized is kept."""

    _next_pid = 40_000

    def __init__(self, argv: Sequence[str], cwd: str, env: Mapping[str, str],
                 cols: int, rows: int) -> None:
        self.argv = list(argv)
        self.cwd_path = cwd
        self.env = dict(env)
        self.size = (cols, rows)
        self.sizes: list[tuple[int, int]] = [(cols, rows)]
        self.nice = 0
        self.written = bytearray()
        self.signals: list[str] = []
        self.foreground: str | None = None
        self.exit_code: int | None = None
        self.closed = False
        self.foreground_reads = 0
        FakePty._next_pid += 1
        self._pid = FakePty._next_pid
        self._read_fd, self._write_fd = os.pipe()
        os.set_blocking(self._read_fd, False)

    # --- what the test does -------------------------------------------------------------

    def output(self, data: bytes) -> None:
        """The program prints `data` (the loop sees its fd readable)."""
        os.write(self._write_fd, data)

    def exit(self, code: int = 0) -> None:
        """The program ends: its output ends too (EOF), and it is reapable."""
        self.exit_code = code
        if self._write_fd >= 0:
            os.close(self._write_fd)
            self._write_fd = -1

    # --- the Pty port -------------------------------------------------------------------

    @property
    def fd(self) -> int:
        return self._read_fd

    @property
    def pid(self) -> int:
        return self._pid

    def read(self, size: int = 16384) -> bytes | None:
        try:
            return os.read(self._read_fd, size)
        except BlockingIOError:
            return None

    def write(self, data: bytes) -> int:
        self.written += data
        return len(data)

    def resize(self, cols: int, rows: int) -> None:
        self.size = (cols, rows)
        self.sizes.append((cols, rows))

    def poll(self) -> int | None:
        return self.exit_code

    def terminate(self) -> None:
        self.signals.append("HUP")
        self.exit(-1)

    def kill(self) -> None:
        self.signals.append("KILL")
        self.exit(-9)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                os.close(self._read_fd)
            if self._write_fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(self._write_fd)
                self._write_fd = -1

    def cwd(self) -> str | None:
        return self.cwd_path

    def foreground_command(self) -> str | None:
        self.foreground_reads += 1  # each is a /proc read on a real PTY
        return self.foreground

    def command_name(self) -> str:
        return Path(self.argv[0]).name if self.argv else "?"


@dataclass
class FakeSpawner:
    """Starts `FakePty`s and keeps every one, in order; `missing` programs fail to start."""

    spawned: list[FakePty] = field(default_factory=list)
    missing: set[str] = field(default_factory=set)

    def __call__(self, argv: Sequence[str], *, cwd: str, env: Mapping[str, str],
                 cols: int, rows: int, nice: int = 0) -> FakePty:
        if argv and argv[0] in self.missing:
            raise SpawnFailed(f"command not found: {argv[0]} (check PATH or the profile)")
        pty = FakePty(argv, cwd, env, cols, rows)
        pty.nice = nice
        self.spawned.append(pty)
        return pty

    def live(self) -> list[FakePty]:
        return [pty for pty in self.spawned if not pty.closed]

    def close_all(self) -> None:
        for pty in self.spawned:
            pty.close()


# ─── time and ids ──────────────────────────────────────────────────────────────────────


@dataclass
class FakeClock:
    """Time that moves only when the test says so."""

    seconds: float = 1000.0

    def monotonic(self) -> float:
        return self.seconds

    def now_ms(self) -> int:
        return int(self.seconds * 1000)

    def advance(self, seconds: float) -> None:
        self.seconds += seconds


class SequentialIds:
    """Readable ids in order ("id-0001", ...), so tests can name what they expect."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> str:
        self.count += 1
        return f"id-{self.count:04d}"


# ─── stores ────────────────────────────────────────────────────────────────────────────


class FakeLayoutStore:
    """layouts.json of every project, in memory; `saves` lists each write."""

    def __init__(self, new_id: SequentialIds) -> None:
        self._new_id = new_id
        self.files: dict[str, LayoutSet] = {}
        self.saves: list[tuple[str, LayoutSet]] = []
        self.broken: dict[str, str] = {}
        """Roots whose file cannot be read (the error's message)."""
        self.fail_saves = False

    def path(self, project_root: Path) -> Path:
        return project_root / ".ideai" / "layouts.json"

    def load(self, project_root: Path) -> LayoutSet:
        root = str(project_root)
        if root in self.broken:
            raise StoreError(f"{root}/.ideai/layouts.json", self.broken[root])
        if root not in self.files:
            layout = Layout(self._new_id(), "Default", LayoutKind.TERMINAL,
                            LayoutTree(Leaf(self._new_id())))
            return LayoutSet(layout.id, (layout,))
        return self.files[root]

    def save(self, project_root: Path, layouts: LayoutSet) -> None:
        if self.fail_saves:
            path = f"{project_root}/.ideai/layouts.json"
            raise StoreError(path, f"cannot write {path}: disk full")
        self.files[str(project_root)] = layouts
        self.saves.append((str(project_root), layouts))

    def saves_of(self, root: str | Path) -> list[LayoutSet]:
        return [layouts for saved_root, layouts in self.saves if saved_root == str(root)]


class FakeBackgroundStore:
    """`.ideai/run/background.json` of every project, in memory (`BackgroundStorePort`);
    `saves` lists each write, `fail_saves` makes them fail as a full disk does."""

    def __init__(self) -> None:
        self.files: dict[str, dict[str, BackgroundRecord]] = {}
        self.saves: list[tuple[str, dict[str, BackgroundRecord]]] = []
        self.fail_saves = False

    def path(self, project_root: Path) -> Path:
        return project_root / ".ideai" / "run" / "background.json"

    def load(self, project_root: Path) -> dict[str, BackgroundRecord]:
        return dict(self.files.get(str(project_root), {}))

    def save(self, project_root: Path, records: dict[str, BackgroundRecord]) -> None:
        if self.fail_saves:
            path = self.path(project_root)
            raise StoreError(str(path), f"cannot write {path}: disk full")
        self.files[str(project_root)] = dict(records)
        self.saves.append((str(project_root), dict(records)))


class FakeProjectStore:
    def __init__(self) -> None:
        self.files: dict[str, Project] = {}
        self.gitignored: list[str] = []

    def path(self, project_root: Path) -> Path:
        return project_root / ".ideai" / "project.json"

    def load(self, project_root: Path) -> Project | None:
        return self.files.get(str(project_root))

    def save(self, project: Project) -> None:
        self.files[project.root] = project

    def ensure_gitignore(self, project_root: Path) -> bool:
        self.gitignored.append(str(project_root))
        return True


class FakeRegistry:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, RegisteredProject] = {}
        self.touched: list[str] = []

    def list_projects(self) -> list[RegisteredProject]:
        return list(self.entries.values())

    def get(self, root: str) -> RegisteredProject | None:
        return self.entries.get(root)

    def add(self, root: str, project_id: str, name: str) -> RegisteredProject:
        entry = RegisteredProject(root=root, id=project_id, name=name, added_at_ms=0,
                                  last_opened_at_ms=0)
        self.entries[root] = entry
        return entry

    def touch(self, root: str) -> RegisteredProject:
        self.touched.append(root)
        return self.entries[root]


class FakeWorkspaceStore:
    def __init__(self, path: Path, workspace: Workspace | None = None) -> None:
        self.path = path
        self.current = workspace or Workspace()
        self.saves: list[Workspace] = []
        self.broken: str | None = None

    def load(self) -> Workspace:
        if self.broken is not None:
            raise StoreError("workspace.json", self.broken)
        return self.current

    def save(self, workspace: Workspace) -> None:
        self.current = workspace
        self.saves.append(workspace)


# ─── session limits ────────────────────────────────────────────────────────────────────


@dataclass
class FakeLimitReader:
    """A level-1 limit source (`core.session_limits.LimitReader`) answering `signal`, for
    the profiles whose id is in `profile_ids` (all when empty); `queries` lists each read;
    `went_on_at` is what `went_on` answers (the CLI answered again after its limit)."""

    signal: LimitSignal | None = None
    went_on_at: datetime | None = None
    profile_ids: tuple[str, ...] = ()
    name: str = "fake-reader"
    queries: list[LimitQuery] = field(default_factory=list)

    def applies(self, profile: AgentProfile) -> bool:
        return not self.profile_ids or profile.id in self.profile_ids

    def read(self, query: LimitQuery) -> LimitSignal | None:
        self.queries.append(query)
        if self.signal is None or (
            self.signal.observed_at is not None and self.signal.observed_at < query.since
        ):
            return None
        return self.signal

    def went_on(self, query: LimitQuery) -> datetime | None:
        self.queries.append(query)
        if self.went_on_at is None or self.went_on_at < query.since:
            return None
        return self.went_on_at
