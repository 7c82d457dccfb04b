"""The pieces that find first-time imports on the loop: the audit-hook watcher and the
watchdog's description of a stack caught inside an import."""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from idea_daemon.late_imports import shared
from idea_daemon.watchdog import describe_stack


@pytest.fixture
def modules(tmp_path: Path) -> Iterator[Path]:
    """A folder on sys.path for modules nobody imported yet."""
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name.startswith("lateimp_")]:
            del sys.modules[name]


def test_imports_on_the_armed_thread_are_noted_and_others_not(modules: Path) -> None:
    (modules / "lateimp_here.py").write_text("X = 1\n")
    (modules / "lateimp_there.py").write_text("X = 2\n")
    late = shared()
    late.arm()
    try:
        # `__import__` is what an import statement runs (importlib.import_module is not
        # audited: see the module's docstring).
        worker = threading.Thread(target=__import__, args=("lateimp_there",))
        worker.start()
        worker.join()
        __import__("lateimp_here")
        __import__("lateimp_here")  # already imported: no second note
        noted = late.take(reset=True)
    finally:
        late.disarm()
    assert noted == ["lateimp_here"]
    assert late.take() == []


def test_a_stack_caught_inside_a_first_import_names_the_module_and_who_asked(
        modules: Path) -> None:
    (modules / "lateimp_slow.py").write_text(
        "import sys\n"
        "from idea_daemon.watchdog import describe_stack\n"
        "SEEN = describe_stack(sys._getframe())\n")

    def handler_that_imports_lazily() -> str:
        module = importlib.import_module("lateimp_slow")
        seen: str = module.SEEN
        return seen

    seen = handler_that_imports_lazily()
    assert seen.startswith("importing lateimp_slow (first time), asked by:")
    assert "handler_that_imports_lazily" in seen
    assert "<frozen" not in seen


def test_a_stack_outside_imports_is_its_innermost_frames() -> None:
    def inner() -> str:
        return describe_stack(sys._getframe())

    seen = inner()
    assert "importing" not in seen
    assert seen.rstrip().splitlines()[-2].strip().endswith("in inner")
