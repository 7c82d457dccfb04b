"""The installed CLIs still print the rate-limit messages the profiles' patterns expect.

A provider limit cannot be triggered offline, so the check reads the message templates in
the CLIs' own code (the bundled JavaScript of Claude Code and Gemini, Codex's native binary,
Aider's Python package). test_catalogue.py matches the patterns against messages built from
these same templates. A CLI that rewords its message fails here rather than leaving idea
blind to a rate limit.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.agents_cli.clis import require_cli


def contains_all(files: list[Path], needles: list[bytes]) -> list[bytes]:
    """The needles found in none of `files` (each file read in 64 MiB blocks)."""
    missing = set(needles)
    overlap = max(len(n) for n in needles)
    for path in files:
        tail = b""
        with path.open("rb") as file:
            while missing and (block := file.read(64 << 20)):
                window = tail + block
                missing -= {n for n in missing if n in window}
                tail = window[-overlap:]
    return sorted(missing)


def package_root(cli: Path, marker: str) -> Path:
    """The npm package folder holding a CLI launcher (`.bin/claude` → …/claude-code)."""
    for folder in cli.resolve().parents:
        if (folder / "package.json").is_file() and marker in folder.name:
            return folder
    pytest.skip(f"{cli} is not an npm install; its code is not where this test looks")


def test_claude_code_limit_message(tmp_path: Path) -> None:
    cli = require_cli("claude")
    binaries = [p for p in package_root(cli, "claude-code").rglob("*")
                if p.is_file() and p.stat().st_size > 10 << 20]
    # "You've hit your ${kind}${" · resets 3:40am"}": the middle dot is escaped in the bundle.
    missing = contains_all(binaries, [b"You've hit your ", b" \\xB7 resets ${"])
    assert not missing, f"claude no longer carries {missing}"


def test_codex_limit_message() -> None:
    cli = require_cli("codex")
    root = package_root(cli, "codex").parent  # @openai/, next to the platform package
    binaries = [p for p in root.glob("codex*/vendor/*/bin/codex") if p.is_file()]
    assert binaries, f"no native codex binary under {root}"
    missing = contains_all(binaries, [b"ve hit your usage limit", b"try again at "])
    assert not missing, f"codex no longer carries {missing}"


def test_gemini_limit_message() -> None:
    cli = require_cli("gemini")
    bundle = [p for p in (package_root(cli, "gemini-cli") / "bundle").rglob("*.js")]
    missing = contains_all(bundle, [b"Usage limit reached for ", b"Access resets at ",
                                    b"You have exhausted your daily quota"])
    assert not missing, f"gemini no longer carries {missing}"


def test_aider_limit_message() -> None:
    cli = require_cli("aider")
    done = subprocess.run([str(cli.parent / "python"), "-c",
                           "import aider.exceptions, pathlib; "
                           "print(pathlib.Path(aider.exceptions.__file__).read_text())"],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        pytest.skip(f"aider's own Python is not next to {cli}: {done.stderr.strip()[-200:]}")
    assert "The API provider has rate limited you" in done.stdout
