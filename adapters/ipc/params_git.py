"""Parameters of the `git_*` commands and of an agent's worktree (`agent_worktree`,
`agent_finish`, `agent_changes`), as msgspec Structs (see `adapters.ipc.params`).

A path a client sends (`paths`, `files`, `file`) is text or `{"path": …, "pathHex": …}`
(a name that is not UTF-8), checked by `idea_daemon.git_wire.path_param`; `path` here is the
repository folder itself (absolute; the caller's project root when absent).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from adapters.ipc.params import NoParams, Params

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]
WirePaths = Annotated[list[Any], msgspec.Meta(min_length=1)]
"""Paths as `git_wire.path_param` reads them (text or a path object), at least one."""


class RepoParams(Params, kw_only=True):
    path: str | None = None
    """The repository's folder (absolute): an agent's worktree, say."""
    project: str | None = None


class GitDiffParams(RepoParams, kw_only=True):
    target: Literal["worktree", "staged", "commit"] = "worktree"
    old: NonEmpty | None = None
    new: NonEmpty | None = None
    """The commit shown (required with target "commit")."""
    files: list[Any] = []


class GitLogParams(RepoParams, kw_only=True):
    rev: NonEmpty | None = None
    skip: Annotated[int, msgspec.Meta(ge=0, le=10**9)] = 0
    limit: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 100
    lanes: list[str | None] = []
    """What the previous page returned, so that pages join up."""


class GitBranchesParams(RepoParams, kw_only=True):
    remote: bool = False


class GitPathsParams(RepoParams, kw_only=True):
    paths: WirePaths
    unstage: bool = False
    force: bool = False
    """git_discard: the user confirmed."""


class GitHunkParams(RepoParams, kw_only=True):
    file: Any = None
    hunk: Annotated[int, msgspec.Meta(ge=0, le=10**6)] = 0
    header: NonEmpty
    """The hunk's @@ line as shown: a hunk that changed since is refused."""
    unstage: bool = False


class GitCommitParams(RepoParams, kw_only=True):
    message: str


class GitSwitchParams(RepoParams, kw_only=True):
    branch: NonEmpty
    create: bool = False


class GitMergeParams(RepoParams, kw_only=True):
    branch: NonEmpty
    ff_only: bool = msgspec.field(default=False, name="ffOnly")


class GitWorktreeAddParams(RepoParams, kw_only=True):
    dest: NonEmpty
    branch: NonEmpty
    base: NonEmpty | None = None


class GitWorktreeRemoveParams(RepoParams, kw_only=True):
    dest: NonEmpty
    force: bool = False


class GitRemoteParams(RepoParams, kw_only=True):
    remote: NonEmpty | None = None
    branch: NonEmpty | None = None
    """git_push only."""


class GitWatchParams(RepoParams, kw_only=True):
    stop: bool = False


class WorktreeAgentParams(Params, kw_only=True):
    project: str | None = None
    agent: NonEmpty
    """The agent's name or id."""


class AgentWorktreeParams(WorktreeAgentParams, kw_only=True):
    branch: NonEmpty | None = None
    forget: bool = False


class AgentFinishParams(WorktreeAgentParams, kw_only=True):
    how: Literal["merge", "keep", "discard"]
    force: bool = False


GIT_PARAMS: dict[str, type[Params]] = {
    "git_status": RepoParams,
    "git_diff": GitDiffParams,
    "git_log": GitLogParams,
    "git_branches": GitBranchesParams,
    "git_stash": RepoParams,
    "git_worktrees": RepoParams,
    "git_init": RepoParams,
    "git_stage": GitPathsParams,
    "git_unstage": GitPathsParams,
    "git_hunk": GitHunkParams,
    "git_discard": GitPathsParams,
    "git_commit": GitCommitParams,
    "git_switch": GitSwitchParams,
    "git_merge": GitMergeParams,
    "git_worktree_add": GitWorktreeAddParams,
    "git_worktree_remove": GitWorktreeRemoveParams,
    "git_fetch": GitRemoteParams,
    "git_pull": GitRemoteParams,
    "git_push": GitRemoteParams,
    "git_cancel": NoParams,
    "git_watch": GitWatchParams,
    "agent_worktree": AgentWorktreeParams,
    "agent_finish": AgentFinishParams,
    "agent_changes": WorktreeAgentParams,
}
