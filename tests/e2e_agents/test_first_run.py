"""The first-run rule as far as the command line goes (FRW): on a fresh IDEA_HOME the profiles
are not configured, and no subcommand writes profiles.json by itself — only saving profiles
(`idea profile add`/`edit`) does."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.e2e_agents.helpers import Agents, fake_profile
from tests.helpers.idea import IdeaEnv

pytestmark = pytest.mark.e2e


def test_no_subcommand_writes_profiles_json_by_itself(idea: IdeaEnv) -> None:
    profiles = idea.locations.data / "profiles.json"
    listed = idea.json("profile", "list")
    assert listed["configured"] is False
    ids = {profile["id"] for profile in listed["profiles"]}
    assert {"claude-code", "codex"} <= ids, "the built-in catalogue is offered"
    assert {profile["source"] for profile in listed["profiles"]} == {"built-in"}
    assert not profiles.exists()

    project = idea.new_project("proj")
    agents = Agents(idea, project)
    for command in (
        ("profile", "list"), ("profile", "detect"), ("profile", "detect", "--json"),
        ("ls",), ("list-cells",), ("template", "list"), ("template", "install-pack"),
        ("agent", "list"), ("agent", "new", "Dev", "--template", "developer"),
        ("agent", "new", "Plain"), ("agent", "set-profile", "Plain", "codex"),
        ("agent", "rename", "Plain", "Simple"), ("agent", "resume", "--list"),
        ("agent", "resume"),
    ):
        idea.run(*command)
        assert not profiles.exists(), f"`idea {' '.join(command)}` wrote profiles.json"
    # Launching an agent does not configure anything either; it fails where its CLI is
    # missing (under .ci/run the pinned claude and codex are on PATH, so it starts).
    for name, cli in (("Dev", "claude"), ("Simple", "codex")):
        expected = 1 if shutil.which(cli) is None else 0
        args = ("agent", "launch", name, "--background")
        assert idea.run(*args, check=False).returncode == expected
    assert not profiles.exists()
    assert idea.json("profile", "list")["configured"] is False
    assert {a["profileId"] for a in agents.list()} == {"claude-code", "codex"}

    # Saving a profile is what configures them.
    agents.add_profile(fake_profile("fake", "flag"))
    assert profiles.exists()
    listed = idea.json("profile", "list")
    assert listed["configured"] is True
    sources = {profile["id"]: profile["source"] for profile in listed["profiles"]}
    assert sources["fake"] == "configured" and sources["claude-code"] == "built-in"
    saved = json.loads(profiles.read_text())
    assert [profile["id"] for profile in saved["profiles"]] == ["fake"]
