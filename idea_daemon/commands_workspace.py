"""Commands on projects, windows and pages, and the `ls` overview."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from core.layout.model import LayoutKind, iter_leaves
from core.project import normalize_root
from idea_daemon.client_connection import ClientConnection
from idea_daemon.commands import Handler, _svc, caller_window, describe_cell
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.server import DaemonServer
from idea_daemon.service import CellRef, CommandError, WorkspaceService


def _path(params: dict[str, Any]) -> str:
    path = params.get("path")
    if not isinstance(path, str) or not path:
        raise CommandError("a project path is required")
    return path


def _project(
    server: DaemonServer, client: ClientConnection, params: dict[str, Any]
) -> ProjectRuntime:
    service = _svc(server)
    name = params.get("project")
    if name:
        return service.lookups.runtime_of(str(name))
    if client.cell is not None and client.window_id is None:
        try:
            return service.lookups.find_cell(client.cell).runtime
        except CommandError:
            pass
    return service.lookups.active_runtime(caller_window(server, client))


def describe_project(service: WorkspaceService, runtime: ProjectRuntime) -> dict[str, Any]:
    window = service.lookups.window_of_project(runtime)
    return {
        "id": runtime.project.id,
        "name": runtime.name,
        "root": runtime.root,
        "window": window.name if window else None,
        "open": True,
        "pages": [lay.name for lay in runtime.layouts.layouts],
        "activePage": runtime.active.name,
        "problems": list(runtime.problems),
    }


# ─── projects ──────────────────────────────────────────────────────────────────────────


def project_new(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    window = _window_param(server, client, params)
    runtime = service.project_ops.new_project(_path(params), params.get("name"), window)
    return describe_project(service, runtime)


def project_open(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    window = _window_param(server, client, params)
    runtime = service.project_ops.open_project(_path(params), window)
    return describe_project(service, runtime)


def project_probe(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    """What is at a folder, for a client choosing between opening and creating a project:
    clients never read a project's files themselves (the daemon may run elsewhere)."""
    service = _svc(server)
    path = _path(params)
    if not os.path.isabs(path):
        raise CommandError(f"the project path must be absolute, got {path!r}")
    root = normalize_root(path)
    directory = os.path.isdir(root)
    return {
        "root": root,
        "directory": directory,
        "registered": service.registry.get(root) is not None,
        "hasProjectFile": directory and service.project_store.path(Path(root)).is_file(),
        "open": root in service.projects,
    }


def _window_param(
    server: DaemonServer, client: ClientConnection, params: dict[str, Any]
) -> str | None:
    name = params.get("window")
    if name:
        return _svc(server).lookups.window_by_name(str(name)).id
    return caller_window(server, client)


