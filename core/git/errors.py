"""The errors of the git port: each says what happened in the user's terms.

Both adapters raise these (never a library's or a process's own error), so the daemon, the
panel and the command line handle one family, whichever adapter runs.
"""

from __future__ import annotations

from core.errors import IdeaError


class GitError(IdeaError):
    """Base of everything the git port reports."""


class GitUnavailable(GitError):
    """Neither the git program nor dulwich can be used."""

    def __init__(self) -> None:
        super().__init__("Git is not available: install git (or the dulwich package).")


class NotARepository(GitError):
    def __init__(self, path: str) -> None:
        super().__init__(f"{path} is not a git repository; `idea git init` makes it one.")
        self.path = path


class BareRepository(GitError):
    def __init__(self, path: str) -> None:
        super().__init__(
            f"{path} is a bare repository: it has no work tree, so there is no status or "
            "diff to show; open a clone or a worktree of it."
        )
        self.path = path


class IndexLocked(GitError):
    """`.git/index.lock` exists: another git is writing the index, or one crashed."""

    def __init__(self, lock: str) -> None:
        super().__init__(
            f"The index is locked by another git process ({lock} exists). Wait for it to "
            "finish; if none is running, remove that file."
        )
        self.lock = lock


class EmptyCommitMessage(GitError):
    def __init__(self) -> None:
        super().__init__("A commit needs a message.")


class NothingToCommit(GitError):
    def __init__(self) -> None:
        super().__init__("Nothing is staged: stage some changes before committing.")


class UnknownRevision(GitError):
    def __init__(self, revision: str) -> None:
        super().__init__(f"{revision!r} names no branch or commit in this repository.")
        self.revision = revision


class InvalidName(GitError):
    def __init__(self, what: str, value: str, detail: str) -> None:
        super().__init__(f"{value!r} cannot be used as a {what}: {detail}.")
        self.value = value


class PathOutsideRepository(GitError):
    def __init__(self, path: str, root: str) -> None:
        super().__init__(f"{path!r} is not inside the repository at {root}.")
        self.path = path


class HunkOutOfDate(GitError):
    """The file changed since its diff was shown: the hunk no longer applies."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"The change to {path} is no longer what was shown (the file changed since); "
            "look at its diff again."
        )
        self.path = path


class WouldLoseChanges(GitError):
    """Switching or removing would overwrite or delete work that is not committed."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            f"{detail} Commit or stash your changes first (nothing was changed)."
        )


class MergeConflict(GitError):
    def __init__(self, paths: tuple[str, ...]) -> None:
        shown = ", ".join(paths[:10]) + (" …" if len(paths) > 10 else "")
        super().__init__(
            f"The merge stopped on conflicts in {shown}. Resolve them and commit, "
            "or abort the merge."
        )
        self.paths = paths


class CredentialsRequired(GitError):
    """The remote asked for a password or passphrase, and nobody may type one here."""

    def __init__(self, remote: str, detail: str) -> None:
        super().__init__(
            f"{remote} asked for credentials, and idea never waits on a prompt. Use a "
            f"credential helper or an ssh agent, then try again. (git said: {detail})"
        )
        self.remote = remote
        self.detail = detail


class GitCancelled(GitError):
    def __init__(self, operation: str) -> None:
        super().__init__(f"git {operation} was cancelled.")
        self.operation = operation


class GitFailed(GitError):
    """git (or dulwich) refused; `detail` is its own message, trimmed."""

    def __init__(self, operation: str, detail: str) -> None:
        detail = detail.strip() or "no reason given"
        if len(detail) > 600:
            detail = detail[:600] + " …"
        super().__init__(f"git {operation} failed: {detail}")
        self.operation = operation
        self.detail = detail
