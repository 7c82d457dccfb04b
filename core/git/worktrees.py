"""Per-agent worktrees (D28): where they go, which branch, and the record that makes them
survive daemon restarts. Pure: the daemon does the I/O (`idea_daemon/agent_worktrees.py`).

An agent launched with its own worktree works in
`<project-parent>/<project-name>-worktrees/<agent-slug>` (outside the project tree, so the
project's watchers, searches and builds never see a second copy) on the branch
`idea/<agent-slug>`. The location's folder can be changed per agent (`worktreeDir` in
agents.json), but only to a folder under the user's `worktree_root` (config.toml): agents.json
and worktrees.json are committed, so a cloned project's are someone else's words, and a
path they name is checked (`refusal`) before idea reads, copies, merges or removes there.

>>> worktree_path("/home/u/web", "backend-dev")
'/home/u/web-worktrees/backend-dev'
>>> worktree_path("/home/u/web", "qa", "/tmp/trees")
'/tmp/trees/qa'
>>> refusal("/home/u/web-worktrees/qa", "/home/u/web", None) is None
True
>>> refusal("/home/u/.ssh", "/home/u/web", None)
'is not in /home/u/web-worktrees/ (nor under a worktree_root set in config.toml)'
>>> branch_for("backend-dev")
'idea/backend-dev'
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from core.errors import CorruptFile

BRANCH_PREFIX = "idea/"


def worktree_path(project_root: str, slug: str, folder: str | None = None) -> str:
    parent, name = posixpath.split(posixpath.normpath(project_root))
    base = folder if folder else posixpath.join(parent, f"{name}-worktrees")
    return posixpath.join(posixpath.normpath(base), slug)


def branch_for(slug: str) -> str:
    return f"{BRANCH_PREFIX}{slug}"


def inside(path: str, root: str) -> bool:
    """`path` is `root` or below it (a worktree must not be inside the project)."""
    path, root = posixpath.normpath(path), posixpath.normpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")


def default_base(project_root: str) -> str:
    """`<project-parent>/<project-name>-worktrees`, where agents' worktrees go (D28)."""
    return posixpath.dirname(worktree_path(project_root, "x"))


def refusal(path: str, project_root: str, user_root: str | None) -> str | None:
    """Why `path` may not be an agent's worktree (None when it may): it must be absolute,
    outside the project, and either directly in the default folder or below the user's
    configured `worktree_root` (a setting of theirs, never a committed file)."""
    if not posixpath.isabs(path):
        return "is not an absolute path"
    clean = posixpath.normpath(path)
    if inside(clean, project_root):
        return "is inside the project"
    base = default_base(project_root)
    if posixpath.dirname(clean) == base and posixpath.basename(clean) not in ("", ".", ".."):
        return None
    if user_root and posixpath.isabs(user_root) and clean != posixpath.normpath(user_root) \
            and inside(clean, user_root):
        return None
    return f"is not in {base}/ (nor under a worktree_root set in config.toml)"


@dataclass(frozen=True, slots=True)
class WorktreeRecord:
    """An agent's worktree as recorded in `.ideai/worktrees.json`.

    Attributes:
        agent_id: The agent it belongs to.
        path: The worktree's folder (absolute).
        branch: The branch the agent works on.
        base_branch: The branch it was made from (merged back into on finish).
        base_oid: The commit it was made at ("what did this agent change" starts here).
    """

    agent_id: str
    path: str
    branch: str
    base_branch: str | None
    base_oid: str | None


FORMAT_VERSION = 1


def encode(records: dict[str, WorktreeRecord]) -> dict[str, Any]:
    return {
        "version": FORMAT_VERSION,
        "worktrees": {
            r.agent_id: {"path": r.path, "branch": r.branch, "baseBranch": r.base_branch,
                         "baseOid": r.base_oid}
            for r in records.values()
        },
    }


def decode(data: Any, where: str) -> dict[str, WorktreeRecord]:
    """The records of a parsed worktrees.json; CorruptFile names what is wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("worktrees"), dict):
        raise CorruptFile(where, "expected an object with a `worktrees` object")
    if data.get("version", FORMAT_VERSION) != FORMAT_VERSION:
        raise CorruptFile(where, f"unknown version {data.get('version')!r}")
    found = {}
    for agent_id, value in data["worktrees"].items():
        if not isinstance(value, dict):
            raise CorruptFile(where, f"worktrees.{agent_id} is not an object")
        path, branch = value.get("path"), value.get("branch")
        if not isinstance(path, str) or not posixpath.isabs(path) or not isinstance(branch, str):
            raise CorruptFile(where, f"worktrees.{agent_id} needs an absolute path and a branch")
        base_branch, base_oid = value.get("baseBranch"), value.get("baseOid")
        found[agent_id] = WorktreeRecord(
            agent_id, path, branch,
            base_branch if isinstance(base_branch, str) else None,
            base_oid if isinstance(base_oid, str) else None,
        )
    return found
