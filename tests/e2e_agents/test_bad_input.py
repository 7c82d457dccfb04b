"""Bad input (issue 4): a CLI that is not installed, corrupt files, a missing persona, an
injection target outside the run dir. Each gives a clear message that names the file or says
how to fix it; files are left byte for byte; the daemon keeps answering."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.e2e_agents.helpers import PROMPT_READY, Agents, fake_profile, snapshot
from tests.helpers.idea import IdeaEnv
from tests.helpers.tui import TuiFactory

pytestmark = pytest.mark.e2e

MISSING_CLI = "no-such-agent-cli"


@pytest.fixture
def agents(idea: IdeaEnv) -> Agents:
    team = Agents(idea, idea.new_project("proj"))
    team.add_profile(fake_profile("fake", "flag"))
    return team


def assert_alive(idea: IdeaEnv) -> None:
    """The daemon still answers the workspace's commands."""
    assert idea.daemon_running()
    assert idea.json("ls")["windows"]
    assert idea.cells()


def fails(idea: IdeaEnv, *args: str) -> str:
    """Run `idea ARGS…`, expect status 1 and no traceback; return stderr."""
    result = idea.run(*args, check=False)
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr + result.stdout
    return result.stderr


# ─── a command that is not installed ────────────────────────────────────────────────────


def ghost(agents: Agents) -> None:
    agents.add_profile(fake_profile("ghost", "flag", command=MISSING_CLI))
    agents.new("Ghost", "ghost")


def squeeze(text: str) -> str:
    """`text` without any white space (a wrapped line may lose a blank where it breaks)."""
    return "".join(text.split())


def assert_explains_the_fix(text: str) -> None:
    text = " ".join(text.split())
    assert f"command not found: {MISSING_CLI}" in text, text
    assert f"install `{MISSING_CLI}`" in text
    assert "idea agent set-profile Ghost" in text and "idea profile edit ghost" in text


def test_a_profile_whose_command_is_not_installed_says_how_to_fix_it(
        idea: IdeaEnv, agents: Agents, tui: TuiFactory) -> None:
    ghost(agents)
    client = tui(width=160, height=40)
    client.wait_cells(1, timeout=30)
    # A launch that could not start the CLI fails (exit 1) with the reason and the fix.
    assert_explains_the_fix(fails(idea, "agent", "launch", "Ghost"))
    cells = idea.cells()
    assert len(cells) == 2
    assert_explains_the_fix(cells[1]["error"])
    [info] = agents.list()
    assert info["state"] == "failed"
    assert_explains_the_fix(info["error"])
    # The attached client shows the whole message in the cell (wrapped at its width).
    client.wait_for(MISSING_CLI, timeout=30)
    right_cell = "".join(line.split("│", 1)[1] for line in client.lines() if "│" in line)
    assert squeeze(cells[1]["error"]) in squeeze(right_cell), client.screen()
    assert_alive(idea)

    # In the background: the same, and the agent list says so.
    assert_explains_the_fix(fails(idea, "agent", "launch", "Ghost", "--background"))
    assert agents.info("Ghost")["state"] == "failed"
    assert len(idea.cells()) == 2
    assert_alive(idea)

    # Following the advice fixes it: the profile is edited, the agent restarts in its cell.
    fixed = idea.root / "ghost-fixed.json"
    fixed.write_text(json.dumps(fake_profile("ghost", "flag")))
    idea.run("profile", "edit", "ghost", "--file", str(fixed))
    idea.run("agent", "launch", "Ghost", "-t", cells[1]["target"], "-f")
    agents.capture(cells[1]["target"], PROMPT_READY)
    assert agents.info("Ghost")["state"] == "running"


def test_capture_of_a_cell_whose_command_is_not_installed_says_so(
        idea: IdeaEnv, agents: Agents) -> None:
    ghost(agents)
    fails(idea, "agent", "launch", "Ghost")
    [_shell, cell] = idea.cells()
    assert_explains_the_fix(idea.capture(cell["target"]))


# ─── corrupt files ─────────────────────────────────────────────────────────────────────


def test_a_corrupt_profiles_json_is_named_and_left_as_it_is(
        idea: IdeaEnv, agents: Agents) -> None:
    profiles = agents.profiles_json
    profiles.write_text('{"version": 1, "profiles": [')
    kept = snapshot([profiles])
    for command in (("profile", "list"), ("profile", "list", "--json"),
                    ("profile", "add", str(idea.root / "profiles-in" / "fake.json"))):
        assert str(profiles) in fails(idea, *command)
    assert snapshot([profiles]) == kept
    # The rest keeps working: the workspace, templates, agents on built-in profiles.
    assert_alive(idea)
    idea.json("template", "list")
    agents.new("Builtin", "claude-code")
    assert [a["name"] for a in agents.list()] == ["Builtin"]
    assert snapshot([profiles]) == kept


