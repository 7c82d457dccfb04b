"""`idea git …` end to end: the CLI in this process, the real daemon in a thread, a real
repository in tmp_path, and a client that hears `Changed` when files change."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from adapters.ipc import framing
from adapters.ipc.messages import Changed
from tests.daemon.conftest import CliRunner
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.programs import require_program
from tests.helpers.raw_client import RawClient
from tests.helpers.retry import retry_until
from tests.helpers.shapes import Optional, check_shape

ENTRY = {"path": str, "kind": str}
STATUS = {
    "root": str, "adapter": str, "branch": Optional(str), "head": Optional(str),
    "detached": bool, "upstream": Optional(str), "ahead": int, "behind": int, "state": str,
    "staged": [ENTRY], "unstaged": [ENTRY], "untracked": [ENTRY], "conflicted": [ENTRY],
}
LOG = {
    "entries": [{"oid": str, "parents": [str], "author": str, "time": int, "subject": str,
                 "refs": [str], "graph": {"column": int, "line": str, "joint": str}}],
    "lanes": [Optional(str)],
    "more": bool,
}


@pytest.fixture
def project(tmp_path: Path, run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> Path:
    require_program("git")
    home = Path(os.environ["HOME"])
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Panel User\n\temail = panel@example.com\n[init]\n\tdefaultBranch = main\n"
    )
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = tmp_path / "proj"
    root.mkdir()
    assert run_cli("new", str(root)).code == 0
    return root


def test_not_a_repository_then_init(project: Path, run_cli: CliRunner) -> None:
    failed = run_cli("git", "status")
    assert failed.code != 0 and "idea git init" in failed.err
    assert run_cli("git", "init").code == 0
    status = run_cli("git", "status", "--json").json()
    check_shape(status, STATUS)
    assert status["root"] == str(project) and status["head"] is None


def test_write_stage_commit_log_diff(project: Path, run_cli: CliRunner) -> None:
    run_cli("git", "init")
    (project / "app.py").write_text("print('hi')\n")
    (project / ".ideai" / "run").mkdir(exist_ok=True)
    (project / ".ideai" / "run" / "state.json").write_text("{}")
    status = run_cli("git", "status", "--json").json()
    # idea's runtime files stay out (D12's .ideai/.gitignore); its layouts may be committed.
    untracked = [e["path"] for e in status["untracked"]]
    assert "app.py" in untracked and ".ideai/layouts.json" in untracked
    assert not any(p.startswith(".ideai/run/") for p in untracked)
    assert run_cli("git", "stage", "app.py").code == 0
    assert [e["path"] for e in run_cli("git", "status", "--json").json()["staged"]] == ["app.py"]
    diff = run_cli("git", "diff", "--staged", "--json").json()
    assert diff["files"][0]["hunks"][0]["lines"] == [["+", "print('hi')", False]]
    empty = run_cli("git", "commit", "-m", "  ")
    assert empty.code != 0 and "needs a message" in empty.err
    oid = run_cli("git", "commit", "-m", "First", "--json").json()["oid"]
    log = run_cli("git", "log", "--json").json()
    check_shape(log, LOG)
    assert [e["oid"] for e in log["entries"]] == [oid]
    assert log["entries"][0]["author"] == "Panel User"
    shown = run_cli("git", "log")
    assert "First" in shown.out and "●" in shown.out
    assert run_cli("git", "switch", "-c", "topic").code == 0
    branches = run_cli("git", "branch", "--json").json()
    assert [(b["name"], b["current"]) for b in branches] == [("main", False), ("topic", True)]


def test_discard_asks_first(project: Path, run_cli: CliRunner) -> None:
    run_cli("git", "init")
    (project / "junk.txt").write_text("j\n")
    refused = run_cli("git", "discard", "junk.txt")
    assert refused.code != 0 and (project / "junk.txt").exists()
    assert run_cli("git", "discard", "-f", "junk.txt").code == 0
    assert not (project / "junk.txt").exists()


def test_a_watching_client_hears_of_a_written_file(
    project: Path, run_cli: CliRunner, daemon: InProcessDaemon
) -> None:
    run_cli("git", "init")
    with daemon.client() as client:
        answer = client.call("git_watch", path=str(project))
        assert answer["watching"] is True
        sock: socket.socket = client._sock
        sock.settimeout(30)
        (project / "new.txt").write_text("from an agent\n")
        while True:
            body = framing.recv_frame(sock)
            assert body is not None, "the daemon closed the connection"
            message = framing.decode_daemon(body)
            if isinstance(message, Changed):
                break
        assert (message.topic, message.key) == ("git", str(project))
        status = client.call("git_status", path=str(project))
        assert "new.txt" in [e["path"] for e in status["untracked"]]


def test_worktrees_through_the_daemon(project: Path, run_cli: CliRunner, tmp_path: Path) -> None:
    run_cli("git", "init")
    (project / "a.txt").write_text("a\n")
    run_cli("git", "stage", "a.txt")
    run_cli("git", "commit", "-m", "a")
    dest = tmp_path / "proj-worktrees" / "helper"
    added = run_cli("git", "worktree", "add", str(dest), "idea/helper", "--json").json()
    assert added["branch"] == "idea/helper"
    listed = run_cli("git", "worktree", "list", "--json").json()
    assert [Path(t["path"]).resolve() for t in listed] == [project.resolve(), dest.resolve()]
    assert run_cli("git", "worktree", "remove", str(dest)).code == 0
    out = subprocess.run(["git", "branch", "--list", "idea/helper"], cwd=project,
                         capture_output=True, text=True, check=True).stdout
    assert "idea/helper" in out


def test_a_hanging_push_is_cancelled(
    project: Path, run_cli: CliRunner, daemon: InProcessDaemon, tmp_path: Path
) -> None:
    """The git panel's Esc: `git_cancel` stops the connection's push, whose remote never
    answers (its receive-pack is a script that sleeps), and the push answers GitCancelled."""
    run_cli("git", "init")
    (project / "a.txt").write_text("a\n")
    run_cli("git", "stage", "a.txt")
    run_cli("git", "commit", "-m", "a")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    started = tmp_path / "receive-pack-started"
    hang = tmp_path / "hang-receive-pack"
    hang.write_text(f"#!/bin/sh\ntouch '{started}'\nexec sleep 600\n")
    hang.chmod(0o755)
    for args in (["remote", "add", "origin", f"file://{remote}"],
                 ["config", "remote.origin.receivepack", str(hang)]):
        subprocess.run(["git", *args], cwd=project, check=True)
    with RawClient(str(daemon.locations.socket), kind="control") as client:
        push = client.request("git_push", path=str(project), remote="origin", branch="main")
        retry_until(started.exists, describe="the remote's receive-pack never started")
        assert client.call("git_cancel") == {"cancelled": 1}
        answer = client.answer(push)
        assert answer.error is not None and answer.error.code == "GitCancelled"
        assert "cancelled" in answer.error.message
        # Nothing is left to cancel, and the connection still works.
        assert client.call("git_cancel") == {"cancelled": 0}
        assert client.call("git_status", path=str(project))["branch"] == "main"
