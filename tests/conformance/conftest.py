"""Fixtures of the tmux comparison: a private daemon and a tmux server of the same setup."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conformance.harness import Comparison, IdeaCell, TmuxPane
from tests.helpers.emulators import BACKENDS, mark_known_differences, require_backend
from tests.helpers.idea import IdeaEnv
from tests.helpers.programs import require_tmux

# What the cell and the pane both see, whatever the machine running the tests has set:
# idea gives its cells COLORTERM=truecolor unless set, so the tmux side gets it too; no
# program keeps history files that one side could read after the other wrote them.
SHARED_ENV = {
    "COLORTERM": "truecolor",
    "LESSHISTFILE": "-",
    "LESS": "",
    "PYTHONSTARTUP": "",
    "GIT_CONFIG_NOSYSTEM": "1",
    "TZ": "UTC",
}


@pytest.fixture(params=BACKENDS)
def emulator_backend(request: pytest.FixtureRequest) -> str:
    """Every comparison runs once per emulator backend (D26)."""
    name: str = request.param
    require_backend(name)
    mark_known_differences(request, name)
    return name


@pytest.fixture
def idea_env(tmp_path: Path, test_shell: Path, emulator_backend: str) -> Iterator[IdeaEnv]:
    """A private daemon's environment (stopped at teardown), its cells on `emulator_backend`."""
    env = IdeaEnv(tmp_path, test_shell, extra_env=SHARED_ENV)
    config = env.locations.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'emulator = "{emulator_backend}"\n')
    try:
        yield env
    finally:
        env.stop()


@pytest.fixture
def compare(idea_env: IdeaEnv, tmp_path: Path, emulator_backend: str) -> Iterator[Comparison]:
    """One idea cell and one tmux pane of the same size, both at a shell prompt in `proj`."""
    require_tmux()
    project = idea_env.new_project("proj")
    # The daemon runs the backend asked for (a fallback to pyte would compare pyte twice).
    assert idea_env.json("ls")["emulator"].startswith(emulator_backend)
    cell_id = idea_env.cells()[0]["id"]
    cell = IdeaCell(idea_env, f"%{cell_id}")
    pane = TmuxPane(idea_env, tmp_path)
    try:
        cols, rows = cell.size()
        pane.start(cols, rows, project)
        comparison = Comparison(idea_env, cell, pane)
        comparison.shell_ready()
        yield comparison
    finally:
        cell.close()
        pane.kill()
