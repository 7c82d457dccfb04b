"""Commands on projects, windows and pages, and the `ls` overview."""

from __future__ import annotations

import os
from pathlib import Path

from adapters.ipc import answers_workspace as ws
from adapters.ipc import commands as rpc
from core.layout.model import LayoutKind, iter_leaves
from core.project import normalize_root
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands import _svc, caller_window, describe_cell
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.server import DaemonServer
from idea_daemon.service import CellRef, CommandError, WorkspaceService


def _path(path: str | None) -> str:
    if not path:
        raise CommandError("a project path is required")
    return path


def _project(server: DaemonServer, client: ClientConnection, name: str | None) -> ProjectRuntime:
    """A project by name, id or root; else the one of the cell the command runs in, else
    the caller's window's."""
    service = _svc(server)
    if name:
        return service.lookups.runtime_of(name)
    if client.cell is not None and client.window_id is None:
        try:
            return service.lookups.find_cell(client.cell).runtime
        except CommandError:
            pass
    return service.lookups.active_runtime(caller_window(server, client))


def describe_project(service: WorkspaceService,
                     runtime: ProjectRuntime) -> ws.ProjectDescription:
    window = service.lookups.window_of_project(runtime)
    return ws.ProjectDescription(
        id=runtime.project.id, name=runtime.name, root=runtime.root,
        window=window.name if window else None, open=True,
        pages=[lay.name for lay in runtime.layouts.layouts],
        active_page=runtime.active.name, problems=list(runtime.problems))


# ─── projects ──────────────────────────────────────────────────────────────────────────


def project_new(server: DaemonServer, client: ClientConnection,
                p: rpc.PathParams) -> ws.ProjectDescription:
    service = _svc(server)
    window = _window_param(server, client, p.window)
    runtime = service.project_ops.new_project(_path(p.path), p.name, window)
    return describe_project(service, runtime)


def project_open(server: DaemonServer, client: ClientConnection,
                 p: rpc.PathParams) -> ws.ProjectDescription:
    service = _svc(server)
    window = _window_param(server, client, p.window)
    runtime = service.project_ops.open_project(_path(p.path), window)
    return describe_project(service, runtime)


def project_probe(server: DaemonServer, client: ClientConnection,
                  p: rpc.PathParams) -> ws.ProjectProbe:
    """What is at a folder, for a client choosing between opening and creating a project:
    clients never read a project's files themselves (the daemon may run elsewhere)."""
    service = _svc(server)
    path = _path(p.path)
    if not os.path.isabs(path):
        raise CommandError(f"the project path must be absolute, got {path!r}")
    root = normalize_root(path)
    directory = os.path.isdir(root)
    return ws.ProjectProbe(
        root=root, directory=directory, registered=service.registry.get(root) is not None,
        has_project_file=directory and service.project_store.path(Path(root)).is_file(),
        open=root in service.projects)


def _window_param(server: DaemonServer, client: ClientConnection, name: str | None) -> str | None:
    if name:
        return _svc(server).lookups.window_by_name(name).id
    return caller_window(server, client)


def project_close(server: DaemonServer, client: ClientConnection,
                  p: rpc.ProjectCloseParams) -> ws.ProjectClosed:
    service = _svc(server)
    kept = service.project_ops.kept_root(p.project) if p.project else None
    if kept is not None and kept not in service.projects:
        # A tab kept for a project that could not be reopened: closing it forgets it.
        service.project_ops.forget_kept(kept)
        return ws.ProjectClosed(closed=kept)
    runtime = _project(server, client, p.project)
    service.project_ops.close_project(runtime.root, p.force)
    return ws.ProjectClosed(closed=runtime.root)


def project_switch(server: DaemonServer, client: ClientConnection,
                   p: rpc.ProjectSwitchParams) -> ws.ProjectDescription:
    service = _svc(server)
    runtime = service.project_ops.switch_project(
        caller_window(server, client), p.which
    )
    return describe_project(service, runtime)


def project_list(server: DaemonServer, client: ClientConnection,
                 p: rpc.NoParams) -> list[ws.ProjectDescription]:
    service = _svc(server)
    listed = []
    for entry in service.registry.list_projects():
        runtime = service.projects.get(entry.root)
        if runtime is not None:
            listed.append(describe_project(service, runtime))
        else:
            listed.append(ws.ProjectDescription(id=entry.id, name=entry.name, root=entry.root,
                                                window=None, open=False))
    return listed


def project_move(server: DaemonServer, client: ClientConnection,
                 p: rpc.ProjectMoveParams) -> ws.ProjectMoved:
    service = _svc(server)
    runtime = _project(server, client, p.project)
    window = service.project_ops.move_project(runtime.root, p.window)
    return ws.ProjectMoved(project=runtime.name, window=window.name)


# ─── windows ───────────────────────────────────────────────────────────────────────────


def window_new(server: DaemonServer, client: ClientConnection,
               p: rpc.WindowNewParams) -> ws.WindowNamed:
    service = _svc(server)
    name = p.name
    if not isinstance(name, str) or not name.strip():
        raise CommandError("a window needs a name")
    window = service.project_ops.new_window(name, p.project)
    return ws.WindowNamed(id=window.id, name=window.name, projects=list(window.tabs))


def window_rename(server: DaemonServer, client: ClientConnection,
                  p: rpc.WindowRenameParams) -> ws.WindowNamed:
    service = _svc(server)
    current = p.window
    if not current:
        window_id = caller_window(server, client)
        current = next((w.name for w in service.workspace.windows if w.id == window_id), None)
    if not current:
        raise CommandError("no window to rename")
    window = service.project_ops.rename_window(str(current), p.name)
    return ws.WindowNamed(id=window.id, name=window.name)


