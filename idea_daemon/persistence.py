"""Reading and writing the workspace's files: `workspace.json`, the registry, each open
project's `project.json` and `layouts.json` (through the store ports).

A file that cannot be read is never overwritten: the project runs on defaults in memory
(DECISIONS D12); a failed save is told to the clients once, until saving works again.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from pathlib import Path

from adapters.store.layouts_codec import default_layouts
from core import workspace as ws
from core.errors import CorruptFile, IdeaError, NewerVersion, StoreError
from core.layout import ops
from core.project import Project
from idea_daemon.layout_saver import LayoutSaver
from idea_daemon.lookups import Listener, Lookups
from idea_daemon.ports import WorkspacePorts
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.runtime_files import check_idea_file, recover
from idea_daemon.workspace_model import WorkspaceModel

log = logging.getLogger(__name__)


class Persistence:
    """The workspace's files, read at start and written after each change."""

    def __init__(self, model: WorkspaceModel, lookups: Lookups, ports: WorkspacePorts,
                 listener: Listener) -> None:
        self.model = model
        self.lookups = lookups
        self.listener = listener
        self.layout_store = ports.layouts
        self.project_store = ports.projects
        self.registry = ports.registry
        self.workspace_store = ports.workspace
        self._new_id: Callable[[], str] = ports.new_id
        self._loop: asyncio.AbstractEventLoop | None = None
        self._workspace_save: asyncio.TimerHandle | None = None
        self._failing_stores: set[str] = set()
        self.layout_saver = LayoutSaver(self.layout_store, self._layouts_not_saved)

    def bind_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """The loop delayed saves are scheduled on (none before the daemon serves)."""
        self._loop = loop
        self.layout_saver.bind(loop)

    def load_workspace(self) -> None:
        """Read the registry and `workspace.json` at start; a damaged one is set aside."""
        registry_problem = check_idea_file(
            self.registry.list_projects, self.registry.path, "the list of projects starts empty")
        if registry_problem is not None:
            self.model.problems.append(registry_problem)
        try:
            self.model.workspace = self.workspace_store.load()
            self.model.window_sizes.update(
                {w.id: w.size for w in self.model.workspace.windows if w.size is not None}
            )
        except StoreError as exc:
            message, fresh = recover(exc, self.workspace_store.path, "windows start empty")
            # Set aside, the file no longer stands in the way; else it is never rewritten.
            self.model.workspace_writable = fresh
            self.model.problems.append(message)

    def flush_saves(self) -> None:
        """Write every pending save now (before a detach is answered, say)."""
        self.layout_saver.flush()
        if self._workspace_save is not None:
            self._workspace_save.cancel()
            self._workspace_save = None
            self.save_workspace()

    def _layouts_not_saved(self, runtime: ProjectRuntime, exc: StoreError) -> None:
        log.error("saving layouts of %s: %s", runtime.root, exc.message)
        window = self.lookups.window_of_project(runtime)
        self.listener.notify(window.id if window else None, exc.message, "error")

    def load_project(self, root: str) -> ProjectRuntime:
        problems: list[str] = []
        project_writable = True
        try:
            project = self.project_store.load(Path(root))
        except StoreError as exc:
            problems.append(f"{exc.message} (left untouched; using defaults in memory)")
            project, project_writable = None, False
        if project is None:
            registered = self.registry.get(root) if project_writable else None
            project = Project(
                id=registered.id if registered else str(uuid.uuid5(uuid.NAMESPACE_URL, root)),
                name=registered.name if registered else Path(root).name,
                root=root,
            )
        layouts_writable = True
        try:
            layouts = self.layout_store.load(Path(root))
            ops.validate(layouts.active.tree)
            for layout in layouts.layouts:
                ops.validate(layout.tree)
        except (StoreError, IdeaError) as exc:
            problems.append(f"{exc.message} (left untouched; a default layout is used in memory)")
            layouts, layouts_writable = default_layouts(self._new_id), False
        saved = layouts if layouts_writable and self.layout_store.path(Path(root)).exists() \
            else None
        layouts = ops.reconcile_duplicate_agents(layouts)
        runtime = ProjectRuntime(project, layouts, layouts_writable, project_writable, problems)
        runtime.saved_layouts = saved
        self.model.projects[root] = runtime
        return runtime

    def save_layouts(self, runtime: ProjectRuntime) -> None:
        """Write `layouts.json` once the current burst of edits is over (`LayoutSaver`)."""
        self.layout_saver.request(runtime)

    def save_workspace_soon(self, delay: float = 1.0) -> None:
        """Save workspace.json once changes stop coming (a terminal being resized)."""
        if self._loop is None:
            self.save_workspace()
            return
        if self._workspace_save is not None:
            self._workspace_save.cancel()
        self._workspace_save = self._loop.call_later(delay, self.save_workspace)

    def save_workspace(self) -> None:
        if not self.model.workspace_writable:
            return
        try:
            # Tabs that could not be reopened are saved too: a missing folder loses nothing.
            self.workspace_store.save(
                ws.with_kept_tabs(self.model.workspace, self.model.unavailable.values()))
        except StoreError as exc:
            # A file that turned unreadable meanwhile is never overwritten: stop trying.
            # Other failures (disk full, permissions) are retried on the next change.
            if isinstance(exc, CorruptFile | NewerVersion):
                self.model.workspace_writable = False
            self.store_failed("workspace", None, exc)
        else:
            self._failing_stores.discard("workspace")

    def store_failed(self, store: str, runtime: ProjectRuntime | None, exc: IdeaError) -> None:
        """A save failed: log it, and tell the clients once until a save works again."""
        log.error("saving %s: %s", store, exc.message)
        if store in self._failing_stores:
            return
        self._failing_stores.add(store)
        window = self.lookups.window_of_project(runtime) if runtime is not None else None
        self.listener.notify(window.id if window else None, f"not saved: {exc.message}",
                              "error")

    def store_saved(self, store: str) -> None:
        """A save worked: its next failure is told again."""
        self._failing_stores.discard(store)

    def notify_problem(self, runtime: ProjectRuntime, message: str) -> None:
        """Tell the clients showing a project about a problem with one of its files."""
        window = self.lookups.window_of_project(runtime)
        self.listener.notify(window.id if window else None, message, "error")
