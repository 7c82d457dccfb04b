"""The parameters of every daemon command, as msgspec Structs shared by both ends.

A `Request` carries a command's name and its parameters as a map; the daemon decodes the map
into the command's Struct before its handler runs (`decode_params`), so a handler gets typed
values (mypy checks it against the Struct) and a malformed request is refused with a message
naming the field ("count must be a whole number from 1 to 32"). Clients build the same Struct
before sending (`encode_params`), so a mistake is caught on their side too.

Unknown keys are ignored rather than refused: a newer client may send a field an older daemon
does not know yet.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

import msgspec
from msgspec import inspect as mi


class Params(msgspec.Struct, kw_only=True, omit_defaults=True):
    """Base of every command's parameters."""


class NoParams(Params, kw_only=True):
    pass


P = TypeVar("P", bound=Params)

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


# ─── projects, windows, pages ──────────────────────────────────────────────────────────


class ProjectParams(Params, kw_only=True):
    project: str | None = None
    """A project by name, id or root; else the caller's."""


class PathParams(Params, kw_only=True):
    path: str | None = None
    name: str | None = None
    window: str | None = None


class ProjectCloseParams(ProjectParams, kw_only=True):
    force: bool = False


class ProjectSwitchParams(Params, kw_only=True):
    which: str = "next"


class ProjectMoveParams(ProjectParams, kw_only=True):
    window: str


class WindowNewParams(Params, kw_only=True):
    name: str | None = None
    project: str | None = None


class WindowRenameParams(Params, kw_only=True):
    window: str | None = None
    name: str


class PageNewParams(ProjectParams, kw_only=True):
    name: str | None = None
    kind: str = "terminal"
    """terminal or gitGraph."""


class PageSwitchParams(ProjectParams, kw_only=True):
    page: str = "next"


class PageRenameParams(ProjectParams, kw_only=True):
    page: str | None = None
    name: str


class PageCloseParams(ProjectParams, kw_only=True):
    page: str | None = None
    force: bool = False


# ─── agents, templates, profiles ───────────────────────────────────────────────────────


class AgentParams(ProjectParams, kw_only=True):
    agent: str | None = None


class AgentNewParams(ProjectParams, kw_only=True):
    name: str | None = None
    profile: str | None = None
    template: str | None = None
    sync: bool = False


class AgentRenameParams(AgentParams, kw_only=True):
    name: str | None = None


class AgentForceParams(AgentParams, kw_only=True):
    force: bool = False


class AgentLaunchParams(AgentParams, kw_only=True):
    target: str | None = None
    background: bool = False
    split: bool = False
    direction: str | None = None
    resume: bool = False
    force: bool = False
    move: bool = False
    worktree: bool | str | None = None
    """Run in the agent's own git worktree: true, or a branch name (D28)."""


class AgentRestartParams(AgentParams, kw_only=True):
    resume: bool = False


class AgentProfileParams(AgentParams, kw_only=True):
    profile: str | None = None
    force: bool = False


class AgentsParams(ProjectParams, kw_only=True):
    all: bool = False
    agents: list[str] | None = None


class AgentSetSyncParams(AgentParams, kw_only=True):
    on: bool = False


class PersonaWriteParams(AgentParams, kw_only=True):
    content: str | None = None
    revision: str | None = None
    force: bool = False


class TemplateNewParams(Params, kw_only=True):
    name: str | None = None
    content: str = ""
    profile: str | None = None


class TemplateParams(Params, kw_only=True):
    template: str | None = None


class TemplateUpdateParams(TemplateParams, kw_only=True):
    content: str | None = None
    name: str | None = None


class ProfileSaveParams(Params, kw_only=True):
    profiles: list[Any] | None = None
    """Profiles in the profiles.json format (checked by the profiles codec)."""


class ProfileFileParams(Params, kw_only=True):
    file: str | None = None
    profile: Any = None
    """A profile in the profiles.json format, when no file is named."""


class ProfileIdParams(Params, kw_only=True):
    profile: str | None = None


# ─── the table ─────────────────────────────────────────────────────────────────────────

