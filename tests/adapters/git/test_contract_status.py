"""Contract: status and diffs, the same from both adapters, on real repositories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.git.errors import BareRepository, NotARepository
from core.git.model import Change, DiffTarget, EntryKind, LineKind, RepoState
from core.git.port import GitPort
from tests.adapters.git.conftest import Repo, run


def test_not_a_repository_is_named(port: GitPort, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(NotARepository) as caught:
        run(port.status(str(plain)))
    assert "idea git init" in caught.value.message


def test_init_makes_an_empty_repository(port: GitPort, tmp_path: Path) -> None:
    target = tmp_path / "fresh" / "repo"
    run(port.init(str(target)))
    status = run(port.status(str(target)))
    assert status.branch == "main" and status.head is None and status.clean
    assert status.root == str(target)


def test_bare_repository_has_no_status_but_has_history(
    port: GitPort, repo: Repo, tmp_path: Path
) -> None:
    repo.commit_file("a.txt", "a\n")
    bare = tmp_path / "bare.git"
    repo.git("clone", "-q", "--bare", str(repo.path), str(bare))
    with pytest.raises(BareRepository):
        run(port.status(str(bare)))
    assert [e.subject for e in run(port.log(str(bare)))] == ["change a.txt"]


def test_every_kind_of_change(port: GitPort, repo: Repo) -> None:
    repo.commit_file("keep.txt", "1\n")
    repo.commit_file("gone.txt", "1\n")
    repo.commit_file("both.txt", "1\n")
    repo.write("keep.txt", "2\n")
    (repo.path / "gone.txt").unlink()
    repo.write("new.txt", "new\n")
    repo.git("add", "new.txt")
    repo.write("both.txt", "2\n")
    repo.git("add", "both.txt")
    repo.write("both.txt", "3\n")
    repo.write("sub/dir/untracked.txt", "u\n")
    status = run(port.status(str(repo.path / "sub")))
    assert status.root == str(repo.path)
    found = {e.path: (e.kind, e.staged, e.unstaged) for e in status.entries}
    assert found == {
        "both.txt": (EntryKind.TRACKED, Change.MODIFIED, Change.MODIFIED),
        "gone.txt": (EntryKind.TRACKED, None, Change.DELETED),
        "keep.txt": (EntryKind.TRACKED, None, Change.MODIFIED),
        "new.txt": (EntryKind.TRACKED, Change.ADDED, None),
        "sub/dir/untracked.txt": (EntryKind.UNTRACKED, None, None),
    }
    assert [e.path for e in status.staged] == ["both.txt", "new.txt"]
    assert status.state is RepoState.NONE and status.branch == "main"


def test_detached_head(port: GitPort, repo: Repo) -> None:
    first = repo.commit_file("a.txt", "1\n")
    repo.commit_file("a.txt", "2\n")
    repo.git("checkout", "-q", first)
    status = run(port.status(str(repo.path)))
    assert status.detached and status.branch is None and status.head == first


def _conflict(repo: Repo) -> None:
    repo.commit_file("c.txt", "base\n")
    repo.git("switch", "-q", "-c", "other")
    repo.commit_file("c.txt", "theirs\n")
    repo.git("switch", "-q", "main")
    repo.commit_file("c.txt", "ours\n")


def test_mid_merge_shows_the_conflict(port: GitPort, repo: Repo) -> None:
    _conflict(repo)
    repo.git("merge", "other", check=False)
    status = run(port.status(str(repo.path)))
    assert status.state is RepoState.MERGING
    assert [(e.path, e.conflict) for e in status.conflicted] == [("c.txt", "UU")]


def test_mid_rebase_is_reported(port: GitPort, repo: Repo) -> None:
    _conflict(repo)
    repo.git("rebase", "other", check=False)
    status = run(port.status(str(repo.path)))
    assert status.state is RepoState.REBASING
    assert [e.path for e in status.conflicted] == ["c.txt"]


def test_ahead_and_behind_the_upstream(port: GitPort, repo: Repo, tmp_path: Path) -> None:
    repo.commit_file("a.txt", "1\n")
    remote = tmp_path / "remote.git"
    repo.git("clone", "-q", "--bare", str(repo.path), str(remote))
    repo.git("remote", "add", "origin", str(remote))
    repo.git("fetch", "-q", "origin")
    repo.git("branch", "-q", "--set-upstream-to=origin/main")
    repo.commit_file("a.txt", "2\n")
    repo.commit_file("a.txt", "3\n")
    status = run(port.status(str(repo.path)))
    assert (status.upstream, status.ahead, status.behind) == ("origin/main", 2, 0)
    repo.git("reset", "-q", "--hard", "HEAD~2")
    repo.git("update-ref", "refs/remotes/origin/main", repo.commit_file("b.txt", "b\n"))
    repo.git("reset", "-q", "--hard", "HEAD~1")
    status = run(port.status(str(repo.path)))
    assert (status.ahead, status.behind) == (0, 1)


def test_diffs_of_work_tree_index_and_commits(port: GitPort, repo: Repo) -> None:
    first = repo.commit_file("f.txt", "one\ntwo\nthree\n")
    second = repo.commit_file("f.txt", "one\n2\nthree\n")
    repo.write("f.txt", "one\n2\nthree\nfour\n")
    repo.write("g.txt", "g\n")
    repo.git("add", "g.txt")
    (work,) = run(port.diff(str(repo.path), DiffTarget.worktree()))
    assert work.path == "f.txt" and work.change is Change.MODIFIED
    assert [(ln.kind, ln.text) for ln in work.hunks[0].lines if ln.kind is not LineKind.CONTEXT] \
        == [(LineKind.ADDED, "four")]
    (staged,) = run(port.diff(str(repo.path), DiffTarget.staged()))
    assert (staged.path, staged.change, staged.added) == ("g.txt", Change.ADDED, 1)
    (made,) = run(port.diff(str(repo.path), DiffTarget.commits(None, second)))
    assert (made.added, made.removed) == (1, 1)
    (root,) = run(port.diff(str(repo.path), DiffTarget.commits(None, first)))
    assert root.change is Change.ADDED and root.added == 3
    (between,) = run(port.diff(str(repo.path), DiffTarget.commits(first, second)))
    assert between.hunks == made.hunks
    assert run(port.diff(str(repo.path), DiffTarget.worktree(), ["g.txt"])) == ()


def test_file_without_final_newline(port: GitPort, repo: Repo) -> None:
    repo.commit_file("n.txt", "a\nb")
    repo.write("n.txt", "a\nc")
    (diff,) = run(port.diff(str(repo.path), DiffTarget.worktree()))
    changed = [ln for ln in diff.hunks[0].lines if ln.kind is not LineKind.CONTEXT]
    assert [(ln.text, ln.no_newline) for ln in changed] == [("b", True), ("c", True)]


def test_huge_binary_diff_is_named_not_read(port: GitPort, repo: Repo) -> None:
    repo.write("big.bin", b"\0" * 1024 + os.urandom(1024))
    repo.git("add", "big.bin")
    repo.git("commit", "-q", "-m", "binary")
    repo.write("big.bin", b"\0" + os.urandom(24 * 1024 * 1024))
    (diff,) = run(port.diff(str(repo.path), DiffTarget.worktree()))
    assert diff.binary and diff.hunks == () and diff.path == "big.bin"


NEWLINE = "two\nlines.txt"
LATIN1 = os.fsdecode(b"caf\xe9.txt")  # not UTF-8: a lone surrogate in the str


def test_paths_with_newlines_and_undecodable_bytes(port: GitPort, repo: Repo) -> None:
    repo.commit_file("base.txt", "x\n")
    repo.write(NEWLINE, "n\n")
    repo.write(os.fsencode(LATIN1), "l\n")
    status = run(port.status(str(repo.path)))
    assert {e.path for e in status.untracked} == {NEWLINE, LATIN1}
    run(port.stage(str(repo.path), [NEWLINE, LATIN1]))
    staged = run(port.status(str(repo.path))).staged
    assert {(e.path, e.staged) for e in staged} == {(NEWLINE, Change.ADDED), (LATIN1, Change.ADDED)}
    diffs = run(port.diff(str(repo.path), DiffTarget.staged()))
    assert {d.path for d in diffs} == {NEWLINE, LATIN1}
    run(port.commit(str(repo.path), "odd names"))
    names = repo.git("ls-files", "-z").split("\0")
    assert NEWLINE in names and LATIN1 in names
