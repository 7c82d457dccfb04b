"""What both git adapters share: the in-progress state from the git dir, path checks,
branch name checks, progress lines."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable

from core.git.errors import PathOutsideRepository
from core.git.model import Progress, RepoState
from core.git.port import ProgressSink


def repo_state(git_dir: str) -> RepoState:
    """The operation git left in progress, read from its marker files (what git's own
    `wt-status.c` looks at). Blocking (stat calls): run it in an executor."""

    def has(name: str) -> bool:
        return os.path.exists(os.path.join(git_dir, name))

    if has("rebase-merge") or has("rebase-apply"):
        return RepoState.REBASING
    if has("MERGE_HEAD"):
        return RepoState.MERGING
    if has("CHERRY_PICK_HEAD"):
        return RepoState.CHERRY_PICKING
    if has("REVERT_HEAD"):
        return RepoState.REVERTING
    if has("BISECT_LOG"):
        return RepoState.BISECTING
    return RepoState.NONE


def require_inside(root: str, path: str) -> None:
    """A path given to the port names something inside the work tree: relative, without
    `..` escaping it, not inside `.git`. Anything else is refused before git sees it."""
    normal = posixpath.normpath(path) if path else ""
    if (
        not path
        or "\0" in path
        or os.path.isabs(path)
        or normal == ".."
        or normal.startswith("../")
        or normal == ".git"
        or normal.startswith(".git/")
    ):
        raise PathOutsideRepository(path, root)


_BAD_REF = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")


def valid_ref_name(name: str) -> str | None:
    """Why `name` cannot be a branch (git's check-ref-format rules that matter here)."""
    if not name:
        return "it is empty"
    if name.startswith("-"):
        return "it starts with '-'"
    if _BAD_REF.search(name) or ".." in name or "@{" in name:
        return "it holds a space, a control character or one of ~ ^ : ? * [ \\ .. @{"
    if name.endswith((".", "/", ".lock")) or name.startswith("/") or "//" in name:
        return "it ends with '.', '/' or '.lock', or has an empty part"
    if any(part.startswith(".") for part in name.split("/")):
        return "a part of it starts with '.'"
    return None


_PROGRESS = re.compile(r"^(?:remote: )?([A-Za-z][A-Za-z ]+?):\s+(\d+)%")


def progress_line(line: str) -> Progress:
    """`Receiving objects:  45% (450/1000)` → phase, percent, text."""
    match = _PROGRESS.match(line.strip())
    if match:
        return Progress(match.group(1), int(match.group(2)), line.strip())
    return Progress("", None, line.strip())


def split_progress(sink: ProgressSink | None) -> Callable[[bytes], None] | None:
    """A stderr reader that cuts git's `\\r`-updated lines and hands each to `sink`."""
    if sink is None:
        return None
    pending = bytearray()

    def feed(chunk: bytes) -> None:
        pending.extend(chunk)
        while True:
            cut = max(pending.rfind(b"\r"), pending.rfind(b"\n"))
            if cut < 0:
                return
            lines = re.split(rb"[\r\n]", bytes(pending[:cut]))
            del pending[: cut + 1]
            for raw in lines:
                line = raw.decode("utf-8", "replace").strip()
                if line:
                    sink(progress_line(line))

    return feed
