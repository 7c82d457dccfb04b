"""What a window shows, as the `Scene` message clients draw from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adapters.ipc.messages import BorderInfo, CellInfo, PageInfo, Scene, TabInfo, WindowInfo
from core.layout import geometry as geo
from core.layout.model import LayoutKind, iter_leaves
from idea_daemon.orchestration.marks import cell_mark
from idea_daemon.session import TerminalSession

if TYPE_CHECKING:
    from idea_daemon.service import WorkspaceService


FRONT_MAX_AGE = 1.5
"""Seconds a cell's foreground command read from /proc serves scenes (polled every 1 s)."""


def build_scene(service: WorkspaceService, window_id: str | None, prefix: str = "ctrl+b") -> Scene:
    workspace = service.workspace
    window = next((w for w in workspace.windows if w.id == window_id), None)
    width, height = service.lookups.size_of(window_id)
    windows = [
        WindowInfo(id=w.id, name=w.name, active=w.id == window_id) for w in workspace.windows
    ]
    if window is None:
        return Scene(
            window="",
            windows=windows,
            tabs=[],
            pages=[],
            width=width,
            height=height,
            cells=[],
            borders=[],
            prefix=prefix,
        )
    tabs = []
    for root in window.tabs:
        runtime = service.projects.get(root)
        if runtime is not None:
            tabs.append(
                TabInfo(
                    project=runtime.project.id,
                    name=runtime.name,
                    root=root,
                    active=root == window.active,
                )
            )
    # Projects that cannot be opened now keep a tab, after the open ones (whose numbers
    # `project_switch` uses), with the reason: a click on it retries (`project_open`).
    for kept, name in service.project_ops.kept_tabs(window.id):
        tabs.append(TabInfo(project="", name=name, root=kept.root, unavailable=kept.reason))
    runtime = service.projects.get(window.active) if window.active else None
    if runtime is None:
        return Scene(
            window=window.name,
            windows=windows,
            tabs=tabs,
            pages=[],
            width=width,
            height=height,
            cells=[],
            borders=[],
            prefix=prefix,
        )
    layout = runtime.active
    pages = [
        PageInfo(id=lay.id, name=lay.name, kind=lay.kind.value, active=lay.id == layout.id)
        for lay in runtime.layouts.layouts
    ]
    focused = runtime.focused_leaf(layout.id)
    page = runtime.page(layout.id)
    geometry = geo.compute(layout.tree, width, height, page.zoomed)
    cells = []
    for index, leaf in enumerate(iter_leaves(layout.tree.root)):
        rect = geometry.cells.get(leaf.id)
        if rect is None:
            continue
        info = CellInfo(
            id=leaf.id,
            index=index,
            x=rect.x,
            y=rect.y,
            width=rect.width,
            height=rect.height,
            focused=leaf.id == focused,
        )
        if layout.kind is not LayoutKind.TERMINAL:
            info.kind = layout.kind.value
            info.running = False
            # The client draws the page itself (idea_tui/git_graph.py).
            info.command = "git graph"
        else:
            session = service.sessions.get(leaf.session) if leaf.session else None
            _describe(info, session)
            if session is None and leaf.agent is not None and service.hooks.agent_cell_message:
                info.command, info.message = service.hooks.agent_cell_message(runtime, leaf)
                info.kind = "agent"
            agent_id = session.agent_id if session is not None else leaf.agent
            if agent_id is not None and service.hooks.agent_badge is not None:
                badge = service.hooks.agent_badge(runtime.root, agent_id)
                if badge:
                    info.command = f"{info.command} · {badge}" if info.command else badge
        cells.append(info)
    borders = [
        BorderInfo(
            vertical=b.orientation is geo.Orientation.VERTICAL,
            x=b.x,
            y=b.y,
            length=b.length,
            container=b.container_id,
            index=b.index,
        )
        for b in geometry.borders
    ]
    return Scene(
        window=window.name,
        windows=windows,
        tabs=tabs,
        pages=pages,
        width=width,
        height=height,
        cells=cells,
        borders=borders,
        focused=focused,
        zoomed=page.zoomed is not None,
        prefix=prefix,
    )


def _describe(info: CellInfo, session: TerminalSession | None) -> None:
    if session is None:
        info.running = False
        info.message = "no program"
        return
    info.title = session.title
    info.attention = bool(session.attention)
    info.mark = cell_mark(session.attention)
    if session.error is not None:
        info.running = False
        info.message = session.error
        return
    if session.agent_id is not None:
        info.command = f"{session.agent_name} ({session.profile_id or 'agent'})"
        if session.work_branch is not None:
            info.command += f" ⎇ {session.work_branch}"
    elif session.pty is not None:
        # Read at most once per poll interval (a drag rebuilds scenes ~30 times a second).
        info.command = session.foreground(FRONT_MAX_AGE) or session.pty.command_name()
    info.running = session.exit_code is None
    info.exit_code = session.exit_code
    info.refresh = session.context_changed and info.running


def visible_sessions(
    service: WorkspaceService, window_id: str | None
) -> list[tuple[str, TerminalSession]]:
    """(cell id, session) of every cell a client of this window sees."""
    window = next((w for w in service.workspace.windows if w.id == window_id), None)
    if window is None or window.active is None:
        return []
    runtime = service.projects.get(window.active)
    if runtime is None:
        return []
    layout = runtime.active
    zoomed = runtime.page(layout.id).zoomed
    found = []
    for leaf in iter_leaves(layout.tree.root):
        if zoomed is not None and leaf.id != zoomed:
            continue
        session = service.sessions.get(leaf.session) if leaf.session else None
        if session is not None:
            found.append((leaf.id, session))
    return found
