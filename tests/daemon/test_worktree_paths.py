"""A cloned project's `.ideai/agents.json` and `.ideai/worktrees.json` are someone else's
words (issue 7): the paths they give an agent's worktree are checked before idea reads,
copies, merges or removes anything there. Real git repositories in tmp_path, the real
daemon in a thread, the CLI in this process."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.daemon.conftest import CliRunner
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.programs import require_program


def git(where: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=where, capture_output=True, text=True,
                          check=True).stdout


def make_repo(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q")
    (folder / "app.txt").write_text("base\n")
    git(folder, "add", "app.txt")
    git(folder, "commit", "-q", "-m", "base")
    return folder


@pytest.fixture
def project(tmp_path: Path, run_cli: CliRunner, monkeypatch: pytest.MonkeyPatch) -> Path:
    require_program("git")
    home = Path(os.environ["HOME"])
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Lead\n\temail = lead@example.com\n[init]\n\tdefaultBranch = main\n")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = tmp_path / "proj"
    root.mkdir()
    assert run_cli("new", str(root)).code == 0
    make_repo(root)
    for name in ("Alpha", "Beta"):
        assert run_cli("agent", "new", name, "-p", str(root)).code == 0, name
    return root


def agent_id(root: Path, name: str) -> str:
    agents = json.loads((root / ".ideai" / "agents.json").read_text())["agents"]
    return next(str(a.get("agentId", a.get("id"))) for a in agents if a["name"] == name)


def hostile_record(root: Path, name: str, path: str, branch: str = "idea/alpha") -> bytes:
    """worktrees.json as a clone might bring it: `name`'s entry points at `path`."""
    file = root / ".ideai" / "worktrees.json"
    data: dict[str, Any] = (json.loads(file.read_text()) if file.exists()
                            else {"version": 1, "worktrees": {}})
    data["worktrees"][agent_id(root, name)] = {
        "path": path, "branch": branch, "baseBranch": "main", "baseOid": None}
    file.write_text(json.dumps(data, indent=2))
    return file.read_bytes()


def victim(folder: Path) -> Path:
    """A repository of the user's elsewhere, with an uncommitted secret."""
    make_repo(folder)
    (folder / "key.txt").write_text("secret\n")
    return folder


def assert_refused(run_cli: CliRunner, root: Path, before: bytes, target: Path,
                   *argv: str) -> str:
    failed = run_cli(*argv, "-p", str(root))
    assert failed.code != 0
    assert "worktrees.json" in failed.err
    assert ".path" in failed.err or ".branch" in failed.err
    assert (root / ".ideai" / "worktrees.json").read_bytes() == before  # left as it is
    assert (target / "key.txt").read_text() == "secret\n"  # nothing there touched
    assert not (root / ".ideai" / "backups").exists()  # nothing copied out of it
    return failed.err


@pytest.mark.parametrize("where", ["elsewhere", "dotdot", "default-folder"])
def test_discard_refuses_a_recorded_path_that_is_not_our_worktree(
    project: Path, run_cli: CliRunner, tmp_path: Path, where: str
) -> None:
    if where == "default-folder":  # the right folder, but not a worktree of this repository
        target = victim(tmp_path / "proj-worktrees" / "alpha")
        path = str(target)
    else:
        target = victim(tmp_path / "u" / ".ssh")
        path = str(target) if where == "elsewhere" else f"{project}/../u/.ssh"
    before = hostile_record(project, "Alpha", path)
    err = assert_refused(run_cli, project, before, target,
                         "agent", "finish", "Alpha", "discard", "-f")
    assert f"worktrees.{agent_id(project, 'Alpha')}.path" in err
    for argv in (["agent", "finish", "Alpha", "keep"], ["agent", "finish", "Alpha", "merge"],
                 ["agent", "changes", "Alpha"], ["agent", "worktree", "Alpha"]):
        assert_refused(run_cli, project, before, target, *argv)
    assert git(target, "status", "--short") == "?? key.txt\n"


def test_a_refused_entry_leaves_the_other_agents_worktrees_working(
    project: Path, run_cli: CliRunner, tmp_path: Path
) -> None:
    made = run_cli("agent", "worktree", "Beta", "-p", str(project), "--json").json()
    target = victim(tmp_path / "u" / ".ssh")
    before = hostile_record(project, "Alpha", str(target))
    assert_refused(run_cli, project, before, target, "agent", "finish", "Alpha", "discard", "-f")
    listed = run_cli("ls", "--json").json()["windows"][0]["projects"][0]["worktrees"]
    assert [("problem" in t, t["branch"]) for t in listed] == [(False, "idea/beta"),
                                                                (True, "idea/alpha")]
    assert run_cli("agent", "changes", "Beta", "-p", str(project)).code == 0
    kept = run_cli("agent", "finish", "Beta", "keep", "-p", str(project), "--json").json()
    assert kept == {"kept": "idea/beta"} and not Path(made["path"]).exists()
    left = json.loads((project / ".ideai" / "worktrees.json").read_text())["worktrees"]
    assert list(left) == [agent_id(project, "Alpha")]  # the refused entry is kept as it was


