"""A client reads and writes an agent's persona and asks about a folder only through the
daemon (issue 7): the project may live on another machine than the client.

`agent_persona_read` gives the text and a revision; `agent_persona_write` with the revision
it started from asks for a confirmation (code "confirm") when the file changed meanwhile and
leaves the file alone; with `force` it writes. `idea agent edit` edits a copy and saves it
through the daemon. `project_probe` tells a folder that is a project from one that is not.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from idea_tui.control import CommandFailed, ControlClient
from tests.e2e_agents.helpers import Agents, fake_profile
from tests.helpers.idea import IdeaEnv

pytestmark = pytest.mark.e2e


@pytest.fixture
def agents(idea: IdeaEnv) -> Agents:
    team = Agents(idea, idea.new_project("proj"))
    team.add_profile(fake_profile("fake", "flag"))
    return team


def test_persona_read_and_write_go_through_the_daemon(idea: IdeaEnv, agents: Agents) -> None:
    dev = agents.new("Dev", "fake")
    persona = Path(dev["path"])
    with ControlClient.connect(idea.locations) as client:
        shown = client.call("agent_persona_read", project="proj", agent="Dev")
        assert shown["path"] == str(persona) and shown["exists"] is True
        assert shown["content"] == persona.read_text(encoding="utf-8")
        written = client.call("agent_persona_write", project="proj", agent="Dev",
                              content="# Dev\n\nnew text\n", revision=shown["revision"])
        assert written["changed"] is True
        assert persona.read_text(encoding="utf-8") == "# Dev\n\nnew text\n"

        # Changed on disk since the read (a sync, another editor): asked, never overwritten.
        persona.write_text("# Dev\n\nsynced meanwhile\n", encoding="utf-8")
        with pytest.raises(CommandFailed) as refused:
            client.call("agent_persona_write", project="proj", agent="Dev",
                        content="# Dev\n\nmine\n", revision=written["revision"])
        assert refused.value.code == "confirm" and "changed on disk" in str(refused.value)
        assert persona.read_text(encoding="utf-8") == "# Dev\n\nsynced meanwhile\n"
        client.call("agent_persona_write", project="proj", agent="Dev",
                    content="# Dev\n\nmine\n", revision=written["revision"], force=True)
        assert persona.read_text(encoding="utf-8") == "# Dev\n\nmine\n"

        with pytest.raises(CommandFailed) as bad:
            client.call("agent_persona_write", project="proj", agent="Dev", content=7)
        assert "content" in str(bad.value)


def _editor(path: Path, body: str) -> str:
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_idea_agent_edit_saves_the_edited_copy_through_the_daemon(
        idea: IdeaEnv, agents: Agents, tmp_path: Path) -> None:
    dev = agents.new("Dev", "fake")
    persona = Path(dev["path"])
    before = persona.read_text(encoding="utf-8")
    idea.env["EDITOR"] = _editor(tmp_path / "append", 'echo "- small commits" >> "$1"')
    idea.env.pop("VISUAL", None)
    done = idea.run("agent", "edit", "Dev", "-p", "proj")
    assert f"saved {persona}" in done.stdout
    assert persona.read_text(encoding="utf-8") == before + "- small commits\n"

    # The file changes while the editor is open: nothing saved unless -f.
    idea.env["EDITOR"] = _editor(
        tmp_path / "race", f'echo meanwhile > "{persona}"\necho mine >> "$1"')
    refused = idea.run("agent", "edit", "Dev", "-p", "proj", check=False)
    assert refused.returncode == 1 and "changed on disk" in refused.stderr
    assert persona.read_text(encoding="utf-8") == "meanwhile\n"
    idea.run("agent", "edit", "Dev", "-p", "proj", "-f")
    assert persona.read_text(encoding="utf-8").endswith("mine\n")


def test_project_probe_tells_a_project_from_a_plain_folder(idea: IdeaEnv) -> None:
    project = idea.new_project("proj")
    plain = idea.root / "plain"
    plain.mkdir()
    with ControlClient.connect(idea.locations) as client:
        assert client.call("project_probe", path=str(project)) == {
            "root": str(project), "directory": True, "registered": True,
            "hasProjectFile": True, "open": True}
        assert client.call("project_probe", path=str(plain) + "/") == {
            "root": str(plain), "directory": True, "registered": False,
            "hasProjectFile": False, "open": False}
        missing = client.call("project_probe", path=os.path.join(idea.root, "missing"))
        assert missing["directory"] is False and missing["hasProjectFile"] is False
        with pytest.raises(CommandFailed) as relative:
            client.call("project_probe", path="relative/path")
        assert "absolute" in str(relative.value)
