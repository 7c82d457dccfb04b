"""The parameters of every daemon command, as msgspec Structs shared by both ends.

The Structs of projects, windows and pages (`params_workspace.py`), of agents, personas,
templates and profiles (`params_agents.py`) and of further areas live in their own modules,
re-exported here so that handlers name them all as `rpc.<Name>`.

A `Request` carries a command's name and its parameters as a map; the daemon decodes the map
into the command's Struct before its handler runs (`decode_params`), so a handler gets typed
values (mypy checks it against the Struct) and a malformed request is refused with a message
naming the field ("count must be a whole number from 1 to 32"). Clients build the same Struct
before sending (`encode_params`), so a mistake is caught on their side too.

Unknown keys are ignored rather than refused: a newer client may send a field an older daemon
does not know yet.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

# The base names, re-exported: handlers and clients use them as rpc.<name>.
from adapters.ipc.params import Answer as Answer
from adapters.ipc.params import BadParams as BadParams
from adapters.ipc.params import NoParams as NoParams
from adapters.ipc.params import Nothing as Nothing
from adapters.ipc.params import P as P
from adapters.ipc.params import Params as Params
from adapters.ipc.params import decode_params as decode_params
from adapters.ipc.params_agents import AGENT_PARAMS
from adapters.ipc.params_agents import AgentForceParams as AgentForceParams
from adapters.ipc.params_agents import AgentLaunchParams as AgentLaunchParams
from adapters.ipc.params_agents import AgentNewParams as AgentNewParams
from adapters.ipc.params_agents import AgentParams as AgentParams
from adapters.ipc.params_agents import AgentProfileParams as AgentProfileParams
from adapters.ipc.params_agents import AgentRenameParams as AgentRenameParams
from adapters.ipc.params_agents import AgentRestartParams as AgentRestartParams
from adapters.ipc.params_agents import AgentSetSyncParams as AgentSetSyncParams
from adapters.ipc.params_agents import AgentsParams as AgentsParams
from adapters.ipc.params_agents import NamedAgentParams as NamedAgentParams
from adapters.ipc.params_agents import PersonaWriteParams as PersonaWriteParams
from adapters.ipc.params_agents import ProfileFileParams as ProfileFileParams
from adapters.ipc.params_agents import ProfileIdParams as ProfileIdParams
from adapters.ipc.params_agents import ProfileSaveParams as ProfileSaveParams
from adapters.ipc.params_agents import RefreshParams as RefreshParams
from adapters.ipc.params_agents import TemplateNewParams as TemplateNewParams
from adapters.ipc.params_agents import TemplateParams as TemplateParams
from adapters.ipc.params_agents import TemplateUpdateParams as TemplateUpdateParams
from adapters.ipc.params_git import GIT_PARAMS
from adapters.ipc.params_limits import LIMITS_PARAMS
from adapters.ipc.params_orchestration import ORCHESTRATION_PARAMS
from adapters.ipc.params_workspace import WORKSPACE_PARAMS
from adapters.ipc.params_workspace import PageCloseParams as PageCloseParams
from adapters.ipc.params_workspace import PageNewParams as PageNewParams
from adapters.ipc.params_workspace import PageRenameParams as PageRenameParams
from adapters.ipc.params_workspace import PageSwitchParams as PageSwitchParams
from adapters.ipc.params_workspace import PathParams as PathParams
from adapters.ipc.params_workspace import ProjectCloseParams as ProjectCloseParams
from adapters.ipc.params_workspace import ProjectMoveParams as ProjectMoveParams
from adapters.ipc.params_workspace import ProjectParams as ProjectParams
from adapters.ipc.params_workspace import ProjectSwitchParams as ProjectSwitchParams
from adapters.ipc.params_workspace import WindowNewParams as WindowNewParams
from adapters.ipc.params_workspace import WindowRenameParams as WindowRenameParams

Count = Annotated[int, msgspec.Meta(ge=1, le=32)]
GridSide = Annotated[int, msgspec.Meta(ge=1, le=8)]

# ─── cells ─────────────────────────────────────────────────────────────────────────────


class Targeted(Params, kw_only=True):
    target: str | None = None
    """A target string (core.targets): "%<cell id>", "project:page.index", "" for current."""


class SplitParams(Targeted, kw_only=True):
    direction: str = "right"
    count: Count = 1


class GridParams(Targeted, kw_only=True):
    rows: GridSide = 2
    cols: GridSide = 2


class SelectParams(Targeted, kw_only=True):
    direction: str | None = None
    """left, right, up, down, next, prev or last."""


class ForceParams(Targeted, kw_only=True):
    force: bool = False


class ResizeParams(Targeted, kw_only=True):
    side: str | None = None
    cells: Annotated[int, msgspec.Meta(ge=-1000, le=1000)] = 1


class BorderParams(Params, kw_only=True):
    container: str
    index: Annotated[int, msgspec.Meta(ge=0, le=1000)] = 0
    position: Annotated[int, msgspec.Meta(ge=0, le=100_000)] = 0
    vertical: bool = True
    drag: str | int | None = None
    """The mouse drag this move belongs to (its moves make one undo step)."""


class PairParams(Targeted, kw_only=True):
    other: str | None = None
    direction: str | None = None
    force: bool = False


class MoveParams(Targeted, kw_only=True):
    dst: str | None = None
    direction: str = "right"


class UndoParams(Targeted, kw_only=True):
    redo: bool = False


class ListCellsParams(Params, kw_only=True):
    all: bool = False
    project: str | None = None
    page: str | None = None


# ─── terminal ──────────────────────────────────────────────────────────────────────────


class SendKeysParams(Targeted, kw_only=True):
    keys: list[str] = []
    literal: bool = False


class PasteParams(Targeted, kw_only=True):
    text: str = ""


class CaptureParams(Targeted, kw_only=True):
    wait: str | None = None
    timeout: Any = 10.0
    """Seconds, checked by `core.limits.wait_seconds` (which refuses NaN, inf, words)."""
    history: Annotated[int, msgspec.Meta(ge=0, le=10_000_000)] = 0
    ansi: bool = False


class HistoryParams(Targeted, kw_only=True):
    start: Annotated[int, msgspec.Meta(ge=0)] | None = None
    count: Annotated[int, msgspec.Meta(ge=0, le=100_000)] = 100


class MonitorParams(Targeted, kw_only=True):
    activity: bool | None = None
    silence: Annotated[float, msgspec.Meta(ge=0, le=86_400)] | None = None


# ─── server ────────────────────────────────────────────────────────────────────────────


class KillServerParams(Params, kw_only=True):
    force: bool = False


class LoopStatsParams(Params, kw_only=True):
    reset: bool = False


class DetachParams(Params, kw_only=True):
    window: str | None = None


class AttachWindowParams(Params, kw_only=True):
    window: str


# ─── project memory and context (issue 9) ──────────────────────────────────────────────


class MemorySlugParams(ProjectParams, kw_only=True):
    slug: str | None = None


class MemoryWriteParams(MemorySlugParams, kw_only=True):
    content: str | None = None
    description: str | None = None
    type: str | None = None
    revision: str | None = None
    """The revision the editor started from; a note changed since asks first."""
    force: bool = False


class ContextWriteParams(ProjectParams, kw_only=True):
    content: str | None = None
    revision: str | None = None
    force: bool = False


class ProposalParams(ProjectParams, kw_only=True):
    id: str | None = None


class OrchestratorParams(ProjectParams, kw_only=True):
    agent: str | None = None
    """The agent to designate; None (with `none`) removes the designation."""
    none: bool = False


# ─── skills ────────────────────────────────────────────────────────────────────────────


class SkillScopeParams(ProjectParams, kw_only=True):
    scope: str | None = None
    """"project" or "global"; None: both (a name then means the project's skill first)."""


class SkillParams(SkillScopeParams, kw_only=True):
    skill: str | None = None
    """A skill by id or name."""


class SkillNewParams(SkillScopeParams, kw_only=True):
    name: str | None = None
    content: str | None = None


class SkillUpdateParams(SkillParams, kw_only=True):
    name: str | None = None
    content: str | None = None
    revision: str | None = None
    """The revision the edit started from (skill_show): a change since asks first."""
    force: bool = False


class SkillRmParams(SkillParams, kw_only=True):
    force: bool = False


class SkillAssignParams(SkillParams, kw_only=True):
    agent: str | None = None


# ─── conversations ─────────────────────────────────────────────────────────────────────


class ConversationListParams(ProjectParams, kw_only=True):
    agent: str | None = None
    """Only the conversations this agent takes part in."""


class ConversationParams(ProjectParams, kw_only=True):
    a: str | None = None
    """One side: an agent's name or id, or `user`."""
    b: str | None = None
    segment: Annotated[int, msgspec.Meta(ge=1)] | None = None
    """An archived segment (`log.N.jsonl`); none: the active log."""


class ConversationSearchParams(ConversationParams, kw_only=True):
    query: str | None = None


# ─── the table ─────────────────────────────────────────────────────────────────────────

PARAMS: dict[str, type[Params]] = {
    "work_state": ProjectParams,
    "split": SplitParams,
    "grid": GridParams,
    "select": SelectParams,
    "close": ForceParams,
    "zoom": Targeted,
    "resize": ResizeParams,
    "set_border": BorderParams,
    "merge": PairParams,
    "swap": PairParams,
    "move": MoveParams,
    "equalize": Targeted,
    "undo": UndoParams,
    "restart": ForceParams,
    "list_cells": ListCellsParams,
    "send_keys": SendKeysParams,
    "paste": PasteParams,
    "capture": CaptureParams,
    "history": HistoryParams,
    "monitor": MonitorParams,
    "version": NoParams,
    "kill_server": KillServerParams,
    "loop_stats": LoopStatsParams,
    "detach": DetachParams,
    "clients": NoParams,
    "attach_window": AttachWindowParams,
    "memory_list": ProjectParams,
    "memory_read": MemorySlugParams,
    "memory_write": MemoryWriteParams,
    "memory_delete": MemorySlugParams,
    "context_read": ProjectParams,
    "context_write": ContextWriteParams,
    "context_proposals": ProjectParams,
    "context_accept": ProposalParams,
    "context_reject": ProposalParams,
    "context_orchestrator": OrchestratorParams,
    "conversation_list": ConversationListParams,
    "read_conversation_page": ConversationParams,
    "conversation_search": ConversationSearchParams,
    "skill_list": SkillScopeParams,
    "skill_show": SkillParams,
    "skill_new": SkillNewParams,
    "skill_update": SkillUpdateParams,
    "skill_rm": SkillRmParams,
    "skill_assign": SkillAssignParams,
    "skill_unassign": SkillAssignParams,
    # One line per area whose Structs live in their own module (adapters/ipc/params_*.py).
    **WORKSPACE_PARAMS,
    **AGENT_PARAMS,
    **GIT_PARAMS,
    **ORCHESTRATION_PARAMS,
    **LIMITS_PARAMS,
}
"""Each typed command's parameters (commands missing here take a free-form map)."""


def encode_params(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A client's parameters checked against the command's Struct (raises `BadParams`),
    as the map to send (defaults left out)."""
    kind = PARAMS.get(method)
    if kind is None:
        return params
    encoded: dict[str, Any] = msgspec.to_builtins(decode_params(kind, params))
    # Keys the Struct does not know go through unchanged (a newer daemon may know them).
    known = set(kind.__struct_fields__)
    encoded.update({key: value for key, value in params.items() if key not in known})
    return encoded


# ─── answers ───────────────────────────────────────────────────────────────────────────


class CellDescription(Answer, kw_only=True):
    """A cell as `list_cells`, `select`, `resize`, `restart` and `ls` describe it."""

    id: str
    target: str
    """"project:page.index"."""
    project: str
    root: str
    page: str
    index: int
    focused: bool
    running: bool
    cols: int | msgspec.UnsetType = msgspec.UNSET
    rows: int | msgspec.UnsetType = msgspec.UNSET
    title: str | msgspec.UnsetType = msgspec.UNSET
    attention: str | msgspec.UnsetType = msgspec.UNSET
    exit_code: int | msgspec.UnsetType | None = msgspec.field(default=msgspec.UNSET,
                                                              name="exitCode")
    error: str | msgspec.UnsetType = msgspec.UNSET
    pid: int | msgspec.UnsetType = msgspec.UNSET
    command: str | msgspec.UnsetType = msgspec.UNSET
    foreground: str | msgspec.UnsetType | None = msgspec.UNSET
    agent_state: str | msgspec.UnsetType = msgspec.field(default=msgspec.UNSET,
                                                         name="agentState")
    """What the agent cell's border adds, e.g. "rate_limited (until 17:00)" (issue 10)."""


class CellsAnswer(Answer, kw_only=True):
    cells: list[str]
    """The new cells' ids."""


class ClosedAnswer(Answer, kw_only=True):
    closed: str


class ZoomAnswer(Answer, kw_only=True):
    zoomed: bool


class MergeAnswer(Answer, kw_only=True):
    kept: str
    removed: str


class SwapAnswer(Answer, kw_only=True):
    swapped: list[str]


class MoveAnswer(Answer, kw_only=True):
    moved: str


class UndoAnswer(Answer, kw_only=True):
    changed: bool


class WriteAnswer(Answer, kw_only=True):
    bytes: int


class CaptureAnswer(Answer, kw_only=True):
    text: str
    cols: int
    rows: int
    cursor: list[int]
    cell: str
    error: str | msgspec.UnsetType = msgspec.UNSET


class HistoryAnswer(Answer, kw_only=True):
    size: int
    rows: list[Any]
    start: int | msgspec.UnsetType = msgspec.UNSET
    links: list[tuple[int, tuple[tuple[int, str], ...]]] | msgspec.UnsetType = msgspec.UNSET
    """`(index in rows, links)` for the rows with hyperlinks (as `CellFrame.links`); not
    sent when no row has any."""


class MonitorAnswer(Answer, kw_only=True):
    activity: bool
    silence: float


class VersionAnswer(Answer, kw_only=True):
    version: str
    protocol: int
    pid: int
    emulator: str | None = None
    """The terminal engine of the daemon's cells (pyte or ghostty)."""


class StoppingAnswer(Answer, kw_only=True):
    stopping: bool


class SlowTurn(Answer, kw_only=True):
    ms: float
    what: str
    """What held the loop (the watchdog's stack summary)."""


class LoopStats(Answer, kw_only=True):
    """`loop_stats`: how the daemon's loop keeps up (the watchdog's figures; `bench/`
    reads them). A daemon without a watchdog has only the first fields."""

    turns: int
    slow_turns: int = msgspec.field(name="slowTurns")
    worst_ms: float = msgspec.field(name="worstMs")
    worst_what: str = msgspec.field(name="worstWhat")
    p99_ms: float = msgspec.field(name="p99Ms")
    threshold_ms: float | msgspec.UnsetType = msgspec.field(default=msgspec.UNSET,
                                                            name="thresholdMs")
    slow_turns_seen: list[SlowTurn] | msgspec.UnsetType = msgspec.field(
        default=msgspec.UNSET, name="slowTurnsSeen")
    late_imports: list[str] = msgspec.field(name="lateImports")
    """Modules the loop imported (each a stall the first time a feature is used)."""
    warm: bool
    """Preloading is done and the MCP server is up."""


class DetachedAnswer(Answer, kw_only=True):
    detached: int


class ClientDescription(Answer, kw_only=True):
    id: int
    window: str | None
    width: int
    height: int


class WindowAnswer(Answer, kw_only=True):
    window: str
