"""Dependency direction, checked rather than hoped for (ARCHITECTURE.md, CONVENTIONS.md 1).

- The daemon never loads Textual or Rich: importing its entry points in a fresh interpreter
  leaves them out of `sys.modules`.
- `core` is pure: importing every core module loads nothing of adapters, idea_tui,
  idea_daemon, nor any third-party library except msgspec, nor subprocess or asyncio.
- `idea --help` (and the one-shot commands' parser) does not load Textual, so it starts fast.
- Statically, no module under core/ imports from adapters, idea_tui or idea_daemon, and
  core imports only the standard library, msgspec and core itself.
- Both ways between client and daemon: the client (idea_tui) never imports the daemon nor
  the low-level adapters (PTY, emulator, stores, agent catalogue) — it talks to the daemon
  through its gateway/control only; adapters never import the daemon or the client.
- The agent and workspace stores are ports: in the daemon only the composition root
  (`idea_daemon/bootstrap.py`) imports their concrete classes; the services type against
  `adapters.store.ports` / `idea_daemon.ports` and get the stores passed in.
- No import cycle among the project's modules (deferred and TYPE_CHECKING imports count:
  a cycle hidden behind them is still two modules that cannot be understood apart).

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
THIRD_PARTY = ("textual", "rich", "pyte", "wcwidth", "markdown_it", "pygments", "dulwich",
               "merge3", "watchdog")


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


# ─── boundaries between the client, the daemon and the adapters ─────────────────────────

# What the client may use of the adapters: the wire format, where files are, its settings.
CLIENT_FORBIDDEN = ("idea_daemon", "adapters.pty", "adapters.emulator", "adapters.store",
                    "adapters.agents")
ADAPTERS_FORBIDDEN = ("idea_daemon", "idea_tui")


def _package_files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) for every absolute import in a file, nested ones included
    (`from a.b import c` gives both `a.b` and `a.b.c`: c may be a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
    return found


def _within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes)


def _offenders(package: str, forbidden: tuple[str, ...]) -> list[str]:
    return sorted({
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in _package_files(package)
        for line, module in _imported_modules(path)
        if _within(module, forbidden)
    })


def test_client_source_imports_neither_the_daemon_nor_low_level_adapters() -> None:
    assert not _offenders("idea_tui", CLIENT_FORBIDDEN)


def test_adapters_source_import_neither_the_daemon_nor_the_client() -> None:
    assert not _offenders("adapters", ADAPTERS_FORBIDDEN)


def test_boundary_check_sees_nested_imports(tmp_path: Path) -> None:
    """The static check is not blind to imports inside functions (how the old client
    reached the PTY adapter and the daemon)."""
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from adapters.pty.environment import X\n"
                      "    import idea_daemon.main\n")
    found = [module for _, module in _imported_modules(sample)]
    assert [m for m in found if _within(m, CLIENT_FORBIDDEN)] == [
        "adapters.pty.environment", "adapters.pty.environment.X", "idea_daemon.main"]


def _modules_loaded_after(code: str) -> set[str]:
    """Full dotted names in `sys.modules` after running `code` in a fresh interpreter."""
    probe = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize(
    "module", ["idea_tui.app", "idea_tui.attach", "idea_tui.cli", "idea_tui.screens.flows"]
)
def test_client_loads_neither_the_daemon_nor_low_level_adapters(module: str) -> None:
    loaded = _modules_loaded_after(f"import {module}")
    assert module in loaded
    assert not sorted(m for m in loaded if _within(m, CLIENT_FORBIDDEN))


# The concrete stores behind the ports of `adapters.store.ports` and `idea_daemon.ports`.
PORTED_STORES = tuple(
    f"adapters.store.{module}.{name}" for module, name in (
        ("agents_codec", "AgentStore"), ("agents_codec", "PersonaStore"),
        ("profiles_codec", "ProfileStore"), ("templates_store", "TemplateStore"),
        ("background_store", "BackgroundStore"), ("layouts_codec", "LayoutStore"),
        ("project_codec", "ProjectStore"), ("workspace_codec", "WorkspaceStore"),
        ("registry", "ProjectRegistry"),
    ))
COMPOSITION_ROOT = ROOT / "idea_daemon" / "bootstrap.py"


def test_only_the_composition_root_builds_the_ported_stores() -> None:
    offenders = sorted({
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in _package_files("idea_daemon") if path != COMPOSITION_ROOT
        for line, module in _imported_modules(path)
        if module in PORTED_STORES
    })
    assert not offenders
    # The check sees the root's own imports (it is not blind to the names it looks for).
    assert {module for _, module in _imported_modules(COMPOSITION_ROOT)} >= set(PORTED_STORES)


def test_background_json_is_written_only_by_its_store() -> None:
    """`.ideai/run/background.json` is read and written through its store, never by hand."""
    offenders = [
        str(path.relative_to(ROOT))
        for package in ("idea_daemon", "idea_tui", "adapters")
        for path in _package_files(package)
        if path.name != "background_store.py"
        and "background.json\"" in path.read_text(encoding="utf-8")
    ]
    assert not offenders


# ─── import cycles ─────────────────────────────────────────────────────────────────────


def _project_modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package in ("core", *PROJECT_PACKAGES):
        for path in _package_files(package):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the project modules it imports (any import, anywhere in the file)."""

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        targets: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.update(filter(None, (resolve(a.name) for a in node.names)))
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    kept = package[: len(package) - (node.level - 1)]
                    base = ".".join([*kept, base] if base else kept)
                for alias in node.names:
                    target = resolve(f"{base}.{alias.name}") or resolve(base)
                    if target is not None:
                        targets.add(target)
        targets.discard(name)
        graph[name] = targets
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles() -> None:
    graph = _import_graph(_project_modules())
    assert "idea_daemon.agents" in graph and "idea_tui.app" in graph
    assert _cycles(graph) == []


