"""Fixtures of the real-CLI tests: one scripted model server per test, and the team of real
agents `idea` launches against it.

`script` is the test's scripted model (rules added by the test), `server` runs it on
loopback for the duration of the test, and `team` is a `RealTeam` on the test's `IdeaEnv`
pointed at that server (the CLIs found, their scratch HOME prepared). A module that needs
another shape (a server with a reset clock, MCP servers of its own) defines its own fixture
of the same name, which takes precedence over these.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.agents_cli.in_idea import RealTeam
from tests.agents_cli.model_server import ModelServer, Script, model_server
from tests.helpers.idea import IdeaEnv


@pytest.fixture
def script() -> Script:
    return Script()


@pytest.fixture
def server(script: Script) -> Iterator[ModelServer]:
    with model_server(script) as running:
        yield running


@pytest.fixture
def team(idea: IdeaEnv, server: ModelServer) -> RealTeam:
    return RealTeam(idea, server)
