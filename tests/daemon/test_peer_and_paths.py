"""Who may talk to the daemon, and which runtime paths it reuses (issue 7): a connection from
another uid is refused (SO_PEERCRED) even when the socket's mode would let it in; a socket,
pid file or lock that another user planted (or a symbolic link) is never reused or
followed; the client never talks to a socket another user serves."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
from pathlib import Path

import pytest

from adapters.ipc import framing
from adapters.ipc.messages import PROTOCOL_VERSION, Hello
from adapters.ipc.peer import UnsafeRuntimePath, check_reusable, is_own_peer, peer_uid
from adapters.locations import locate
from idea_daemon import main
from idea_tui.control import ControlClient, DaemonError
from tests.helpers.daemon import InProcessDaemon

NOBODY = 65534
needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="only root can act as, or give files to, another uid")

# A client running as another user (the system's python, stdlib only): connect, send the
# hello frame, print whether the daemon answered or closed the connection.
FOREIGN_CLIENT = """
import socket, sys
sock = socket.socket(socket.AF_UNIX)
sock.settimeout(20)
sock.connect(sys.argv[1])
try:
    sock.sendall(bytes.fromhex(sys.argv[2]))
    data = sock.recv(4)
except OSError:
    data = b""
print("answered" if data else "closed")
"""
SYSTEM_PYTHON = "/usr/bin/python3"


def open_up(path: Path) -> None:
    """Let any user reach `path` (the test plays a socket left with a lax mode)."""
    path.chmod(0o777)
    for parent in path.parents:
        if parent == Path("/"):
            break
        parent.chmod(parent.stat().st_mode | 0o011)


@needs_root
@pytest.mark.skipif(not os.access(SYSTEM_PYTHON, os.X_OK), reason="no system python3")
def test_a_connection_from_another_uid_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IDEA_HOME", str(tmp_path / "h"))
    daemon = InProcessDaemon(tmp_path / "h").start()
    try:
        path = daemon.locations.socket
        open_up(path)
        hello = framing.encode(Hello(protocol=PROTOCOL_VERSION, client_version="x",
                                     kind="control")).hex()
        result = subprocess.run([SYSTEM_PYTHON, "-c", FOREIGN_CLIENT, str(path), hello],
                                capture_output=True, text=True, timeout=60, user=NOBODY,
                                check=False)
        assert result.stdout.strip() == "closed", result
        # Our own uid is still served, on the same socket (once it is 0600 again: the client
        # refuses a socket others could write to).
        path.chmod(0o600)
        with daemon.client() as client:
            assert client.call("ls") is not None
    finally:
        daemon.stop()


def test_the_peer_of_our_own_socket_is_us() -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert peer_uid(left) in (None, os.getuid())
        assert is_own_peer(left)


def test_reused_paths_must_be_ours_of_the_right_kind_and_not_links(tmp_path: Path) -> None:
    assert check_reusable(tmp_path / "absent", "file") is False
    own = tmp_path / "daemon.pid"
    own.write_text("1\n")
    own.chmod(0o644)
    assert check_reusable(own, "file") is True
    link = tmp_path / "daemon.lock"
    link.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UnsafeRuntimePath, match="symbolic link"):
        check_reusable(link, "file")
    with pytest.raises(UnsafeRuntimePath, match="not a socket"):
        check_reusable(own, "socket")
    own.chmod(0o666)
    with pytest.raises(UnsafeRuntimePath, match="other users"):
        check_reusable(own, "file")


@needs_root
def test_a_path_owned_by_another_user_is_refused(tmp_path: Path) -> None:
    planted = tmp_path / "daemon.pid"
    planted.write_text("1\n")
    os.chown(planted, NOBODY, -1)
    with pytest.raises(UnsafeRuntimePath, match="another user"):
        check_reusable(planted, "file")


def test_the_daemon_does_not_start_over_a_planted_lock_link(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("IDEA_HOME", str(tmp_path / "h"))
    locations = locate({"IDEA_HOME": str(tmp_path / "h")})
    locations.runtime.mkdir(parents=True, mode=0o700)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    locations.pid_file.symlink_to(victim)
    assert main.run(foreground=True) == 1
    assert "symbolic link" in capsys.readouterr().err
    assert victim.read_text() == "precious\n", "the link was not followed"


@needs_root
def test_the_client_does_not_talk_to_a_socket_another_user_planted(
        tmp_path: Path) -> None:
    locations = locate({"IDEA_HOME": str(tmp_path / "h")})
    locations.runtime.mkdir(parents=True, mode=0o700)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(locations.socket))
    listener.listen(1)
    listener.setblocking(False)
    os.chown(locations.socket, NOBODY, -1)
    with listener:
        with pytest.raises(DaemonError, match="another user"):
            ControlClient.connect(locations)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected: not a key went to the planted socket
    assert stat.S_ISSOCK(os.lstat(locations.socket).st_mode)


def test_hello_from_our_own_uid_is_welcomed(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IDEA_HOME", str(tmp_path / "h"))
    daemon = InProcessDaemon(tmp_path / "h").start()
    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.settimeout(20)
        with sock:
            sock.connect(str(daemon.locations.socket))
            sock.sendall(framing.encode(Hello(protocol=PROTOCOL_VERSION, client_version="x",
                                              kind="control")))
            body = framing.recv_frame(sock)
            assert body is not None and framing.peek_handshake(body)["t"] == "welcome"
    finally:
        daemon.stop()