def window_list(server: DaemonServer, client: ClientConnection,
                p: rpc.NoParams) -> list[ws.WindowDescription]:
    service = _svc(server)
    listed = []
    for window in service.workspace.windows:
        attached = sum(
            1 for c in server.clients.values() if c.attached and c.window_id == window.id
        )
        names = [service.projects[root].name for root in window.tabs if root in service.projects]
        width, height = service.lookups.size_of(window.id)
        listed.append(ws.WindowDescription(id=window.id, name=window.name, projects=names,
                                           clients=attached, width=width, height=height))
    return listed


# ─── pages ─────────────────────────────────────────────────────────────────────────────


def _describe_pages(runtime: ProjectRuntime) -> list[ws.PageDescription]:
    return [
        ws.PageDescription(id=lay.id, name=lay.name, kind=lay.kind.value,
                           active=lay.id == runtime.active.id,
                           cells=sum(1 for _ in iter_leaves(lay.tree.root)))
        for lay in runtime.layouts.layouts
    ]


def layout_list(server: DaemonServer, client: ClientConnection,
                p: rpc.ProjectParams) -> list[ws.PageDescription]:
    return _describe_pages(_project(server, client, p.project))


def layout_new(server: DaemonServer, client: ClientConnection,
               p: rpc.PageNewParams) -> ws.PageNamed:
    runtime = _project(server, client, p.project)
    kind = p.kind
    if kind not in ("terminal", "gitGraph"):
        raise CommandError("kind must be terminal or gitGraph")
    layout = _svc(server).project_ops.new_page(runtime, p.name, LayoutKind(kind))
    return ws.PageNamed(id=layout.id, name=layout.name, kind=layout.kind.value)


def layout_switch(server: DaemonServer, client: ClientConnection,
                  p: rpc.PageSwitchParams) -> ws.PageNamed:
    runtime = _project(server, client, p.project)
    layout = _svc(server).project_ops.switch_page(runtime, p.page)
    return ws.PageNamed(id=layout.id, name=layout.name)


def layout_rename(server: DaemonServer, client: ClientConnection,
                  p: rpc.PageRenameParams) -> ws.PageNamed:
    runtime = _project(server, client, p.project)
    layout = _svc(server).project_ops.rename_page(runtime, p.page, p.name)
    return ws.PageNamed(id=layout.id, name=layout.name)


def layout_close(server: DaemonServer, client: ClientConnection,
                 p: rpc.PageCloseParams) -> ws.PageClosed:
    runtime = _project(server, client, p.project)
    force = p.force
    layout = _svc(server).project_ops.close_page(runtime, p.page, force)
    return ws.PageClosed(closed=layout.name)


# ─── overview ──────────────────────────────────────────────────────────────────────────


def ls(server: DaemonServer, client: ClientConnection,
       p: rpc.NoParams) -> ws.Overview:
    service = _svc(server)
    windows = []
    for window in service.workspace.windows:
        projects = []
        for root in window.tabs:
            runtime = service.projects.get(root)
            if runtime is None:
                continue
            pages = []
            for layout in runtime.layouts.layouts:
                cells = [
                    describe_cell(service, CellRef(runtime, layout.id, leaf))
                    for leaf in iter_leaves(layout.tree.root)
                ]
                pages.append(ws.OverviewPage(name=layout.name, kind=layout.kind.value,
                                             active=layout.id == runtime.active.id,
                                             cells=cells))
            projects.append(ws.OverviewProject(
                name=runtime.name, root=runtime.root, active=root == window.active,
                pages=pages, problems=list(runtime.problems),
                worktrees=(server.worktrees.describe(runtime)
                           if server.worktrees is not None else [])))
        attached = sum(
            1 for c in server.clients.values() if c.attached and c.window_id == window.id
        )
        # Projects that cannot be opened now keep their tab: listed with the reason.
        unavailable = [ws.OverviewUnavailable(name=name, root=kept.root, reason=kept.reason)
                       for kept, name in service.project_ops.kept_tabs(window.id)]
        windows.append(ws.OverviewWindow(name=window.name, id=window.id, clients=attached,
                                         projects=projects, unavailable=unavailable))
    return ws.Overview(windows=windows, problems=list(service.problems),
                       sessions=len(service.sessions), emulator=service.emulator_name)



COMMANDS = entries(
    command("project_probe", rpc.PathParams, ws.ProjectProbe, project_probe),
    command("project_new", rpc.PathParams, ws.ProjectDescription, project_new),
    command("project_open", rpc.PathParams, ws.ProjectDescription, project_open),
    command("project_close", rpc.ProjectCloseParams, ws.ProjectClosed, project_close),
    command("project_switch", rpc.ProjectSwitchParams, ws.ProjectDescription, project_switch),
    command("project_list", rpc.NoParams, list[ws.ProjectDescription], project_list),
    command("project_move", rpc.ProjectMoveParams, ws.ProjectMoved, project_move),
    command("window_new", rpc.WindowNewParams, ws.WindowNamed, window_new),
    command("window_rename", rpc.WindowRenameParams, ws.WindowNamed, window_rename),
    command("window_list", rpc.NoParams, list[ws.WindowDescription], window_list),
    command("layout_list", rpc.ProjectParams, list[ws.PageDescription], layout_list),
    command("layout_new", rpc.PageNewParams, ws.PageNamed, layout_new),
    command("layout_switch", rpc.PageSwitchParams, ws.PageNamed, layout_switch),
    command("layout_rename", rpc.PageRenameParams, ws.PageNamed, layout_rename),
    command("layout_close", rpc.PageCloseParams, ws.PageClosed, layout_close),
    command("ls", rpc.NoParams, ws.Overview, ls),
)
"""The commands of this module (the composition root merges the tables)."""