def test_a_profile_refused_inside_profiles_json_is_named(idea: IdeaEnv, agents: Agents) -> None:
    profiles = agents.profiles_json
    data = json.loads(profiles.read_text())
    data["profiles"].append({"id": "escape", "name": "Escape", "command": "x",
                             "contextInjection": {"strategy": "conventionFile",
                                                  "target": "../CLAUDE.md"}})
    profiles.write_text(json.dumps(data))
    kept = snapshot([profiles])
    message = fails(idea, "profile", "list")
    assert str(profiles) in message and "profiles[1].contextInjection.target" in message
    assert snapshot([profiles]) == kept
    assert_alive(idea)


def test_launching_with_a_corrupt_profiles_json_names_the_file(
        idea: IdeaEnv, agents: Agents) -> None:
    agents.new("Custom", "fake")
    profiles = agents.profiles_json
    profiles.write_text("{not json")
    message = fails(idea, "agent", "launch", "Custom")
    assert str(profiles) in message
    assert profiles.read_text() == "{not json"


@pytest.mark.parametrize("content", ['{"version": 1, "agents": [{"name": 3}]}', "{"])
def test_a_corrupt_agents_json_is_named_and_left_as_it_is(
        idea: IdeaEnv, agents: Agents, content: str) -> None:
    agents.new("Kept", "fake")
    manifest = agents.ideai / "agents.json"
    manifest.write_text(content)
    kept = snapshot([manifest, agents.ideai / "agents" / "kept.md"])
    for command in (("agent", "list"), ("agent", "list", "--json"),
                    ("agent", "new", "Another", "--profile", "fake"),
                    ("agent", "launch", "Kept"), ("agent", "rm", "Kept", "-f")):
        assert str(manifest) in fails(idea, *command), command
    assert snapshot([manifest, agents.ideai / "agents" / "kept.md"]) == kept
    assert len(idea.cells()) == 1, "no cell was made for a launch that failed"
    assert_alive(idea)
    idea.json("template", "list")
    idea.json("profile", "list")
    idea.run("open", str(agents.project))
    assert snapshot([manifest, agents.ideai / "agents" / "kept.md"]) == kept


def test_a_corrupt_template_index_is_named_and_left_as_it_is(
        idea: IdeaEnv, agents: Agents) -> None:
    idea.run("template", "new", "Tpl")
    index = idea.locations.data / "templates" / "index.json"
    index.write_text("[1, 2")
    kept = snapshot([index, idea.locations.data / "templates" / "md" / "tpl.md"])
    for command in (("template", "list"), ("template", "new", "Other"),
                    ("template", "install-pack"), ("template", "update", "tpl", "--name", "X"),
                    ("template", "rm", "tpl"),
                    ("agent", "new", "FromTpl", "--profile", "fake", "--template", "tpl")):
        assert str(index) in fails(idea, *command), command
    assert snapshot([index, idea.locations.data / "templates" / "md" / "tpl.md"]) == kept
    # Agents from scratch and their list still work.
    agents.new("Scratch", "fake")
    assert [a["name"] for a in agents.list()] == ["Scratch"]
    assert_alive(idea)


# ─── a missing persona, a target outside the run dir ──────────────────────────────────


def test_a_persona_file_missing_at_launch_is_a_clear_error(
        idea: IdeaEnv, agents: Agents) -> None:
    created = agents.new("Lost", "fake")
    Path(created["path"]).unlink()
    for where in ((), ("--background",), ("-t", idea.cells()[0]["target"], "-f")):
        message = fails(idea, "agent", "launch", "Lost", *where)
        assert "persona" in message and created["path"] in message, message
    cells = idea.cells()
    assert len(cells) == 1 and cells[0]["running"], "the shell was left alone"
    assert agents.info("Lost")["state"] == "stopped"
    assert not (agents.ideai / "run" / created["id"] / "report.json").exists()
    assert_alive(idea)


@pytest.mark.parametrize("target", ["../CLAUDE.md", "notes/../../CLAUDE.md", "/tmp/CLAUDE.md"])
def test_an_injection_target_outside_the_run_dir_is_refused(
        idea: IdeaEnv, agents: Agents, target: str) -> None:
    profile = fake_profile("escape", "conventionFile")
    profile["contextInjection"]["target"] = target
    path = idea.root / "escape.json"
    path.write_text(json.dumps(profile))
    kept = snapshot([agents.profiles_json])
    message = fails(idea, "profile", "add", str(path))
    assert "contextInjection.target" in message and target in message
    assert re.search(r"must not contain '\.\.'|must be relative", message), message
    assert snapshot([agents.profiles_json]) == kept
    assert "escape" not in {p["id"] for p in idea.json("profile", "list")["profiles"]}
    # Nor through `idea profile edit --file`.
    assert "contextInjection.target" in fails(idea, "profile", "edit", "escape", "--file",
                                              str(path))
    assert snapshot([agents.profiles_json]) == kept
