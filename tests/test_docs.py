"""The documentation cannot drift from the code: keys, commands, paths and the test command.

- docs/keys.md is exactly what docs/gen_keys.py renders from `idea_tui.keymap.ACTIONS`.
- docs/cli.md has a section for every subcommand of `idea_tui.cli.build_parser()` (nested
  ones and aliases included) naming each of its options (in one of its spellings) and
  arguments, and no section for a command that does not exist.
- Every repository path the docs mention in backticks exists.
- The README's quick start has exactly two commands and `.ci/run` runs the second one.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from idea_tui.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
CI_RUN = ROOT / ".ci" / "run"
TOP_LEVEL = (
    "core/",
    "adapters/",
    "idea_daemon/",
    "idea_tui/",
    "tests/",
    "bench/",
    "docs/",
    "snapshots/",
    ".ci/",
)


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_keys", DOCS / "gen_keys.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_keys_md_matches_the_key_table() -> None:
    expected = _load_generator().render()
    actual = (DOCS / "keys.md").read_text(encoding="utf-8")
    assert actual == expected, "docs/keys.md is out of date: run python docs/gen_keys.py"


def test_keys_md_names_every_action() -> None:
    from idea_tui.keymap import ACTIONS

    text = (DOCS / "keys.md").read_text(encoding="utf-8")
    missing = [action.name for action in ACTIONS if f"`{action.name}`" not in text]
    assert not missing


# ─── cli.md ─────────────────────────────────────────────────────────────────────────────


def _commands(
    parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ("idea",)
) -> Iterator[tuple[tuple[str, ...], list[str], argparse.ArgumentParser]]:
    """(command path, aliases, parser) for every subcommand, depth first."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        names: dict[int, list[str]] = {}
        parsers: dict[int, argparse.ArgumentParser] = {}
        for name, sub in action.choices.items():  # a command's own name comes before aliases
            names.setdefault(id(sub), []).append(name)
            parsers[id(sub)] = sub
        for key, (name, *aliases) in names.items():
            path = (*prefix, name)
            yield path, aliases, parsers[key]
            yield from _commands(parsers[key], path)


def _sections(text: str) -> dict[str, str]:
    """Heading `` `idea …` `` → the text up to the next heading."""
    sections: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        heading = re.match(r"^#{2,6} `(idea[^`]*)`\s*$", line)
        if heading:
            current = heading.group(1)
            sections[current] = ""
        elif line.startswith("#"):
            current = None
        elif current is not None:
            sections[current] += line + "\n"
    return sections


def _mentions(section: str, word: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", section, re.IGNORECASE) is not None


def test_cli_md_documents_every_subcommand_and_option() -> None:
    sections = _sections((DOCS / "cli.md").read_text(encoding="utf-8"))
    problems = []
    commands = list(_commands(build_parser()))
    assert len(commands) > 20
    for path, aliases, parser in commands:
        name = " ".join(path)
        section = sections.get(name)
        if section is None:
            problems.append(f"no section headed `{name}`")
            continue
        for alias in aliases:
            if not _mentions(section, alias):
                problems.append(f"{name}: alias {alias} not mentioned")
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            if action.option_strings:
                # One spelling is enough: `-t TARGET` stands for `--target TARGET` too.
                if not any(_mentions(section, o) for o in action.option_strings):
                    spellings = ", ".join(action.option_strings)
                    problems.append(f"{name}: option {spellings} not mentioned")
            else:
                word = action.metavar if isinstance(action.metavar, str) else action.dest
                if not _mentions(section, word):
                    problems.append(f"{name}: argument {word} not mentioned")
    assert not problems, "docs/cli.md is behind idea_tui/cli.py:\n" + "\n".join(problems)


def test_cli_md_has_no_section_for_a_command_that_does_not_exist() -> None:
    sections = _sections((DOCS / "cli.md").read_text(encoding="utf-8"))
    known = {" ".join(path) for path, _aliases, _parser in _commands(build_parser())}
    assert set(sections) - known == set()


def test_cli_md_lists_every_send_keys_name() -> None:
    from core.keys import _TMUX_NAMES

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    table = text[text.index("## Key names for send-keys") :]
    shown = {name.lower() for name in re.findall(r"`([^`]+)`", table)}
    ranges = {"f1", "f24", "kp0", "kp9"}  # written as ranges: `F1` .. `F24`, `KP0`..`KP9`
    missing = [
        name
        for name in _TMUX_NAMES
        if name not in shown and not (re.fullmatch(r"f\d+|kp\d", name) and ranges <= shown)
    ]
    assert not missing


# ─── paths and the README ──────────────────────────────────────────────────────────────


def _documents() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def test_paths_named_in_the_docs_exist() -> None:
    missing = []
    for document in _documents():
        for token in re.findall(r"`([^`\s]+)`", document.read_text(encoding="utf-8")):
            path = token.rstrip(".,:;")
            concrete = path.startswith(TOP_LEVEL) and "*" not in path and "<" not in path
            if concrete and not (ROOT / path).exists():
                missing.append(f"{document.name}: {path}")
    assert not missing


def _quick_start_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    start = text.index("## Quick start")
    end = text.index("\n## ", start + 1)
    blocks = re.findall(r"```(?:sh|bash|console)?\n(.*?)```", text[start:end], re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_readme_quick_start_has_two_commands_and_ci_runs_the_second() -> None:
    commands = _quick_start_commands()
    assert len(commands) == 2, commands
    install, test = commands
    assert "pip install" in install and "idea" in install
    for tool in ("pytest", "ruff check", "mypy"):
        assert tool in test
    assert test in CI_RUN.read_text(encoding="utf-8"), ".ci/run must run the README's command"
