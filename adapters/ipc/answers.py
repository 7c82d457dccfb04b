"""What each typed command answers, and how a client turns a result into it.

`ANSWERS` names the answer type of every command (a Struct of `commands` (cells, terminals,
the server), `answers_workspace`, `answers_agents`, `answers_knowledge`, `answers_git`,
`answers_orchestration` or `answers_limits`, a list of them, or None). The daemon's
handlers return those Structs; every client checks each result against its command's type
(`check_answer`) and decodes it with `decode_answer(kind, method, result)`, so a daemon
that answers something else (an older or a broken one) is a precise `BadAnswer` ("the
daemon's answer to agent_list does not fit: `state` is required in `$[0]`"), never a
`KeyError` deep in the client.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from adapters.ipc import answers_agents as ag
from adapters.ipc import answers_git as git
from adapters.ipc import answers_knowledge as kn
from adapters.ipc import answers_limits as lim
from adapters.ipc import answers_orchestration as orch
from adapters.ipc import answers_workspace as ws
from adapters.ipc import commands as rpc

T = TypeVar("T")


class BadAnswer(Exception):
    """A daemon's result that does not fit its command's answer type."""


ANSWERS: dict[str, Any] = {
    # cells
    "split": rpc.CellsAnswer,
    "grid": rpc.CellsAnswer,
    "select": rpc.CellDescription,
    "close": rpc.ClosedAnswer,
    "zoom": rpc.ZoomAnswer,
    "resize": rpc.CellDescription,
    "set_border": rpc.Nothing,
    "merge": rpc.MergeAnswer,
    "swap": rpc.SwapAnswer,
    "move": rpc.MoveAnswer,
    "equalize": rpc.Nothing,
    "undo": rpc.UndoAnswer,
    "restart": rpc.CellDescription,
    "list_cells": list[rpc.CellDescription],
    # what runs in a cell
    "send_keys": rpc.WriteAnswer,
    "paste": rpc.WriteAnswer,
    "capture": rpc.CaptureAnswer,
    "history": rpc.HistoryAnswer,
    "monitor": rpc.MonitorAnswer,
    # the daemon and its clients
    "version": rpc.VersionAnswer,
    "kill_server": rpc.StoppingAnswer,
    "loop_stats": rpc.LoopStats,
    "detach": rpc.DetachedAnswer,
    "clients": list[rpc.ClientDescription],
    "attach_window": rpc.WindowAnswer,
    # projects, windows, pages
    "project_probe": ws.ProjectProbe,
    "project_new": ws.ProjectDescription,
    "project_open": ws.ProjectDescription,
    "project_close": ws.ProjectClosed,
    "project_switch": ws.ProjectDescription,
    "project_list": list[ws.ProjectDescription],
    "project_move": ws.ProjectMoved,
    "window_new": ws.WindowNamed,
    "window_rename": ws.WindowNamed,
    "window_list": list[ws.WindowDescription],
    "layout_list": list[ws.PageDescription],
    "layout_new": ws.PageNamed,
    "layout_switch": ws.PageNamed,
    "layout_rename": ws.PageNamed,
    "layout_close": ws.PageClosed,
    "ls": ws.Overview,
    # agents
    "agent_list": list[ag.AgentDescription],
    "agent_new": ag.AgentCreated,
    "agent_rename": ag.AgentRenamed,
    "agent_rm": ag.AgentDeleted,
    "agent_path": ag.AgentPath,
    "agent_launch": ag.AgentDescription,
    "agent_stop": ag.AgentDescription,
    "agent_restart": ag.AgentDescription,
    "agent_set_profile": ag.AgentDescription,
    "agent_resumable": list[ag.ResumableAgent],
    "agent_resume": list[ag.AgentDescription],
    "agent_sync": ag.AgentSynced,
    "agent_set_sync": ag.AgentSyncSet,
    # personas
    "agent_persona_read": ag.PersonaText,
    "agent_persona_write": ag.PersonaWritten,
    # templates
    "template_list": ag.TemplateList,
    "template_new": ag.TemplateNamed,
    "template_show": ag.TemplateText,
    "template_update": ag.TemplateNamed,
    "template_rm": ag.TemplateDeleted,
    "template_install_pack": list[ag.TemplateNamed],
    # profiles
    "profile_list": ag.ProfileList,
    "profile_save": ag.ProfilesSaved,
    "profile_add": ag.ProfileMap,
    "profile_edit": ag.ProfileMap,
    "profile_rm": ag.ProfileRemoved,
    "profile_detect": list[ag.ProfileDetection],
    # skills
    "skill_list": kn.SkillList,
    "skill_show": kn.SkillText,
    "skill_new": kn.Skill,
    "skill_update": kn.SkillUpdated,
    "skill_rm": kn.SkillDeleted,
    "skill_assign": kn.SkillAssignment,
    "skill_unassign": kn.SkillAssignment,
    # conversations
    "conversation_list": list[kn.ConversationSummary],
    "read_conversation_page": kn.ConversationPage,
    "conversation_search": kn.ConversationSearch,
    # project memory and context
    "memory_list": kn.MemoryList,
    "memory_read": kn.MemoryText,
    "memory_write": kn.MemoryChanged,
    "memory_delete": kn.MemoryChanged,
    "context_read": kn.ContextText,
    "context_write": kn.ContextWritten,
    "context_proposals": kn.Proposals,
    "context_accept": kn.Said,
    "context_reject": kn.Said,
    "context_orchestrator": kn.Orchestrator,
    # git
    "git_status": git.GitStatus,
    "git_diff": git.GitDiff,
    "git_log": git.GitLog,
    "git_branches": list[git.Branch],
    "git_stash": list[git.Stash],
    "git_worktrees": list[git.Worktree],
    "git_init": git.GitRoot,
    "git_stage": git.GitPaths,
    "git_unstage": git.GitPaths,
    "git_hunk": rpc.Nothing,
    "git_discard": git.GitPaths,
    "git_commit": git.GitCommitted,
    "git_switch": git.GitSwitched,
    "git_merge": git.GitCommitted,
    "git_worktree_add": git.Worktree,
    "git_worktree_remove": git.GitRemoved,
    "git_fetch": git.GitRemote,
    "git_pull": git.GitRemote,
    "git_push": git.GitRemote,
    "git_cancel": git.GitCancelled,
    "git_watch": git.GitWatching,
    # an agent's worktree
    "agent_worktree": git.AgentWorktree,
    "agent_finish": git.AgentFinished,
    "agent_changes": git.AgentChanges,
    # delegation
    "ask": orch.TicketInfo,
    "agent_send": orch.TicketInfo,
    "agent_interrupt": orch.Interrupted,
    "agent_state": orch.AgentState,
    "tickets": list[orch.TicketInfo],
    "team_monitor": orch.TeamSnapshot,
    # live work state
    "work_state": orch.WorkState,
    "agent_refresh": orch.Refreshed,
    # session limits
    "set_resume_at": lim.LimitAnswer,
    "resume_now": lim.LimitAnswer,
    "cancel_resume": lim.LimitAnswer,
    "not_limited": lim.LimitAnswer,
    "limit_swap": lim.LimitAnswer,
    "limit_fallback": lim.FallbackPolicy,
    "limit_status": list[lim.LimitRow],
    "test_clock": lim.ClockSet,
}
"""Each command's answer type: a Struct, a list of them, a profile map or `Nothing` (the
daemon's table binds each handler to the same type, `idea_daemon.command_table`)."""


