"""Project, window and page operations: open, close and switch projects, windows and
pages, and start the workspace (restore) and stop it."""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import replace
from pathlib import Path

from core import workspace as ws
from core.errors import IdeaError
from core.layout.model import Layout, LayoutKind, LayoutTree, Leaf, iter_leaves
from core.project import Project, normalize_root
from idea_daemon.cell_programs import CellPrograms
from idea_daemon.errors import CommandError, ConfirmationNeeded
from idea_daemon.lookups import DEFAULT_WINDOW, Listener, Lookups
from idea_daemon.persistence import Persistence
from idea_daemon.ports import WorkspacePorts
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.workspace_model import WorkspaceHooks, WorkspaceModel

log = logging.getLogger(__name__)


class ProjectOps:
    """Projects, windows and pages; also the workspace's start and stop."""

    def __init__(
        self,
        model: WorkspaceModel,
        hooks: WorkspaceHooks,
        lookups: Lookups,
        persistence: Persistence,
        programs: CellPrograms,
        ports: WorkspacePorts,
        listener: Listener,
    ) -> None:
        self.model = model
        self.hooks = hooks
        self.lookups = lookups
        self.persistence = persistence
        self.programs = programs
        self.listener = listener
        self.registry = ports.registry
        self.project_store = ports.projects
        self.clock = ports.clock
        self._new_id = ports.new_id
        self._kept_notices: dict[str, str] = {}
        """The start-up problem told for each kept tab, withdrawn when it opens again."""

    def new_project(self, path: str, name: str | None, window_id: str | None) -> ProjectRuntime:
        """Create (or adopt, D23) a project at an absolute path and open it."""
        root = self._checked_root(path)
        registered = self.registry.get(root)
        if registered is not None:
            raise CommandError(
                f"{root} is already a registered project ({registered.name}): "
                f"open it with `idea open {root}`",
                "exists",
            )
        existing = self.project_store.load(Path(root))
        if existing is None:
            project = Project(
                id=self._new_id(),
                name=name or Path(root).name or root,
                root=root,
                created_at_ms=self.clock.now_ms(),
            )
            self.project_store.save(project)
        else:
            project = existing
        self.project_store.ensure_gitignore(Path(root))
        self.registry.add(root, project.id, project.name)
        return self.open_project(root, window_id)

    def _checked_root(self, path: str) -> str:
        if not os.path.isabs(path):
            raise CommandError(f"the project path must be absolute, got {path!r}")
        root = normalize_root(path)
        if not os.path.isdir(root):
            raise CommandError(f"no such directory: {root}", "not_found")
        return root

    def open_project(self, path: str, window_id: str | None) -> ProjectRuntime:
        """Open a registered project, or an unregistered folder that has `.ideai/project.json`."""
        root = self._checked_root(path)
        if root not in self.model.projects and (reason := _unreachable(root)) is not None:
            raise CommandError(f"cannot open {root}: {reason}", "unavailable")
        if root in self.model.projects:
            runtime = self.model.projects[root]
            self.model.workspace = ws.activate(self.model.workspace, root)
            self.persistence.save_workspace()
            self.listener.scene_changed(None)
            return runtime
        registered = self.registry.get(root)
        if registered is None:
            found = self.project_store.load(Path(root))
            if found is None:
                raise CommandError(
                    f"{root} is not an idea project yet: create it with `idea new {root}`",
                    "not_found",
                )
            self.registry.add(root, found.id, found.name)
        runtime = self.persistence.load_project(root)
        # A kept tab opens again as any project does (no longer kept, nor told as missing).
        self.model.unavailable.pop(root, None)
        self._withdraw_notice(root)
        window = self.lookups.window_or_default(window_id) or self.default_window()
        self.model.workspace = ws.add_project(self.model.workspace, window.id, root)
        self.persistence.save_workspace()
        try:
            self.registry.touch(root)
        except IdeaError as exc:
            self.persistence.store_failed("projects", runtime, exc)
        self.programs.sync_all_pages(runtime)
        for handler in self.hooks.open_handlers:
            handler(runtime)
        for problem in runtime.problems:
            self.listener.notify(window.id, problem, "error")
        self.listener.scene_changed(None)
        return runtime

    def close_project(self, name: str, force: bool) -> ProjectRuntime:
        runtime = self.lookups.runtime_of(name)
        busy = self.programs.busy_in(self.programs.project_sessions(runtime))
        if busy and not force:
            raise ConfirmationNeeded(f"closing {runtime.name} ends: {', '.join(busy)}")
        window = self.lookups.window_of_project(runtime)
        for session in self.programs.project_sessions(runtime):
            self.programs.end_session(session)
        self.persistence.save_layouts(runtime)
        self.persistence.layout_saver.flush(runtime.root)  # written now: the project is going away
        del self.model.projects[runtime.root]
        if window is not None:
            self.model.workspace = ws.close_project(self.model.workspace, runtime.root)
            remaining = self.model.workspace.window(window.id)
            if not remaining.tabs and len(self.model.workspace.windows) > 1:
                # A window closes with its last tab; its clients move to another window.
                self.model.workspace = ws.close_window(self.model.workspace, window.id)
                self.model.window_sizes.pop(window.id, None)
            self.persistence.save_workspace()
        self.listener.scene_changed(None)
        return runtime

    def switch_project(self, window_id: str | None, which: str) -> ProjectRuntime:
        window = self.lookups.window_or_default(window_id)
        if window is None or not window.tabs:
            raise CommandError("no project is open", "no_project")
        if which in ("next", "prev"):
            position = window.tabs.index(window.active) if window.active in window.tabs else 0
            step = 1 if which == "next" else -1
            root = window.tabs[(position + step) % len(window.tabs)]
        elif which.isdigit() and 0 <= int(which) < len(window.tabs):
            root = window.tabs[int(which)]
        else:
            root = self.lookups.runtime_of(which).root
        runtime = self.model.projects[root]
        holder = self.model.workspace.window_of(root)
        self.model.workspace = ws.activate(self.model.workspace, root)
        self.persistence.save_workspace()
        if holder is not None and holder.id != window.id:
            self.listener.notify(window.id, f"{runtime.name} is in window {holder.name}")
        self.listener.scene_changed(None)
        return runtime

    def new_window(self, name: str, project: str | None) -> ws.Window:
        window_id = self._new_id()
        if project is not None:
            runtime = self.lookups.runtime_of(project)
            self.model.workspace = ws.move_project_to_new_window(
                self.model.workspace, runtime.root, window_id, name
            )
        else:
            self.model.workspace = ws.add_window(self.model.workspace, window_id, name)
        self.persistence.save_workspace()
        self._after_window_change()
        return self.model.workspace.window(window_id)

    def rename_window(self, window: str, name: str) -> ws.Window:
        target = self.lookups.window_by_name(window)
        self.model.workspace = ws.rename_window(self.model.workspace, target.id, name)
        self.persistence.save_workspace()
        self.listener.scene_changed(None)
        return self.model.workspace.window(target.id)

    def move_project(self, project: str, window: str) -> ws.Window:
        runtime = self.lookups.runtime_of(project)
        target = self.lookups.window_by_name(window)
        self.model.workspace = ws.move_project(self.model.workspace, runtime.root, target.id)
        self.persistence.save_workspace()
        self._after_window_change()
        return self.model.workspace.window(target.id)

    def _after_window_change(self) -> None:
        for runtime in self.model.projects.values():
            self.programs.resize_project(runtime)
        self.listener.scene_changed(None)

    def set_window_size(self, window_id: str, width: int, height: int) -> None:
        size = (max(1, width), max(1, height))
        if self.model.window_sizes.get(window_id) == size:
            return
        self.model.window_sizes[window_id] = size
        # Remembered in workspace.json (written once the resizing settles), so that a
        # restarted daemon starts programs at the size they will be shown at.
        self.model.workspace = ws.resize_window(self.model.workspace, window_id, *size)
        self.persistence.save_workspace_soon()
        for root in self.model.workspace.window(window_id).tabs:
            runtime = self.model.projects.get(root)
            if runtime is not None:
                self.programs.resize_project(runtime)
        self.listener.scene_changed(window_id)

    def new_page(
        self, runtime: ProjectRuntime, name: str | None, kind: LayoutKind = LayoutKind.TERMINAL
    ) -> Layout:
        taken = {lay.name for lay in runtime.layouts.layouts}
        if kind is LayoutKind.GIT_GRAPH:
            # One graph page per project is enough: asking again shows it.
            existing = next(
                (lay for lay in runtime.layouts.layouts if lay.kind is LayoutKind.GIT_GRAPH), None
            )
            if existing is not None and name is None:
                return self.switch_page(runtime, existing.name)
            name = name or "Git Graph"
        if name is None:
            number = len(runtime.layouts.layouts) + 1
            while f"Page {number}" in taken:
                number += 1
            name = f"Page {number}"
        elif name in taken:
            raise CommandError(f"project {runtime.name} already has a page named {name!r}")
        layout = Layout(self._new_id(), name, kind, LayoutTree(Leaf(self._new_id())))
        runtime.layouts = replace(
            runtime.layouts, layouts=(*runtime.layouts.layouts, layout), active_id=layout.id
        )
        self.programs.sync_page(runtime, layout.id, cwd=runtime.root)
        self.persistence.save_layouts(runtime)
        self.listener.scene_changed(None)
        return layout

    def switch_page(self, runtime: ProjectRuntime, which: str) -> Layout:
        layouts = runtime.layouts.layouts
        if which in ("next", "prev"):
            position = next(i for i, lay in enumerate(layouts) if lay.id == runtime.active.id)
            layout = layouts[(position + (1 if which == "next" else -1)) % len(layouts)]
        elif which.isdigit() and 0 <= int(which) < len(layouts):
            layout = layouts[int(which)]
        else:
            layout = self.lookups.find_page(runtime, which)
        runtime.layouts = replace(runtime.layouts, active_id=layout.id)
        self.persistence.save_layouts(runtime)
        self.listener.scene_changed(None)
        return layout

    def rename_page(self, runtime: ProjectRuntime, page: str | None, name: str) -> Layout:
        layout = self.lookups.find_page(runtime, page) if page else runtime.active
        if any(lay.name == name and lay.id != layout.id for lay in runtime.layouts.layouts):
            raise CommandError(f"project {runtime.name} already has a page named {name!r}")
        renamed = replace(layout, name=name)
        runtime.layouts = replace(
            runtime.layouts,
            layouts=tuple(
                renamed if lay.id == layout.id else lay for lay in runtime.layouts.layouts
            ),
        )
        self.persistence.save_layouts(runtime)
        self.listener.scene_changed(None)
        return renamed

    def close_page(self, runtime: ProjectRuntime, page: str | None, force: bool) -> Layout:
        layout = self.lookups.find_page(runtime, page) if page else runtime.active
        if len(runtime.layouts.layouts) == 1:
            raise CommandError("a project keeps at least one page: close the project instead")
        sessions = [
            s
            for leaf in iter_leaves(layout.tree.root)
            if leaf.session and (s := self.model.sessions.get(leaf.session)) is not None
        ]
        busy = self.programs.busy_in(sessions)
        if busy and not force:
            raise ConfirmationNeeded(f"closing page {layout.name} ends: {', '.join(busy)}")
        for session in sessions:
            self.programs.end_session(session)
        remaining = tuple(lay for lay in runtime.layouts.layouts if lay.id != layout.id)
        active = runtime.layouts.active_id
        if active == layout.id:
            active = remaining[0].id
        runtime.layouts = replace(runtime.layouts, layouts=remaining, active_id=active)
        runtime.pages.pop(layout.id, None)
        self.persistence.save_layouts(runtime)
        self.listener.scene_changed(None)
        return layout

    def default_window(self) -> ws.Window:
        """The window a new project goes to when none is named: the first, made if needed."""
        if not self.model.workspace.windows:
            window_id = self._new_id()
            self.model.workspace = ws.add_window(self.model.workspace, window_id, DEFAULT_WINDOW)
            self.persistence.save_workspace()
        return self.model.workspace.windows[0]

    def restore(self, loop: asyncio.AbstractEventLoop) -> None:
        """Reopen the windows and projects of the last run (shells start anew)."""
        self.programs.bind_loop(loop)
        self.persistence.bind_loop(loop)
        self.persistence.load_workspace()
        for window in self.model.workspace.windows:
            for position, root in enumerate(window.tabs):
                reason = _unreachable(root)
                if reason is None:
                    try:
                        self.persistence.load_project(root)
                    except (IdeaError, OSError) as exc:
                        reason = exc.message if isinstance(exc, IdeaError) else str(exc)
                if reason is not None:
                    self._keep_unavailable(ws.KeptTab(root, window.id, window.name, position,
                                                      reason))
        # Tabs whose project could not be reopened are not shown, but `workspace.json` keeps
        # them (Persistence.save_workspace) so they come back with their folder.
        for root in self.model.unavailable:
            self.model.workspace = ws.close_project(self.model.workspace, root)
        for runtime in self.model.projects.values():
            self.programs.sync_all_pages(runtime)
            for handler in self.hooks.open_handlers:
                handler(runtime)

    def kept_tabs(self, window_id: str) -> list[tuple[ws.KeptTab, str]]:
        """The tabs of `window_id` kept for projects that cannot be opened now, in their
        saved order, each with the project's name."""
        kept = [tab for tab in self.model.unavailable.values() if tab.window_id == window_id]
        return [(tab, self._name_of(tab.root)) for tab in sorted(kept, key=lambda t: t.position)]

    def kept_root(self, name: str) -> str | None:
        """The root of the one kept (unavailable) tab named so (by root or name), if any."""
        if name.startswith("/"):
            root = normalize_root(name)
            return root if root in self.model.unavailable else None
        named = [root for root in self.model.unavailable if self._name_of(root) == name]
        return named[0] if len(named) == 1 else None

    def forget_kept(self, root: str) -> None:
        """Close a kept tab: the user no longer wants it back (`idea project close`)."""
        self.model.unavailable.pop(root, None)
        self._withdraw_notice(root)
        self.persistence.save_workspace()

    def _withdraw_notice(self, root: str) -> None:
        notice = self._kept_notices.pop(root, None)
        if notice in self.model.problems:
            self.model.problems.remove(notice)

    def _name_of(self, root: str) -> str:
        registered = self.registry.get(root)
        return registered.name if registered is not None else Path(root).name

    def _keep_unavailable(self, tab: ws.KeptTab) -> None:
        self.model.unavailable[tab.root] = tab
        self.model.projects.pop(tab.root, None)
        message = (f"project {self._name_of(tab.root)} is unavailable: {tab.reason}; its tab "
                   f"is kept and comes back when the folder does (next start, or "
                   f"`idea open {tab.root}`; `idea project close {tab.root}` forgets it)")
        self.model.problems.append(message)
        self._kept_notices[tab.root] = message
        log.error("reopen %s: %s", tab.root, tab.reason)

    def shutdown(self) -> None:
        # Programs end because the daemon stops, not by themselves: what the layouts say
        # was running must stay recorded, so the next daemon can offer to resume it.
        self.model.stopping = True
        self.persistence.flush_saves()
        self.persistence.layout_saver.close()
        for session in list(self.model.sessions.values()):
            session.close()
        self.model.sessions.clear()


def _unreachable(root: str) -> str | None:
    """Why a saved project's folder cannot be used now (missing, not a folder, not
    readable: an unmounted disk, a renamed folder), or None when it can."""
    if not os.path.exists(root):
        return f"{root} is missing"
    if not os.path.isdir(root):
        return f"{root} is not a folder"
    if not os.access(root, os.R_OK | os.X_OK):
        return f"{root} cannot be read"
    ideai = os.path.join(root, ".ideai")
    if os.path.lexists(ideai) and not os.path.isdir(ideai):
        # Nothing of the project can be read or saved there; opening it with defaults would
        # only fail at every save. Left as it is, for the user to look at.
        return f"{ideai} is not a folder"
    return None
