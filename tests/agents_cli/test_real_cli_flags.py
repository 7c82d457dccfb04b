"""Every flag and subcommand the built-in profiles rely on exists in the installed CLI.

The words come from the catalogue itself (args, the context-injection flag, the session
templates, the MCP flag), so editing a profile is checked too. A CLI release that renames
one of them fails here, loudly, instead of silently in a user's cell. Skipped for a CLI that
is not installed (tests/agents_cli/clis.py).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from adapters.agents.catalogue import builtin_profiles
from tests.agents_cli.clis import require_cli, run, scratch_env


def _flag_words(block: dict[str, Any] | None) -> list[str]:
    if block is None or block.get("strategy") != "flag":
        return []
    return shlex.split(block["flag"])


def options(words: list[str]) -> list[str]:
    """`--name` / `-c` of each option word (`--x=1` counts as `--x`)."""
    return [word.split("=", 1)[0] for word in words if word.startswith("-")]


def launch_words(profile: dict[str, Any]) -> list[str]:
    """The words every launch adds, whatever its session mode."""
    mcp = profile.get("mcp") or {}
    return [*profile["args"], *_flag_words(profile["contextInjection"]),
            *_flag_words(mcp.get("config"))]


def subcommand(words: list[str]) -> str | None:
    """A leading plain word (Codex's `resume`) is a subcommand."""
    first = words[0] if words else ""
    return first if first and not first.startswith("-") and "{" not in first else None


def mentions(help_text: str, option: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", help_text) is not None


def help_of(cli: Path, words: list[str], home: Path) -> str:
    done = run([cli, *words, "--help"], env=scratch_env(home), cwd=home)
    assert done.returncode == 0, f"{cli.name} {' '.join(words)} --help failed:\n{done.stderr}"
    return done.stdout


PROFILES = {profile["id"]: profile for profile in builtin_profiles()}


@pytest.mark.parametrize("profile_id", list(PROFILES))
def test_every_flag_the_profile_uses_is_in_the_help(profile_id: str, tmp_path: Path) -> None:
    profile = PROFILES[profile_id]
    cli = require_cli(profile["command"])
    root_help = help_of(cli, [], tmp_path)
    session = profile.get("session") or {}
    missing = []
    for mode in ("startArgs", "resumeArgs"):
        words = list(session.get(mode, []))
        sub = subcommand(words)
        if sub is None:
            checked_in, text = "--help", root_help
            wanted = options(words + launch_words(profile))
        else:
            # e.g. `codex resume ID -c ...`: the launch's own options go to the subcommand.
            if not re.search(rf"^\s+{re.escape(sub)}\b", root_help, re.MULTILINE):
                missing.append(f"subcommand {sub!r} (not in `{cli.name} --help`)")
            checked_in, text = f"{sub} --help", help_of(cli, [sub], tmp_path)
            wanted = options(words[1:] + launch_words(profile))
        missing += [f"{option} (in `{cli.name} {checked_in}`, {mode})"
                    for option in dict.fromkeys(wanted) if not mentions(text, option)]
    assert not missing, f"{profile_id}: the installed {cli.name} lacks " + "; ".join(missing)


@pytest.mark.parametrize("profile_id", list(PROFILES))
def test_detect_command_succeeds(profile_id: str, tmp_path: Path) -> None:
    profile = PROFILES[profile_id]
    cli = require_cli(profile["command"])
    detect = shlex.split(profile["detect"])
    assert detect[0] == profile["command"]
    done = run([cli, *detect[1:]], env=scratch_env(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(r"\d+\.\d+\.\d+", done.stdout), done.stdout
