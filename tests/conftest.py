"""Fixtures shared by every test layer.

`idea` gives a test its own `IdeaEnv` (private IDEA_HOME, HOME and shell) and always stops
the daemon the test started; `tui` starts attached clients in private tmux servers and
kills them at teardown, before the daemon is stopped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.helpers.idea import IdeaEnv, write_shell
from tests.helpers.programs import require_tmux
from tests.helpers.tui import TuiClient, TuiFactory

# Tests check behaviour, never speed: hypothesis' per-example deadline and its "too slow"
# health check are timing asserts, and they fail at random on 2 loaded cores.
settings.register_profile(
    "idea", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("idea")


@pytest.fixture(autouse=True)
def _isolated_from_outer_idea(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test run from inside an idea cell must not talk to that cell's daemon."""
    for name in ("IDEA_HOME", "IDEA_CELL", "IDEA_SOCKET", "TMUX", "TMUX_PANE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def test_shell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_shell(tmp_path_factory.mktemp("bin") / "e2e-shell")


@pytest.fixture
def idea(tmp_path: Path, test_shell: Path) -> Iterator[IdeaEnv]:
    env = IdeaEnv(tmp_path, test_shell)
    try:
        yield env
    finally:
        env.stop()


@pytest.fixture
def tui(idea: IdeaEnv) -> Iterator[TuiFactory]:
    """`tui(width=…, height=…, window=…)` starts an attached client in tmux.

    The first-run wizard (issue 4) is skipped first: these tests are about the workspace.
    """
    require_tmux()
    clients: list[TuiClient] = []

    def start(*, width: int = 120, height: int = 35, window: str | None = None,
              args: tuple[str, ...] | None = None, cwd: str | None = None) -> TuiClient:
        idea.skip_first_run()
        client = TuiClient(idea, width=width, height=height, window=window, args=args,
                           cwd=cwd)
        clients.append(client)
        return client.start()

    try:
        yield start
    finally:
        for client in clients:
            client.kill()
