"""The daemon in the test process (a thread), and the CLI run in-process against it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from idea_tui import cli
from tests.helpers.daemon import InProcessDaemon
from tests.helpers.idea import PROMPT


@pytest.fixture
def daemon(tmp_path: Path, test_shell: Path,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[InProcessDaemon]:
    # Cells inherit the daemon's environment, here the test process's: a plain shell.
    home = tmp_path / "u"
    home.mkdir()
    for name, value in (("SHELL", str(test_shell)), ("HOME", str(home)), ("PS1", PROMPT),
                        ("IDEA_HOME", str(tmp_path / "h"))):
        monkeypatch.setenv(name, value)
    server = InProcessDaemon(tmp_path / "h").start()
    try:
        yield server
    finally:
        server.stop()


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        assert self.code == 0, self.err
        return json.loads(self.out)


CliRunner = Callable[..., CliResult]


@pytest.fixture
def run_cli(daemon: InProcessDaemon, capsys: pytest.CaptureFixture[str]) -> Iterator[CliRunner]:
    """`run_cli("split", "-h")`: `idea_tui.cli.main` in this process, against `daemon`."""
    def run(*argv: str) -> CliResult:
        capsys.readouterr()
        try:
            code = cli.main(list(argv))
        except SystemExit as exc:  # argparse: usage errors, --help
            code = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    yield run