def project_close(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    runtime = _project(server, client, params)
    service.project_ops.close_project(runtime.root, bool(params.get("force")))
    return {"closed": runtime.root}


def project_switch(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    runtime = service.project_ops.switch_project(
        caller_window(server, client), str(params.get("which", "next"))
    )
    return describe_project(service, runtime)


def project_list(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    listed = []
    for entry in service.registry.list_projects():
        runtime = service.projects.get(entry.root)
        if runtime is not None:
            listed.append(describe_project(service, runtime))
        else:
            listed.append(
                {
                    "id": entry.id,
                    "name": entry.name,
                    "root": entry.root,
                    "window": None,
                    "open": False,
                }
            )
    return listed


def project_move(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    runtime = _project(server, client, params)
    window = service.project_ops.move_project(runtime.root, str(params["window"]))
    return {"project": runtime.name, "window": window.name}


# ─── windows ───────────────────────────────────────────────────────────────────────────


def window_new(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    name = params.get("name")
    if not isinstance(name, str) or not name.strip():
        raise CommandError("a window needs a name")
    window = service.project_ops.new_window(name, params.get("project"))
    return {"id": window.id, "name": window.name, "projects": list(window.tabs)}


def window_rename(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    current = params.get("window")
    if not current:
        window_id = caller_window(server, client)
        current = next((w.name for w in service.workspace.windows if w.id == window_id), None)
    if not current:
        raise CommandError("no window to rename")
    window = service.project_ops.rename_window(str(current), str(params["name"]))
    return {"id": window.id, "name": window.name}


def window_list(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    service = _svc(server)
    listed = []
    for window in service.workspace.windows:
        attached = sum(
            1 for c in server.clients.values() if c.attached and c.window_id == window.id
        )
        names = [service.projects[root].name for root in window.tabs if root in service.projects]
        width, height = service.lookups.size_of(window.id)
        listed.append(
            {
                "id": window.id,
                "name": window.name,
                "projects": names,
                "clients": attached,
                "width": width,
                "height": height,
            }
        )
    return listed


# ─── pages ─────────────────────────────────────────────────────────────────────────────


def _describe_pages(runtime: ProjectRuntime) -> list[dict[str, Any]]:
    return [
        {
            "id": lay.id,
            "name": lay.name,
            "kind": lay.kind.value,
            "active": lay.id == runtime.active.id,
            "cells": sum(1 for _ in iter_leaves(lay.tree.root)),
        }
        for lay in runtime.layouts.layouts
    ]


def layout_list(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    return _describe_pages(_project(server, client, params))


def layout_new(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    kind = params.get("kind", "terminal")
    if kind not in ("terminal", "gitGraph"):
        raise CommandError("kind must be terminal or gitGraph")
    layout = _svc(server).project_ops.new_page(runtime, params.get("name"), LayoutKind(kind))
    return {"id": layout.id, "name": layout.name, "kind": layout.kind.value}


def layout_switch(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    layout = _svc(server).project_ops.switch_page(runtime, str(params.get("page", "next")))
    return {"id": layout.id, "name": layout.name}


def layout_rename(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    layout = _svc(server).project_ops.rename_page(runtime, params.get("page"), str(params["name"]))
    return {"id": layout.id, "name": layout.name}


def layout_close(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
    runtime = _project(server, client, params)
    force = bool(params.get("force"))
    layout = _svc(server).project_ops.close_page(runtime, params.get("page"), force)
    return {"closed": layout.name}


# ─── overview ──────────────────────────────────────────────────────────────────────────


def ls(server: DaemonServer, client: ClientConnection, params: dict[str, Any]) -> Any:
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
                pages.append(
                    {
                        "name": layout.name,
                        "kind": layout.kind.value,
                        "active": layout.id == runtime.active.id,
                        "cells": cells,
                    }
                )
            projects.append(
                {
                    "name": runtime.name,
                    "root": runtime.root,
                    "active": root == window.active,
                    "pages": pages,
                    "problems": list(runtime.problems),
                    "worktrees": (server.worktrees.describe(runtime)
                                  if server.worktrees is not None else []),
                }
            )
        attached = sum(
            1 for c in server.clients.values() if c.attached and c.window_id == window.id
        )
        windows.append(
            {"name": window.name, "id": window.id, "clients": attached, "projects": projects}
        )
    return {
        "windows": windows,
        "problems": list(service.problems),
        "sessions": len(service.sessions),
        "emulator": service.emulator_name,
    }


# The commands of this module, by wire name (the composition root merges the tables).
COMMANDS: dict[str, Handler] = {
    "project_probe": project_probe,
    "project_new": project_new,
    "project_open": project_open,
    "project_close": project_close,
    "project_switch": project_switch,
    "project_list": project_list,
    "project_move": project_move,
    "window_new": window_new,
    "window_rename": window_rename,
    "window_list": window_list,
    "layout_list": layout_list,
    "layout_new": layout_new,
    "layout_switch": layout_switch,
    "layout_rename": layout_rename,
    "layout_close": layout_close,
    "ls": ls,
}
