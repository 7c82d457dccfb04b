"""Finding the real agent CLIs and running them with the built-in profiles' arguments.

A CLI is looked up in `$IDEA_TEST_CLI_DIR` (one folder, or several separated by `:`), then
on PATH, then where `.ci/run` installs the pinned Claude Code and Codex
(`$IDEA_CI_CLIS/node_modules/.bin`, by default ~/.cache/idea-ci-clis), then in
/tmp/clis/node_modules/.bin (where docs/profiles.md installs them by hand).

A missing CLI skips its tests with the reason. Under CI (`CI=true`) a missing Claude Code or
Codex fails instead: `.ci/run` installs those two, so their absence is a broken CI, not a
reason to pass. Gemini CLI and Aider stay optional everywhere (each ~400 MB, not installed
by CI): their tests skip.

Every run gets a scratch HOME (and CODEX_HOME): the tests never read or write the user's own
configuration, and nothing here needs a network or an account.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from adapters.agents.catalogue import builtin_profiles
from adapters.store.profiles_codec import decode_profile
from core.agents.argv import command_line
from core.agents.profile import AgentProfile, SessionMode

DEFAULT_DIR = Path("/tmp/clis/node_modules/.bin")
CI_INSTALLED = ("claude", "codex")
"""The CLIs `.ci/run` installs: required under CI=true."""
TIMEOUT = 120


def ci_dir() -> Path:
    """The `.bin` folder of the CLIs `.ci/run` installs."""
    root = os.environ.get("IDEA_CI_CLIS") or str(Path.home() / ".cache" / "idea-ci-clis")
    return Path(root) / "node_modules" / ".bin"


def find_cli(name: str) -> Path | None:
    for folder in (os.environ.get("IDEA_TEST_CLI_DIR"), None, str(ci_dir()),
                   str(DEFAULT_DIR)):
        if folder == "":
            continue
        found = shutil.which(name, path=folder) if folder else shutil.which(name)
        if found:
            return Path(found)
    return None


def require_cli(name: str) -> Path:
    """The CLI's path; skips the test when it is not installed, fails it under CI for the
    CLIs CI installs (see the module docstring)."""
    path = find_cli(name)
    if path is None:
        reason = (f"{name} is not installed (looked in $IDEA_TEST_CLI_DIR, PATH, {ci_dir()} "
                  f"and {DEFAULT_DIR}; docs/profiles.md says how to install it)")
        if name in CI_INSTALLED and os.environ.get("CI") == "true":
            pytest.fail(f"{reason}, and .ci/run installs it for CI", pytrace=False)
        pytest.skip(reason)
    return path


def scratch_env(home: Path, **extra: str) -> dict[str, str]:
    """An environment with a private HOME and CODEX_HOME under `home`."""
    (home / ".codex").mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
    }
    env.update(extra)
    return env


def run(argv: Sequence[str | Path], *, env: Mapping[str, str], cwd: Path,
        stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(word) for word in argv], env=dict(env), cwd=cwd, input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True, text=True, timeout=TIMEOUT,
    )


def profile(profile_id: str) -> AgentProfile:
    """A built-in profile as idea loads it (decoded and validated by the profiles codec)."""
    data = next(p for p in builtin_profiles() if p["id"] == profile_id)
    return decode_profile(data, "catalogue")


def launch_argv(
    profile: AgentProfile,
    cli: Path,
    values: Mapping[str, str],
    *,
    session: SessionMode = SessionMode.NONE,
    mcp_path: str | None = None,
) -> list[str]:
    """The argv idea builds for a launch, with the command replaced by the found binary."""
    argv = command_line(profile, values, session=session, mcp_path=mcp_path)
    return [str(cli), *argv[1:]]
