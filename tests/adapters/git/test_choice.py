"""The git program where it exists, dulwich where it does not (D16)."""

from __future__ import annotations

from adapters.git import open_git


def test_git_program_when_installed() -> None:
    assert open_git({}, which=lambda name: "/usr/bin/git").name == "git"


def test_dulwich_when_git_is_missing() -> None:
    assert open_git({}, which=lambda name: None).name == "dulwich"
