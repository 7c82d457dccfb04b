"""The agent services on a fake store: `background.json` goes through its port
(`adapters.store.ports.BackgroundStorePort`), so the daemon runs without that file and a
failing save is told, not lost."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from adapters.ipc.messages import Notice
from adapters.store.background_store import BackgroundRecord
from tests.fakes import FakeBackgroundStore
from tests.helpers.unit_daemon import FakeWriter, UnitDaemon


@pytest.fixture
def background() -> FakeBackgroundStore:
    return FakeBackgroundStore()


@pytest.fixture
def daemon(tmp_path: Path, background: FakeBackgroundStore) -> Iterator[UnitDaemon]:
    unit = UnitDaemon(tmp_path, background=background)
    try:
        yield unit
    finally:
        unit.close()


def test_a_background_agent_is_recorded_through_the_store(
        daemon: UnitDaemon, background: FakeBackgroundStore) -> None:
    root = daemon.project()
    daemon.call("agent_new", name="Worker")
    status = daemon.call("agent_launch", agent="Worker", background=True)
    # Claude Code's conversation id is chosen at launch (--session-id): recorded with it.
    assert background.files[str(root)] == {
        status["id"]: BackgroundRecord(status["conversationId"], True)}
    assert not (root / ".ideai" / "run" / "background.json").exists(), \
        "nothing wrote the file beside the store"
    daemon.call("agent_stop", agent="Worker")
    assert background.files[str(root)] == {}


def test_what_the_store_holds_is_offered_for_resuming(
        daemon: UnitDaemon, background: FakeBackgroundStore) -> None:
    root = daemon.project()
    created = daemon.call("agent_new", name="Worker")
    background.files[str(root)] = {created["id"]: BackgroundRecord("conv-1", True)}
    [entry] = daemon.call("agent_resumable")
    assert (entry["agent"], entry["background"], entry["conversationId"]) == (
        "Worker", True, "conv-1")


def test_a_failing_background_save_is_told_to_the_client(
        daemon: UnitDaemon, background: FakeBackgroundStore) -> None:
    client = daemon.attach()
    daemon.project()
    daemon.call("agent_new", name="Worker")
    background.fail_saves = True
    status = daemon.call("agent_launch", agent="Worker", background=True)
    assert status["state"] == "running", "the agent runs all the same"
    writer = client.writer
    assert isinstance(writer, FakeWriter)
    daemon.until(lambda: any(isinstance(m, Notice) and m.level == "error"
                             for m in writer.messages()), "the failure was told")
    [notice] = [m for m in writer.messages() if isinstance(m, Notice) and m.level == "error"]
    assert "not saved" in notice.text and "disk full" in notice.text
