"""Contract: paged log with graph data, stash, and remotes (fetch, pull, push) over file://
and a credential prompt that fails at once instead of hanging."""

from __future__ import annotations

import asyncio
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.git.errors import CredentialsRequired, UnknownRevision
from core.git.graph import layout
from core.git.model import Progress
from core.git.port import GitPort
from tests.adapters.git.conftest import Repo, run


def test_log_pages_cover_history_once(port: GitPort, repo: Repo) -> None:
    oids = [repo.commit_file("a.txt", f"{n}\n", f"commit {n}") for n in range(25)]
    pages = [run(port.log(str(repo.path), skip=skip, limit=10)) for skip in (0, 10, 20)]
    assert [len(p) for p in pages] == [10, 10, 5]
    seen = [e.oid for page in pages for e in page]
    assert seen == list(reversed(oids))
    first = pages[0][0]
    assert first.subject == "commit 24" and first.parents == (oids[23],)
    assert "HEAD -> main" in first.refs
    assert first.author.name == "Test User" and first.author.time > 1_700_000_000
    assert pages[2][-1].parents == ()
    with pytest.raises(UnknownRevision):
        run(port.log(str(repo.path), rev="no-such-branch"))


def test_log_of_an_empty_repository(port: GitPort, repo: Repo) -> None:
    assert run(port.log(str(repo.path))) == ()


def test_merge_commits_give_the_graph_two_lanes(port: GitPort, repo: Repo) -> None:
    repo.commit_file("a.txt", "1\n")
    repo.git("switch", "-q", "-c", "side")
    repo.commit_file("b.txt", "b\n")
    repo.git("switch", "-q", "main")
    repo.commit_file("c.txt", "c\n")
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side")
    entries = run(port.log(str(repo.path), rev="--all"))
    assert len(entries[0].parents) == 2
    rows, left = layout(entries)
    assert max(r.column for r in rows) == 1 and left == ()
    # Paging through the layout gives the same rows as laying out the whole log at once.
    top, lanes = layout(entries[:2])
    rest, _ = layout(entries[2:], lanes)
    assert top + rest == rows


def test_stash_list(port: GitPort, repo: Repo) -> None:
    repo.commit_file("a.txt", "1\n")
    repo.write("a.txt", "2\n")
    repo.git("stash", "push", "-q", "-m", "first idea")
    repo.write("a.txt", "3\n")
    repo.git("stash", "push", "-q", "-m", "second idea")
    stashes = run(port.stash_list(str(repo.path)))
    assert [s.index for s in stashes] == [0, 1]
    assert stashes[0].message.endswith("second idea")
    assert stashes[1].message.endswith("first idea")
    assert stashes[0].oid == repo.git("rev-parse", "stash@{0}").strip()


@pytest.fixture
def remote(repo: Repo, tmp_path: Path) -> Path:
    repo.commit_file("a.txt", "1\n")
    bare = tmp_path / "origin.git"
    repo.git("init", "-q", "--bare", str(bare))
    repo.git("remote", "add", "origin", bare.as_uri())
    return bare


def test_push_then_fetch_and_pull_over_file_url(
    port: GitPort, repo: Repo, remote: Path, tmp_path: Path
) -> None:
    seen: list[Progress] = []
    run(port.push(str(repo.path), progress=seen.append))
    assert Repo(remote, repo.env).git("rev-parse", "main") == repo.git("rev-parse", "main")
    assert run(port.status(str(repo.path))).upstream == "origin/main"
    other = Repo(tmp_path / "other", repo.env)
    repo.git("clone", "-q", remote.as_uri(), str(other.path))
    new = other.commit_file("b.txt", "b\n")
    other.git("push", "-q", "origin", "main")
    run(port.fetch(str(repo.path)))
    status = run(port.status(str(repo.path)))
    assert (status.ahead, status.behind) == (0, 1)
    run(port.pull(str(repo.path)))
    assert repo.git("rev-parse", "HEAD").strip() == new
    assert (repo.path / "b.txt").read_text() == "b\n"


class _AskForPassword(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="test"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def password_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _AskForPassword)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/repo.git"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.timeout(60)
def test_a_credential_prompt_fails_instead_of_hanging(
    port: GitPort, repo: Repo, password_server: str
) -> None:
    repo.commit_file("a.txt", "1\n")
    repo.git("remote", "add", "locked", password_server)
    for operation in (port.fetch(str(repo.path), "locked"), port.push(str(repo.path), "locked")):
        with pytest.raises(CredentialsRequired) as caught:
            run(operation)
        assert "credential" in caught.value.message


def test_a_cancelled_fetch_raises_cancelled(port: GitPort, repo: Repo, remote: Path) -> None:
    async def cancel_it() -> bool:
        task = asyncio.ensure_future(port.fetch(str(repo.path), "origin"))
        await asyncio.sleep(0)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return True
        return False

    assert run(cancel_it())
