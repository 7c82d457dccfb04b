"""`idea capture --wait` stops watching a cell when it times out or its client goes away:
a waiter left behind would run its pattern on every later read of the cell."""

from __future__ import annotations

import pytest

from adapters.ipc.messages import Response
from idea_daemon.session import TerminalSession
from idea_tui.control import CommandFailed
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.raw_client import RawClient
from tests.helpers.retry import retry_until

NEVER = "this text never appears"


def only_session(daemon: InProcessDaemon) -> TerminalSession:
    service = daemon.server.service
    assert service is not None
    sessions = list(service.sessions.values())
    assert len(sessions) == 1
    return sessions[0]


@pytest.fixture
def session(daemon: InProcessDaemon, tmp_path: object) -> TerminalSession:
    project = daemon.locations.data.parent / "web"
    project.mkdir()
    with daemon.client() as client:
        client.call("project_new", path=str(project))
    return only_session(daemon)


def test_200_timed_out_waits_leave_no_waiter(daemon: InProcessDaemon,
                                             session: TerminalSession) -> None:
    with daemon.client() as client:
        for _ in range(200):
            with pytest.raises(CommandFailed) as failed:
                client.call("capture", wait=NEVER, timeout=0.001)
            assert failed.value.code == "timeout"
    retry_until(lambda: session.waiting == 0, describe=lambda: f"{session.waiting} waiters")


def test_a_wait_whose_client_goes_away_leaves_no_waiter(daemon: InProcessDaemon,
                                                        session: TerminalSession) -> None:
    with RawClient(str(daemon.locations.socket), kind="control") as client:
        client.request("capture", wait=NEVER, timeout=600)
        # The connection still answers other commands while the wait goes on.
        assert client.call("version")["pid"] > 0
        retry_until(lambda: session.waiting == 1)
    retry_until(lambda: session.waiting == 0, describe=lambda: f"{session.waiting} waiters")


def test_a_wait_that_matches_is_answered_and_removed(daemon: InProcessDaemon,
                                                     session: TerminalSession) -> None:
    with RawClient(str(daemon.locations.socket), kind="control") as client:
        waiting = client.request("capture", wait="marker-42", timeout=60)
        client.call("send_keys", keys=["echo marker-$((6*7))", "Enter"])
        answer = client.answer(waiting)
        assert isinstance(answer, Response) and answer.error is None
        assert "marker-42" in answer.result["text"]
    assert session.waiting == 0
