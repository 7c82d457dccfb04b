"""The one wrapper through which idea runs the git program (CONVENTIONS 7).

Every git process idea starts goes through `GitRunner.run`: an asyncio subprocess (never a
shell, never on the loop thread's time), with an environment that makes git predictable and
unable to wait on a person:

- `LC_ALL=C`: messages in English, so the errors below can be recognised.
- `GIT_TERMINAL_PROMPT=0`, an empty `GIT_ASKPASS`, no `SSH_ASKPASS`, ssh in `BatchMode`
  (unless the user set their own ssh command), no stdin, and a new session (no controlling
  terminal for ssh to open): a credential prompt fails at once instead of hanging.
- `GIT_LITERAL_PATHSPECS=1`: a file named `*.py` means that file, not a glob.
- No pager, no editor, `GIT_MERGE_AUTOEDIT=no`.

git's own error text is turned into the port's errors (`core/git/errors.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from core.git.errors import (
    BareRepository,
    CredentialsRequired,
    GitCancelled,
    GitFailed,
    GitUnavailable,
    IndexLocked,
    NotARepository,
    UnknownRevision,
    WouldLoseChanges,
)

log = logging.getLogger(__name__)

_CREDENTIAL_SIGNS = (
    "terminal prompts disabled",
    "could not read username",
    "could not read password",
    "authentication failed",
    "permission denied (publickey",
    "host key verification failed",
    "could not read from remote repository",
    "invalid username or password",
)


def git_environment(base: Mapping[str, str]) -> dict[str, str]:
    """The environment git runs with: the user's (their identity, config, ssh agent) made
    non-interactive and predictable."""
    env = {k: v for k, v in base.items() if k not in ("SSH_ASKPASS", "GIT_DIR", "GIT_WORK_TREE",
                                                      "GIT_INDEX_FILE")}
    env.update(
        LC_ALL="C",
        LANGUAGE="C",
        GIT_TERMINAL_PROMPT="0",
        GIT_ASKPASS="",
        GIT_LITERAL_PATHSPECS="1",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_EDITOR="true",
        GIT_MERGE_AUTOEDIT="no",
        GCM_INTERACTIVE="never",
    )
    if "GIT_SSH_COMMAND" not in env and "GIT_SSH" not in env:
        env["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"
    return env


@dataclass(frozen=True, slots=True)
class Completed:
    code: int
    out: bytes
    err: str


class GitRunner:
    """Runs `git` with the environment above; one instance per daemon."""

    def __init__(self, executable: str, env: Mapping[str, str]) -> None:
        self.executable = executable
        self.env = git_environment(env)

    async def run(
        self,
        cwd: str,
        args: Sequence[str],
        *,
        operation: str,
        stdin: bytes | None = None,
        check: bool = True,
        extra_env: Mapping[str, str] | None = None,
        stderr_sink: Callable[[bytes], None] | None = None,
        max_out: int | None = None,
    ) -> Completed:
        """Run `git args` in `cwd`. With `check`, a non-zero exit raises the port's error.

        `stderr_sink` gets stderr as it arrives (progress); `max_out` stops reading stdout
        past that many bytes (the process is ended; `out` is cut there).
        """
        env = self.env if extra_env is None else {**self.env, **extra_env}
        try:
            process = await asyncio.create_subprocess_exec(
                self.executable,
                *args,
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except FileNotFoundError as error:
            if not os.path.isdir(cwd):
                raise NotARepository(cwd) from error
            raise GitUnavailable() from error
        except NotADirectoryError as error:
            raise NotARepository(cwd) from error
        try:
            out, err, cut = await self._communicate(process, stdin, stderr_sink, max_out)
        except asyncio.CancelledError:
            _kill(process)
            with contextlib.suppress(Exception):
                await asyncio.shield(process.wait())
            raise
        code = process.returncode if process.returncode is not None else -1
        text = err.decode("utf-8", "replace")
        if cut:
            code = 0
        log.debug("git %s in %s: exit %s", " ".join(args[:3]), cwd, code)
        done = Completed(code, out, text)
        if check and code != 0:
            raise classify(operation, cwd, text, out)
        return done

    async def _communicate(
        self,
        process: asyncio.subprocess.Process,
        stdin: bytes | None,
        sink: Callable[[bytes], None] | None,
        max_out: int | None,
    ) -> tuple[bytes, bytes, bool]:
        assert process.stdout is not None and process.stderr is not None
        if stdin is not None:
            assert process.stdin is not None
            process.stdin.write(stdin)
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                await process.stdin.drain()
            process.stdin.close()

        async def read_err() -> bytes:
            assert process.stderr is not None
            chunks = []
            while chunk := await process.stderr.read(4096):
                chunks.append(chunk)
                if sink is not None:
                    sink(chunk)
            return b"".join(chunks)

        async def read_out() -> tuple[bytes, bool]:
            assert process.stdout is not None
            chunks, size = [], 0
            while chunk := await process.stdout.read(65536):
                chunks.append(chunk)
                size += len(chunk)
                if max_out is not None and size > max_out:
                    _kill(process)
                    return b"".join(chunks)[:max_out], True
            return b"".join(chunks), False

        (out, cut), err = await asyncio.gather(read_out(), read_err())
        await process.wait()
        return out, err, cut


def _kill(process: asyncio.subprocess.Process) -> None:
    """End git and whatever it started (ssh, helpers): it leads its own session."""
    if process.returncode is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            process.kill()


def classify(operation: str, cwd: str, err: str, out: bytes = b"") -> Exception:
    """git's error text as the port's error."""
    low = err.lower()
    if "not a git repository" in low:
        return NotARepository(cwd)
    if "must be run in a work tree" in low:
        return BareRepository(cwd)
    if "index.lock" in low:
        start = err.find("'")
        end = err.find("'", start + 1)
        lock = err[start + 1 : end] if 0 <= start < end else "index.lock"
        return IndexLocked(lock)
    if any(sign in low for sign in _CREDENTIAL_SIGNS):
        first = next((ln for ln in err.splitlines() if ln.strip()), err)
        return CredentialsRequired(operation, first.strip())
    if "would be overwritten" in low or "contains modified or untracked files" in low:
        return WouldLoseChanges(_first_fatal(err))
    if (
        "unknown revision" in low
        or "bad revision" in low
        or "invalid reference" in low
        or "not a valid object name" in low
        or "did not match any file(s) known" in low
    ):
        return UnknownRevision(_first_fatal(err))
    return GitFailed(operation, _first_fatal(err) or out.decode("utf-8", "replace"))


def _first_fatal(err: str) -> str:
    for line in err.splitlines():
        line = line.strip()
        if line.startswith(("fatal:", "error:")):
            return line.split(":", 1)[1].strip()
    return err.strip()


__all__ = ["Completed", "GitCancelled", "GitRunner", "classify", "git_environment"]
