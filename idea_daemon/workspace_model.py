"""The daemon's workspace state, as plain data: what is open and what runs.

Every collaborator of the workspace service (`idea_daemon.service`) is given the same
`WorkspaceModel`; none of them owns it. Which collaborator changes what: `ProjectOps` the
workspace, projects and window sizes; `CellPrograms` the sessions; `Persistence` whether the
files may be written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from core import workspace as ws
from core.layout.model import Leaf
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.session import TerminalSession


@dataclass(eq=False)
class WorkspaceModel:
    workspace: ws.Workspace = field(default_factory=ws.Workspace)
    workspace_writable: bool = True
    projects: dict[str, ProjectRuntime] = field(default_factory=dict)
    """Open projects by root."""
    unavailable: dict[str, ws.KeptTab] = field(default_factory=dict)
    """Saved tabs whose project could not be reopened at start, by root: not open, but kept
    in `workspace.json` until the project is opened again (or closed)."""
    sessions: dict[str, TerminalSession] = field(default_factory=dict)
    window_sizes: dict[str, tuple[int, int]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    """What went wrong at start (unreadable files...), told to each attaching client."""
    page_sessions: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    """Sessions each page (root, layout id) started, to end those a change left cell-less."""
    stopping: bool = False


@dataclass(eq=False)
class WorkspaceHooks:
    """What other services ask to be told (set by the composition root and the agents)."""

    exit_handlers: list[Callable[[TerminalSession], None]] = field(default_factory=list)
    """An agent's program exited by itself (the agent service records it)."""
    open_handlers: list[Callable[[ProjectRuntime], None]] = field(default_factory=list)
    """A project is open (drift notices, resume offers)."""
    agent_activity_handlers: list[Callable[[str], None]] = field(default_factory=list)
    """An agent session's folder, when it may have finished a turn (its title changed, it
    rang, went quiet, or ended): the git service refreshes."""
    agent_cell_message: Callable[[ProjectRuntime, Leaf], tuple[str, str]] | None = None
    """Describes a cell waiting for its agent (set by the agent service)."""
    agent_badge: Callable[[str, str], str | None] | None = None
    """(project root, agent id) → what the agent's cell border adds, e.g.
    "rate_limited (until 17:00)" (set by the session-limit service)."""