PARAMS: dict[str, type[Params]] = {
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
    "project_probe": PathParams,
    "project_new": PathParams,
    "project_open": PathParams,
    "project_close": ProjectCloseParams,
    "project_switch": ProjectSwitchParams,
    "project_list": NoParams,
    "project_move": ProjectMoveParams,
    "window_new": WindowNewParams,
    "window_rename": WindowRenameParams,
    "window_list": NoParams,
    "layout_list": ProjectParams,
    "layout_new": PageNewParams,
    "layout_switch": PageSwitchParams,
    "layout_rename": PageRenameParams,
    "layout_close": PageCloseParams,
    "ls": NoParams,
    "agent_list": ProjectParams,
    "agent_new": AgentNewParams,
    "agent_rename": AgentRenameParams,
    "agent_rm": AgentForceParams,
    "agent_path": AgentParams,
    "agent_launch": AgentLaunchParams,
    "agent_stop": AgentParams,
    "agent_restart": AgentRestartParams,
    "agent_set_profile": AgentProfileParams,
    "agent_resumable": AgentsParams,
    "agent_resume": AgentsParams,
    "agent_sync": AgentForceParams,
    "agent_set_sync": AgentSetSyncParams,
    "agent_persona_read": AgentParams,
    "agent_persona_write": PersonaWriteParams,
    "template_list": NoParams,
    "template_new": TemplateNewParams,
    "template_show": TemplateParams,
    "template_update": TemplateUpdateParams,
    "template_rm": TemplateParams,
    "template_install_pack": NoParams,
    "profile_list": NoParams,
    "profile_save": ProfileSaveParams,
    "profile_add": ProfileFileParams,
    "profile_edit": ProfileFileParams,
    "profile_rm": ProfileIdParams,
    "profile_detect": NoParams,
}
"""Each typed command's parameters (commands missing here take a free-form map)."""


class BadParams(Exception):
    """Parameters that do not fit their command (the message names the field)."""


def decode_params(kind: type[P], params: dict[str, Any]) -> P:
    """The command's Struct from a request's map, or `BadParams` naming what is wrong."""
    try:
        return msgspec.convert(params, kind, strict=True)
    except msgspec.ValidationError as exc:
        raise BadParams(_explain(kind, str(exc))) from None


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


def _explain(kind: type[Params], error: str) -> str:
    """`Expected `int` >= 1 - at `$.count`` → "count must be a whole number from 1 to 32"."""
    if error.startswith("Object missing required field"):
        field = error.split("`")[1]
        return f"{field} is required"
    if " - at `$." not in error:
        return f"the parameters must be a map of names to values ({error})"
    field = error.rsplit(" - at `$.", 1)[1].rstrip("`").split("[")[0].split(".")[0]
    info = next((f for f in _fields(kind) if f.encode_name == field), None)
    if info is None:
        return f"{field}: {error.rsplit(' - at ', 1)[0]}"
    return f"{field} must be {_words(info.type)}"


def _fields(kind: type[Params]) -> tuple[mi.Field, ...]:
    info = mi.type_info(kind)
    assert isinstance(info, mi.StructType)
    return info.fields


def _words(tp: mi.Type) -> str:
    if isinstance(tp, mi.UnionType):
        wanted = [t for t in tp.types if not isinstance(t, mi.NoneType)]
        return " or ".join(_words(t) for t in wanted) if wanted else "absent"
    if isinstance(tp, mi.StrType):
        return "a string"
    if isinstance(tp, mi.BoolType):
        return "true or false"
    if isinstance(tp, mi.IntType):
        return "a whole number" + _range(tp.ge, tp.le)
    if isinstance(tp, mi.FloatType):
        return "a number" + _range(tp.ge, tp.le)
    if isinstance(tp, mi.ListType):
        return f"a list of {_words(tp.item_type).removeprefix('a ')}s"
    return "of another type"


def _range(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f" from {low:g} to {high:g}"
    if low is not None:
        return f" of at least {low:g}"
    if high is not None:
        return f" of at most {high:g}"
    return ""


# ─── answers ───────────────────────────────────────────────────────────────────────────


class Answer(msgspec.Struct, kw_only=True):
    """Base of commands' answers. Fields left `UNSET` are not sent at all."""


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


class DetachedAnswer(Answer, kw_only=True):
    detached: int


class ClientDescription(Answer, kw_only=True):
    id: int
    window: str | None
    width: int
    height: int


class WindowAnswer(Answer, kw_only=True):
    window: str
