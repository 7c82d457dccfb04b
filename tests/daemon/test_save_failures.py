"""A save that fails is said out loud: on the status line of the attached clients (once until
a save works again) and in the daemon's log (every time)."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from adapters.ipc.messages import Notice
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.raw_client import RawClient


def _not_saved(client: RawClient) -> list[Notice]:
    return [m for m in client.messages if isinstance(m, Notice) and "not saved" in m.text]


def test_a_workspace_json_that_cannot_be_written_is_reported_once_and_logged(
        daemon: InProcessDaemon, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR)
    project = tmp_path / "web"
    project.mkdir()
    with RawClient(str(daemon.locations.socket)) as client:
        client.call("project_new", path=str(project))
        # A folder where the file goes: every save of it now fails (even for root).
        workspace = daemon.locations.data / "workspace.json"
        workspace.unlink()
        workspace.mkdir()
        client.call("window_new", name="second")
        client.call("window_new", name="third")
        notices = _not_saved(client)
        assert len(notices) == 1, client.messages
        assert "workspace.json" in notices[0].text and notices[0].level == "error"
        logged = [r for r in caplog.records if "saving workspace" in r.getMessage()]
        assert len(logged) == 2
        # Once saving works again, a new failure is reported again.
        workspace.rmdir()
        client.call("window_new", name="fourth")
        shutil.rmtree(workspace, ignore_errors=True)
        workspace.unlink()
        workspace.mkdir()
        client.call("window_new", name="fifth")
        assert len(_not_saved(client)) == 2


def test_background_records_that_cannot_be_written_are_reported(tmp_path: Path) -> None:
    """A background agent is recorded in `run/background.json`: when that cannot be
    written the agent still runs, and the failure is said on the status line."""
    from tests.helpers.unit_daemon import UnitDaemon

    unit = UnitDaemon(tmp_path)
    try:
        client = unit.attach()
        root = unit.project()
        unit.call("agent_new", name="Worker")
        record = root / ".ideai" / "run" / "background.json"
        record.mkdir(parents=True)  # every write of it fails (even for root)
        status = unit.call("agent_launch", agent="Worker", background=True)
        assert status["state"] == "running"
        writer = client.writer
        unit.until(lambda: any(isinstance(m, Notice) and "not saved" in m.text
                               and "background.json" in m.text
                               for m in writer.messages()),  # type: ignore[attr-defined]
                   "the failure was told")
    finally:
        unit.close()