def test_discard_refuses_a_branch_the_worktree_is_not_on(
    project: Path, run_cli: CliRunner
) -> None:
    """A record naming our real worktree but another branch must not delete that branch."""
    made = run_cli("agent", "worktree", "Alpha", "-p", str(project), "--json").json()
    git(project, "branch", "release")
    before = hostile_record(project, "Alpha", made["path"], branch="release")
    failed = run_cli("agent", "finish", "Alpha", "discard", "-f", "-p", str(project))
    assert failed.code != 0 and ".branch" in failed.err
    assert "release" in git(project, "branch", "--list", "release")
    assert Path(made["path"]).is_dir()
    assert (project / ".ideai" / "worktrees.json").read_bytes() == before


def set_worktree_dir(root: Path, name: str, folder: str) -> None:
    file = root / ".ideai" / "agents.json"
    data = json.loads(file.read_text())
    for agent in data["agents"]:
        if agent["name"] == name:
            agent["worktreeDir"] = folder
    file.write_text(json.dumps(data, indent=2))


def test_a_worktree_dir_outside_the_user_s_root_is_refused(
    project: Path, run_cli: CliRunner, tmp_path: Path
) -> None:
    ssh = tmp_path / "u" / ".ssh"
    set_worktree_dir(project, "Alpha", str(ssh))
    failed = run_cli("agent", "worktree", "Alpha", "-p", str(project))
    assert failed.code != 0
    assert "agents.json" in failed.err and "worktreeDir" in failed.err
    assert not ssh.exists()  # not even its folder was made
    assert "idea/alpha" not in git(project, "branch")


def test_a_worktree_dir_under_the_configured_root_is_used(
    tmp_path: Path, run_cli: CliRunner, project: Path, daemon: InProcessDaemon
) -> None:
    trees = tmp_path / "trees"
    config = daemon.locations.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'worktree_root = "{trees}"\n')
    daemon.stop()  # the setting is read when the daemon starts
    again = InProcessDaemon(tmp_path / "h").start()
    try:
        set_worktree_dir(project, "Alpha", str(trees / "mine"))
        made = run_cli("agent", "worktree", "Alpha", "-p", str(project), "--json").json()
        assert made["path"] == str(trees / "mine" / "alpha")
        assert git(Path(made["path"]), "branch", "--show-current").strip() == "idea/alpha"
        (Path(made["path"]) / "draft.txt").write_text("draft\n")
        done = run_cli("agent", "finish", "Alpha", "discard", "-f", "-p", str(project),
                       "--json").json()
        assert (Path(done["backup"]) / "files" / "draft.txt").read_text() == "draft\n"
        assert not Path(made["path"]).exists()
    finally:
        again.stop()


@pytest.mark.parametrize("command", [["agent", "launch", "Alpha", "--background"],
                                     ["agent", "restart", "Alpha"]])
def test_launch_and_restart_refuse_a_recorded_folder_that_is_not_our_worktree(
    project: Path, run_cli: CliRunner, tmp_path: Path, command: list[str]
) -> None:
    """The right folder by the path rule (the default one), but not a worktree of this
    repository: the agent is not run there, nothing there is touched, the file is kept."""
    target = victim(tmp_path / "proj-worktrees" / "alpha")
    before = hostile_record(project, "Alpha", str(target))
    err = assert_refused(run_cli, project, before, target, *command)
    assert "not a worktree of this repository" in err
    assert not (target / ".ideai").exists()  # no run folder, no context written there
    agents = run_cli("agent", "list", "-p", str(project), "--json").json()
    assert all(agent["state"] != "running" for agent in agents)


def test_launch_refuses_a_worktree_on_another_branch_than_recorded(
    project: Path, run_cli: CliRunner
) -> None:
    made = run_cli("agent", "worktree", "Alpha", "-p", str(project), "--json").json()
    git(Path(made["path"]), "switch", "-q", "-c", "elsewhere")
    file = project / ".ideai" / "worktrees.json"
    before = file.read_bytes()
    failed = run_cli("agent", "launch", "Alpha", "--background", "-p", str(project))
    assert failed.code != 0 and ".branch" in failed.err and "elsewhere" in failed.err
    assert file.read_bytes() == before
