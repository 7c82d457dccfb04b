"""A remote over ssh that wants credentials nobody gives: both adapters fail at once with
`CredentialsRequired`, never waiting on a password or host-key prompt. A real sshd on
loopback (an unknown host key, no key of ours authorized, passwords allowed)."""

from __future__ import annotations

import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.git.errors import CredentialsRequired
from core.git.port import GitPort
from tests.adapters.git.conftest import Repo, run
from tests.helpers.programs import require_program
from tests.helpers.retry import retry_until


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
            return conn.recv(4).startswith(b"SSH-")
    except OSError:
        return False


@pytest.fixture
def sshd(tmp_path: Path) -> Iterator[int]:
    daemon = shutil.which("sshd") or ("/usr/sbin/sshd" if Path("/usr/sbin/sshd").exists()
                                      else require_program("sshd"))  # skips (fails under CI)
    require_program("ssh")
    key = tmp_path / "host_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    port = _free_port()
    config = tmp_path / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {key}\nPidFile {tmp_path}/sshd.pid\n"
        f"AuthorizedKeysFile {tmp_path}/none\nPasswordAuthentication yes\n"
        "KbdInteractiveAuthentication yes\nUsePAM no\nStrictModes no\n"
    )
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation folder
    process = subprocess.Popen([daemon, "-D", "-e", "-f", str(config)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        retry_until(lambda: _accepts(port) or process.poll() is not None, 20)
        if process.poll() is not None:
            pytest.fail("sshd did not start")
        yield port
    finally:
        process.terminate()
        process.wait(10)


@pytest.mark.timeout(90)
def test_an_ssh_remote_asking_for_credentials_fails_at_once(
    port: GitPort, repo: Repo, sshd: int
) -> None:
    repo.commit_file("a.txt", "1\n")
    repo.git("remote", "add", "far", f"ssh://nobody@127.0.0.1:{sshd}/srv/repo.git")
    for operation in (port.fetch(str(repo.path), "far"), port.push(str(repo.path), "far")):
        with pytest.raises(CredentialsRequired) as caught:
            run(operation)
        assert "never waits on a prompt" in caught.value.message
        # The server answered and asked: not a refused connection.
        assert "host key verification failed" in caught.value.detail.lower() or \
            "permission denied" in caught.value.detail.lower(), caught.value.detail