def decode_answer(kind: type[T], method: str, result: object) -> T:
    """`result` as `kind` (the command's answer type, or the item type of a list answer:
    see `decode_answers`), or `BadAnswer` naming what does not fit."""
    _check_kind(kind, method)
    decoded: T = _convert(kind, method, result)
    return decoded


def decode_answers(kind: type[T], method: str, result: object) -> list[T]:
    """A list answer (`agent_list`, `window_list`, ...) as a list of `kind`."""
    wanted: Any = list[kind]  # type: ignore[valid-type]
    _check_kind(wanted, method)
    decoded: list[T] = _convert(wanted, method, result)
    return decoded


def check_answer(method: str, result: object) -> None:
    """Refuse a result that does not fit its command's answer type (`BadAnswer`). A
    method this client does not know passes (the daemon refused it already)."""
    if method in ANSWERS:
        _convert(ANSWERS[method], method, result)


def _check_kind(kind: object, method: str) -> None:
    # A client asking for another type than the command answers is a bug in the client.
    expected = ANSWERS.get(method)
    assert expected is not None, f"{method} has no typed answer"
    assert kind == expected, f"{method} answers {expected}, not {kind}"


def _convert(kind: Any, method: str, result: object) -> Any:
    try:
        return msgspec.convert(result, kind, strict=True)
    except msgspec.ValidationError as exc:
        raise BadAnswer(f"the idea daemon's answer to {method} does not fit: {exc} "
                        "(is it another idea version? `idea kill-server` restarts it)") from None
