"""Dependency direction, checked rather than hoped for (ARCHITECTURE.md, CONVENTIONS.md 1).

- The daemon never loads Textual or Rich: importing its entry points in a fresh interpreter
  leaves them out of `sys.modules`.
- `core` is pure: importing every core module loads nothing of adapters, idea_tui,
  idea_daemon, nor any third-party library except msgspec, nor subprocess or asyncio.
- `idea --help` (and the one-shot commands' parser) does not load Textual, so it starts fast.
- Statically, no module under core/ imports from adapters, idea_tui or idea_daemon, and
  core imports only the standard library, msgspec and core itself.

Fresh interpreters matter: in the test process, other tests have long since imported
everything.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "core"
PROJECT_PACKAGES = ("adapters", "idea_tui", "idea_daemon")
GUI_PACKAGES = ("textual", "rich")
CORE_ALLOWED_THIRD_PARTY = ("msgspec",)
# Third-party packages idea depends on: none may be loaded by core (msgspec aside).
THIRD_PARTY = ("textual", "rich", "pyte", "wcwidth", "ptyprocess", "markdown_it", "pygments")


def _core_modules() -> list[str]:
    modules = []
    for path in sorted(CORE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules.append(".".join(parts))
    return modules


def _loaded_after(code: str) -> set[str]:
    """Top-level names of the modules in `sys.modules` after running `code` in a fresh
    interpreter (with site-packages, as the installed `idea` runs)."""
    probe = (
        "import sys, json\n"
        f"{code}\n"
        "print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize(
    "module", ["idea_daemon.main", "idea_daemon.bootstrap", "idea_daemon.service"]
)
def test_daemon_never_loads_textual_or_rich(module: str) -> None:
    loaded = _loaded_after(f"import {module}")
    assert module.split(".")[0] in loaded  # the probe did import it
    assert loaded.isdisjoint(GUI_PACKAGES), sorted(loaded & set(GUI_PACKAGES))


def test_daemon_composition_root_builds_without_textual(tmp_path: Path) -> None:
    """Building the whole daemon (every command module registered) loads no Textual."""
    code = (
        "from adapters.locations import locate\n"
        "from idea_daemon.bootstrap import build\n"
        f"build(locate({{'IDEA_HOME': {str(tmp_path)!r}}}))\n"
    )
    loaded = _loaded_after(code)
    assert loaded.isdisjoint(GUI_PACKAGES), sorted(loaded & set(GUI_PACKAGES))


def test_core_loads_no_other_layer_and_no_third_party_but_msgspec() -> None:
    imports = "".join(f"import {module}\n" for module in _core_modules())
    loaded = _loaded_after(imports)
    forbidden = set(PROJECT_PACKAGES) | set(THIRD_PARTY) | {"subprocess", "asyncio"}
    assert loaded.isdisjoint(forbidden), sorted(loaded & forbidden)


@pytest.mark.parametrize("module", ["core.keys", "core.layout.ops", "core.targets"])
def test_single_core_modules_load_no_other_layer(module: str) -> None:
    loaded = _loaded_after(f"import {module}")
    assert loaded.isdisjoint(PROJECT_PACKAGES), sorted(loaded & set(PROJECT_PACKAGES))


def test_idea_help_does_not_load_textual() -> None:
    code = (
        "import contextlib, io\n"
        "from idea_tui.cli import build_parser, main\n"
        "build_parser()\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['split', '--help'])\n"
    )
    loaded = _loaded_after(code)
    assert "idea_tui" in loaded
    assert loaded.isdisjoint(GUI_PACKAGES), sorted(loaded & set(GUI_PACKAGES))


def test_idea_help_binary_prints_usage() -> None:
    """The installed entry point answers --help (and so starts at all) without a daemon."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from idea_tui.cli import main; sys.exit(main())",
            "--help",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "usage: idea" in done.stdout


# ─── static check of core's imports ────────────────────────────────────────────────────


def _imported_names(path: Path) -> list[tuple[int, str]]:
    """(line, top-level module) for every absolute import in a file, nested ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name.split(".")[0]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def test_core_source_imports_no_other_layer() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in sorted(CORE.rglob("*.py"))
        for line, name in _imported_names(path)
        if name in PROJECT_PACKAGES
    ]
    assert not offenders


def test_core_source_imports_only_stdlib_msgspec_and_core() -> None:
    allowed = set(sys.stdlib_module_names) | set(CORE_ALLOWED_THIRD_PARTY) | {"core"}
    offenders = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in sorted(CORE.rglob("*.py"))
        for line, name in _imported_names(path)
        if name not in allowed or name in ("subprocess", "asyncio")
    ]
    assert not offenders


def test_core_modules_found() -> None:
    """Guard against the checks above passing on an empty list."""
    modules = _core_modules()
    assert "core.layout.ops" in modules and "core.keys" in modules
