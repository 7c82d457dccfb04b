"""The workspace service: the collaborators every workspace action goes through.

Built by the composition root (`idea_daemon.bootstrap`), each with one job:

- `model` (`WorkspaceModel`): the state, plain data;
- `lookups` (`Lookups`): finding projects, windows, pages and cells, page geometry;
- `persistence` (`Persistence`): reading and writing the workspace's files;
- `programs` (`CellPrograms`): the programs in cells, made to match the layouts;
- `project_ops` (`ProjectOps`): projects, windows, pages, start and stop;
- `cells` (`CellOps`): what a user does to cells.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from core import workspace as ws
from idea_daemon.cell_ops import CellOps
from idea_daemon.cell_programs import CellPrograms
from idea_daemon.errors import CommandError, ConfirmationNeeded
from idea_daemon.lookups import CellRef, Listener, Lookups
from idea_daemon.persistence import Persistence
from idea_daemon.ports import Clock, ProjectStorePort, RegistryPort, WorkspacePorts
from idea_daemon.project_ops import ProjectOps
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.session import TerminalSession
from idea_daemon.workspace_model import WorkspaceHooks, WorkspaceModel

__all__ = ["CellRef", "CommandError", "ConfirmationNeeded", "Listener", "WorkspaceService"]


class WorkspaceService:
    def __init__(
        self,
        ports: WorkspacePorts,
        *,
        socket_path: str,
        base_env: Mapping[str, str],
        listener: Listener,
        extra_env_names: tuple[str, ...] = (),
    ) -> None:
        self.model = WorkspaceModel()
        self.emulator_name = "pyte"
        """The emulator backend of the cells (set by the composition root, shown by `ls`)."""
        self.hooks = WorkspaceHooks()
        self.lookups = Lookups(self.model)
        self.persistence = Persistence(self.model, self.lookups, ports, listener)
        self.programs = CellPrograms(
            self.model, self.hooks, self.lookups, self.persistence, ports, listener,
            socket_path=socket_path, base_env=base_env, extra_env_names=extra_env_names,
        )
        self.project_ops = ProjectOps(self.model, self.hooks, self.lookups, self.persistence,
                                      self.programs, ports, listener)
        self.cells = CellOps(self.model, self.lookups, self.persistence, self.programs,
                             self.project_ops, listener, ports.new_id)
        self.registry: RegistryPort = ports.registry
        self.project_store: ProjectStorePort = ports.projects
        self.clock: Clock = ports.clock
        """The daemon's one clock: sessions date their output on it, and so do the services
        that compare their own times with a session's (delegation tickets)."""

    # ─── the state most callers read ─────────────────────────────────────────────────

    @property
    def workspace(self) -> ws.Workspace:
        return self.model.workspace

    @property
    def projects(self) -> dict[str, ProjectRuntime]:
        return self.model.projects

    @property
    def sessions(self) -> dict[str, TerminalSession]:
        return self.model.sessions

    @property
    def problems(self) -> list[str]:
        return self.model.problems

    # ─── lifecycle ───────────────────────────────────────────────────────────────────

    def restore(self, loop: asyncio.AbstractEventLoop) -> None:
        """Reopen the windows and projects of the last run (shells start anew)."""
        self.project_ops.restore(loop)

    def shutdown(self) -> None:
        self.project_ops.shutdown()
