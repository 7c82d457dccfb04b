"""Contract: staging (files and hunks), discarding, committing, branches and worktrees."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.git.errors import (
    EmptyCommitMessage,
    HunkOutOfDate,
    IndexLocked,
    InvalidName,
    MergeConflict,
    NothingToCommit,
    PathOutsideRepository,
    UnknownRevision,
    WouldLoseChanges,
)
from core.git.model import Change, DiffTarget
from core.git.port import GitPort
from tests.adapters.git.conftest import Repo, run

TWENTY = "".join(f"line {n}\n" for n in range(1, 21))


def test_stage_and_unstage_files(port: GitPort, repo: Repo) -> None:
    repo.commit_file("a.txt", "1\n")
    repo.write("a.txt", "2\n")
    (repo.path / "a.txt").rename(repo.path / "b.txt")
    repo.write("c.txt", "c\n")
    run(port.stage(str(repo.path), ["a.txt", "b.txt", "c.txt"]))
    staged = {e.path: e.staged for e in run(port.status(str(repo.path))).staged}
    assert staged == {"a.txt": Change.DELETED, "b.txt": Change.ADDED, "c.txt": Change.ADDED}
    run(port.unstage(str(repo.path), ["a.txt", "c.txt"]))
    status = run(port.status(str(repo.path)))
    assert {e.path for e in status.staged} == {"b.txt"}
    assert {e.path for e in status.untracked} == {"c.txt"}
    assert repo.git("diff", "--cached", "--name-only").split() == ["b.txt"]


def test_unstage_before_the_first_commit(port: GitPort, repo: Repo) -> None:
    repo.write("a.txt", "1\n")
    run(port.stage(str(repo.path), ["a.txt"]))
    run(port.unstage(str(repo.path), ["a.txt"]))
    assert [e.path for e in run(port.status(str(repo.path))).untracked] == ["a.txt"]


def test_stage_and_unstage_one_hunk(port: GitPort, repo: Repo) -> None:
    repo.commit_file("f.txt", TWENTY)
    changed = TWENTY.replace("line 2\n", "line two\n").replace("line 19\n", "line nineteen\n")
    repo.write("f.txt", changed)
    (diff,) = run(port.diff(str(repo.path), DiffTarget.worktree()))
    assert len(diff.hunks) == 2
    run(port.stage_hunk(str(repo.path), "f.txt", 1, diff.hunks[1].header))
    assert repo.git("show", ":f.txt") == TWENTY.replace("line 19\n", "line nineteen\n")
    (left,) = run(port.diff(str(repo.path), DiffTarget.worktree()))
    assert [h.header for h in left.hunks] == [diff.hunks[0].header]
    (staged,) = run(port.diff(str(repo.path), DiffTarget.staged()))
    run(port.unstage_hunk(str(repo.path), "f.txt", 0, staged.hunks[0].header))
    assert repo.git("show", ":f.txt") == TWENTY
    assert (repo.path / "f.txt").read_text() == changed  # the work tree is untouched
    with pytest.raises(HunkOutOfDate):
        run(port.stage_hunk(str(repo.path), "f.txt", 0, "@@ -1,1 +1,1 @@"))


def test_discard_tracked_and_untracked(port: GitPort, repo: Repo) -> None:
    repo.commit_file("a.txt", "1\n")
    repo.commit_file("gone.txt", "g\n")
    repo.write("a.txt", "changed\n")
    (repo.path / "gone.txt").unlink()
    repo.write("junk.txt", "j\n")
    repo.write("keep.txt", "k\n")
    run(port.discard(str(repo.path), ["a.txt", "gone.txt", "junk.txt"]))
    assert (repo.path / "a.txt").read_text() == "1\n"
    assert (repo.path / "gone.txt").read_text() == "g\n"
    assert not (repo.path / "junk.txt").exists()
    assert [e.path for e in run(port.status(str(repo.path))).entries] == ["keep.txt"]


def test_paths_outside_the_work_tree_are_refused(port: GitPort, repo: Repo) -> None:
    repo.commit_file("a.txt", "1\n")
    for bad in ("../x", "/etc/passwd", ".git/config", ""):
        with pytest.raises(PathOutsideRepository):
            run(port.stage(str(repo.path), [bad]))


def test_locked_index_is_reported_and_nothing_changes(port: GitPort, repo: Repo) -> None:
    repo.commit_file("a.txt", "1\n")
    repo.write("a.txt", "2\n")
    (repo.path / ".git" / "index.lock").write_bytes(b"")
    with pytest.raises(IndexLocked) as caught:
        run(port.stage(str(repo.path), ["a.txt"]))
    assert "index.lock" in caught.value.message
    (repo.path / ".git" / "index.lock").unlink()
    assert repo.git("diff", "--cached", "--name-only") == ""
    assert run(port.status(str(repo.path))).unstaged[0].path == "a.txt"


def test_commit_needs_a_message_and_something_staged(port: GitPort, repo: Repo) -> None:
    repo.commit_file("a.txt", "1\n")
    with pytest.raises(EmptyCommitMessage):
        run(port.commit(str(repo.path), "  \n"))
    with pytest.raises(NothingToCommit):
        run(port.commit(str(repo.path), "nothing"))
    repo.write("a.txt", "2\n")
    run(port.stage(str(repo.path), ["a.txt"]))
    oid = run(port.commit(str(repo.path), "Second\n\nwith a body\n"))
    assert repo.git("rev-parse", "HEAD").strip() == oid
    said = repo.git("log", "-1", "--format=%an <%ae>|%B")
    assert said == "Test User <test@example.com>|Second\n\nwith a body\n\n"


def test_fallback_signature_only_without_an_identity(
    port: GitPort, repo: Repo, git_env: dict[str, str]
) -> None:
    Path(git_env["HOME"], ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    repo.write("a.txt", "1\n")
    run(port.stage(str(repo.path), ["a.txt"]))
    run(port.commit(str(repo.path), "first"))
    assert repo.git("log", "-1", "--format=%an <%ae>").strip() == "IdeA <idea@localhost>"
    repo.git("config", "user.name", "Local Name")
    repo.git("config", "user.email", "local@example.com")
    repo.write("a.txt", "2\n")
    run(port.stage(str(repo.path), ["a.txt"]))
    run(port.commit(str(repo.path), "second"))
    assert repo.git("log", "-1", "--format=%an <%ae>").strip() == "Local Name <local@example.com>"


def test_branches_and_switch(port: GitPort, repo: Repo) -> None:
    repo.commit_file("a.txt", "1\n")
    run(port.switch(str(repo.path), "feature/x", create=True))
    repo.commit_file("a.txt", "2\n")
    branches = run(port.branches(str(repo.path)))
    assert [(b.name, b.current) for b in branches] == [("feature/x", True), ("main", False)]
    run(port.switch(str(repo.path), "main"))
    assert (repo.path / "a.txt").read_text() == "1\n"
    assert run(port.status(str(repo.path))).branch == "main"
    with pytest.raises(InvalidName):
        run(port.switch(str(repo.path), "-rf", create=True))


def test_branch_delete_returns_its_tip(port: GitPort, repo: Repo) -> None:
    repo.commit_file("a.txt", "1\n")
    repo.git("switch", "-q", "-c", "doomed")
    tip = repo.commit_file("b.txt", "b\n")
    repo.git("switch", "-q", "main")
    assert run(port.branch_delete(str(repo.path), "doomed")) == tip
    assert repo.git("branch", "--list", "doomed") == ""
    with pytest.raises(UnknownRevision):
        run(port.branch_delete(str(repo.path), "doomed"))


def test_switch_refuses_to_overwrite_local_changes(port: GitPort, repo: Repo) -> None:
    repo.commit_file("a.txt", "1\n")
    repo.git("switch", "-q", "-c", "other")
    repo.commit_file("a.txt", "other\n")
    repo.git("switch", "-q", "main")
    repo.write("a.txt", "mine\n")
    with pytest.raises(WouldLoseChanges):
        run(port.switch(str(repo.path), "other"))
    assert (repo.path / "a.txt").read_text() == "mine\n"
    assert run(port.status(str(repo.path))).branch == "main"


def test_worktrees_add_list_remove(port: GitPort, repo: Repo, tmp_path: Path) -> None:
    repo.commit_file("a.txt", "1\n")
    place = tmp_path / "work-worktrees" / "agent-1"
    added = run(port.worktree_add(str(repo.path), str(place), "idea/agent-1"))
    assert added.branch == "idea/agent-1" and (place / "a.txt").exists()
    listed = run(port.worktrees(str(repo.path)))
    assert [Path(t.path).resolve() for t in listed] == [repo.path.resolve(), place.resolve()]
    assert run(port.status(str(place))).branch == "idea/agent-1"
    (place / "wip.txt").write_text("unsaved work\n")
    with pytest.raises(WouldLoseChanges):
        run(port.worktree_remove(str(repo.path), str(place)))
    assert (place / "wip.txt").exists()
    run(port.worktree_remove(str(repo.path), str(place), force=True))
    assert not place.exists()
    assert len(run(port.worktrees(str(repo.path)))) == 1
    assert "idea/agent-1" in {b.name for b in run(port.branches(str(repo.path)))}


def test_merge_fast_forward_and_conflict(port: GitPort, repo: Repo) -> None:
    repo.commit_file("a.txt", "1\n")
    repo.git("switch", "-q", "-c", "topic")
    tip = repo.commit_file("b.txt", "b\n")
    repo.git("switch", "-q", "main")
    assert run(port.merge(str(repo.path), "topic")) == tip
    repo.git("switch", "-q", "-c", "clash")
    repo.commit_file("a.txt", "theirs\n")
    repo.git("switch", "-q", "main")
    repo.commit_file("a.txt", "ours\n")
    with pytest.raises(MergeConflict) as caught:
        run(port.merge(str(repo.path), "clash"))
    assert caught.value.paths == ("a.txt",)
