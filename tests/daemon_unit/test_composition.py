"""The composition root builds git, the agents' worktrees and delegation from the ports
`assemble` is given (no service builds its own adapters): the unit harness gets them by
passing ports, here the real git program on a real repository."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from adapters.git import open_git
from idea_daemon.bootstrap import ServicePorts
from tests.helpers.programs import require_program
from tests.helpers.unit_daemon import UnitDaemon


def test_assemble_builds_git_and_worktrees_from_the_given_port(tmp_path: Path) -> None:
    require_program("git")
    port = open_git(os.environ)
    unit = UnitDaemon(tmp_path, services=ServicePorts(git=port))
    try:
        root = unit.project()
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        (root / "notes.txt").write_text("hello\n")
        status = unit.call("git_status")
        assert unit.server.git is not None and unit.server.git.port is port
        assert unit.server.worktrees is not None
        assert "notes.txt" in str(status)
        assert unit.server.orchestration is None, "no MCP socket was given: no delegation"
    finally:
        unit.close()


def test_assemble_builds_delegation_when_given_the_mcp_socket(tmp_path: Path) -> None:
    unit = UnitDaemon(tmp_path, services=ServicePorts(mcp_socket=tmp_path / "mcp.sock"))
    try:
        unit.project()
        assert unit.server.orchestration is not None
        assert unit.server.orchestration.host is not None
        assert unit.server.orchestration.host.socket_path == tmp_path / "mcp.sock"
        assert unit.call("tickets") == []
        assert unit.server.git is None, "no git port was given: no git service"
    finally:
        unit.close()