def test_cycle_detection_finds_a_cycle_through_type_checking_imports(tmp_path: Path) -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "one.py").write_text("from p.two import X\n")
    (tmp_path / "p" / "two.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p import one\n")
    modules = {"p.one": tmp_path / "p" / "one.py", "p.two": tmp_path / "p" / "two.py"}
    assert _cycles(_import_graph(modules)) == [["p.one", "p.two"]]


# ─── what attaching loads before its first frame ───────────────────────────────────────

# Deferred because the first frame does not need them (issue 7: attach in ≤ 0.2 s; the
# figure itself is measured by bench/bench_startup.py): the other subcommands' modules and
# the full command table, the log file's rotating handler (set up after the first frame),
# TOML (only read when a config file exists), hashlib (only for an over-long socket path)
# and wcwidth (only for characters beyond printable ASCII).
NOT_BEFORE_FIRST_FRAME = ("idea_tui.cli_agents", "idea_tui.cli_cells", "logging.handlers",
                          "tomllib", "hashlib", "wcwidth")


def test_attaching_loads_only_what_the_first_frame_needs(tmp_path: Path) -> None:
    code = (
        "import os\n"
        f"os.environ['IDEA_HOME'] = {str(tmp_path)!r}\n"
        "from idea_tui.cli import parse\n"
        "args = parse(['attach'])\n"
        "assert args.run.__name__ == 'cmd_attach'\n"
        "from adapters.config import load_config\n"
        "from adapters.locations import locate\n"
        "load_config(locate().config_file)\n"
        "locate().socket\n"
        "import idea_tui.attach, idea_tui.app\n"
        "from idea_tui.widgets.row_render import RowRenderer, fit_text\n"
        "RowRenderer()\n"
        "fit_text('user@host:~/src$ ls -la')\n"
    )
    loaded = _modules_loaded_after(code)
    assert "idea_tui.app" in loaded and "textual.app" in loaded
    assert not sorted(loaded & set(NOT_BEFORE_FIRST_FRAME))


def test_plain_idea_and_idea_path_take_the_attach_path_without_the_command_table() -> None:
    from idea_tui.cli import attach_args

    assert attach_args([]) is not None
    assert attach_args(["a", "-w", "main"]) is not None
    assert attach_args([".", "-f"]) is not None
    assert attach_args(["attach", "--help"]) is None  # the full parser prints the help
    assert attach_args(["ls"]) is None


# The early frame of an attach (idea_tui.early_attach) is painted before these load: the app
# (Textual, Rich), asyncio (only the app's gateway uses it), the command table (only checked
# parameters need it), logging and subprocess (only for the log file and a daemon's start).
NOT_BEFORE_EARLY_FRAME = ("textual", "rich", "asyncio", "adapters.ipc.commands", "logging",
                          "subprocess", "idea_tui.app", "idea_tui.gateway",
                          # What the first frame no longer waits for: msgspec (and the
                          # uuid, platform, inspect, typing_extensions it loads), the
                          # command line's argparse, the control client, the settings'
                          # msgspec Structs (without a settings file), typing, dataclasses.
                          "msgspec", "uuid", "platform", "inspect", "typing_extensions",
                          "argparse", "idea_tui.cli", "idea_tui.control", "adapters.config",
                          "adapters.ipc.messages", "adapters.ipc.framing", "typing",
                          "dataclasses", "core.terminal", "unicodedata")


def test_the_early_frame_is_painted_before_textual_msgspec_or_asyncio_load(
        tmp_path: Path) -> None:
    from adapters.ipc import framing
    from adapters.ipc.messages import CellFrame, CellInfo, PageInfo, Scene, TabInfo

    scene = framing.encode(Scene(
        window="main", windows=[], tabs=[TabInfo("p", "proj", "/p", True)],
        pages=[PageInfo("a", "Default", active=True)], width=40, height=10,
        cells=[CellInfo("c", 0, 0, 0, 40, 10, command="bash", focused=True)], borders=[]))[4:]
    frame = framing.encode(CellFrame(cell="c", cols=40, rows=9, full=True,
                                     cursor=(5, 0, True, 0),
                                     lines=[(0, (("user$ ", 2, -1, 1),))]))[4:]
    code = (
        "import os\n"
        f"os.environ['IDEA_HOME'] = {str(tmp_path)!r}\n"
        "import idea_tui.entry\n"
        "from idea_tui import attach, early_attach\n"
        "from adapters.locations import locate\n"
        "attach._settings(locate())\n"
        "from adapters.ipc import msgpack_lite\n"
        "frame = early_attach.EarlyFrame()\n"
        f"frame.watch(msgpack_lite.decode({scene!r}))\n"
        f"frame.watch(msgpack_lite.decode({frame!r}))\n"
        "assert frame.complete() and frame.drawable()\n"
        "from idea_tui.first_paint import Painter\n"
        "assert frame.scene is not None\n"
        "painted = Painter(frame.scene, frame.screens, 40, 12, '256').paint()\n"
        "assert '0:proj' in painted and '0 bash' in painted, painted\n"
    )
    loaded = _modules_loaded_after(code)
    assert "idea_tui.first_paint" in loaded and "adapters.ipc.msgpack_lite" in loaded
    assert not sorted(m for m in loaded if _within(m, NOT_BEFORE_EARLY_FRAME))
