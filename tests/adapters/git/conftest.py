"""Real repositories in tmp_path, built with the git program, and both adapters to test.

Each test gets a private HOME and git config (a known identity, `main` as the default
branch), so the user's own git setup never leaks in. `Repo.git(...)` runs git to set up a
state; the adapter under test then reads or changes it; assertions check the result, often
with git again.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Awaitable
from pathlib import Path
from typing import TypeVar

import pytest

from adapters.git.cli_repo import GitCliRepository
from adapters.git.dulwich_repo import DulwichRepository
from core.git.port import GitPort
from tests.helpers.programs import require_program

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    async def wrapped() -> T:
        return await coro

    return asyncio.run(wrapped())


class Repo:
    def __init__(self, path: Path, env: dict[str, str]) -> None:
        self.path = path
        self.env = env
        self._clock = 1_700_000_000

    def git(self, *args: str | bytes, input: bytes | None = None, check: bool = True) -> str:
        self._clock += 60  # distinct, increasing dates: both adapters order the log alike
        env = {**self.env, "GIT_COMMITTER_DATE": f"{self._clock} +0000",
               "GIT_AUTHOR_DATE": f"{self._clock} +0000"}
        done = subprocess.run(["git", *args], cwd=self.path, env=env, input=input,
                              capture_output=True, check=False)
        if check and done.returncode != 0:
            raise AssertionError(f"git {args}: {done.stderr.decode()}")
        return done.stdout.decode("utf-8", "surrogateescape")

    def write(self, name: str | bytes, content: bytes | str) -> Path:
        raw = os.fsencode(name)
        full = os.path.join(os.fsencode(self.path), raw)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as handle:
            handle.write(content.encode() if isinstance(content, str) else content)
        return Path(os.fsdecode(full))

    def commit_file(self, name: str, content: str, message: str | None = None) -> str:
        self.write(name, content)
        self.git("add", "--", name)
        self.git("commit", "-q", "-m", message or f"change {name}")
        return self.git("rev-parse", "HEAD").strip()


@pytest.fixture
def git_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    require_program("git")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Test User\n\temail = test@example.com\n"
        "[init]\n\tdefaultBranch = main\n[advice]\n\tdetachedHead = false\n"
    )
    for name, value in (("HOME", str(home)), ("GIT_CONFIG_NOSYSTEM", "1"),
                        ("XDG_CONFIG_HOME", str(home / ".config"))):
        monkeypatch.setenv(name, value)
    for name in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
                 "GIT_COMMITTER_EMAIL", "EMAIL", "GIT_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(name, raising=False)
    return dict(os.environ)


@pytest.fixture(params=["git", "dulwich"])
def port(request: pytest.FixtureRequest, git_env: dict[str, str]) -> GitPort:
    if request.param == "git":
        return GitCliRepository(require_program("git"), git_env)
    return DulwichRepository(git_env)


@pytest.fixture
def repo(tmp_path: Path, git_env: dict[str, str]) -> Repo:
    path = tmp_path / "work"
    path.mkdir()
    made = Repo(path, git_env)
    made.git("init", "-q")
    return made
