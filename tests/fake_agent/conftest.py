"""Fixtures: a project folder to run in, and a factory of fake agents on PTYs."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Protocol

import pytest

from tests.fake_agent.driver import AgentOnPty, base_env


class StartAgent(Protocol):
    def __call__(
        self, *args: str, env: Mapping[str, str] | None = None, cwd: Path | None = None
    ) -> AgentOnPty: ...


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The folder the agent runs in (its cwd, as the project root is for a real agent)."""
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def agent_env(tmp_path: Path) -> dict[str, str]:
    """The environment agents get unless a test passes its own."""
    return base_env(tmp_path)


@pytest.fixture
def start(project: Path, agent_env: dict[str, str]) -> Iterator[StartAgent]:
    """`start(*args, env=..., cwd=...)`: a fake agent on a PTY, killed at teardown."""
    agents: list[AgentOnPty] = []

    def spawn(
        *args: str, env: Mapping[str, str] | None = None, cwd: Path | None = None
    ) -> AgentOnPty:
        agent = AgentOnPty.spawn(args, cwd=cwd or project, env=env or agent_env)
        agents.append(agent)
        return agent

    try:
        yield spawn
    finally:
        for agent in agents:
            agent.close()
