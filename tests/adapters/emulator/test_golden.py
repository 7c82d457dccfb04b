"""Golden streams recorded from real programs, checked against what tmux showed for them.

tests/fixtures/emulator/NAME.bin holds the bytes a program wrote (see `record_fixtures`), and
NAME.tmux.json what tmux 3.3a displayed after reading them: screen text and attributes as
`capture-pane -e` printed them, cursor, alternate screen, history. The emulator must show the
same. `test_fixture_expectations_still_match_tmux` re-runs tmux live to prove the stored
expectations are tmux's and not ours.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.adapters.emulator.helpers import Emulator, check_invariants, make
from tests.adapters.emulator.tmux_reference import (
    Cells,
    decode_lines,
    require_tmux,
    row_cells,
    tmux_capture,
    trim,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "emulator"
NAMES = sorted(path.stem for path in FIXTURES.glob("*.bin"))


def _expected(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.tmux.json").read_text())
    return data


def _tmux_lines(raw: str, count: int) -> list[Cells]:
    if raw.endswith("\n"):
        raw = raw[:-1]
    decoded = [trim(line) for line in decode_lines(raw)] if raw or count else []
    return (decoded + [[] for _ in range(count)])[:count]


def _feed(name: str, chunks: int = 1, seed: int = 0) -> Emulator:
    expected = _expected(name)
    data = (FIXTURES / f"{name}.bin").read_bytes()
    emulator = make(expected["cols"], expected["rows"], 10_000)
    cuts = sorted(random.Random(seed).sample(range(1, len(data)), min(chunks - 1, len(data) - 1)))
    for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
        emulator.feed(data[start:end])
        emulator.take_replies()
    return emulator


def test_fixtures_exist() -> None:
    assert {
        "ls_color",
        "git_log_graph",
        "vim_open",
        "vim",
        "less_open",
        "less",
        "python_repl",
        "bash_session",
    } <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("chunks", [1, 7, 300])
def test_screen_matches_tmux(name: str, chunks: int) -> None:
    expected = _expected(name)
    emulator = _feed(name, chunks, seed=chunks)
    rows = expected["rows"]
    want = _tmux_lines(expected["screen"], rows)
    for y in range(rows):
        assert trim(row_cells(emulator.render_row(y))) == want[y], f"{name} row {y}"
    cursor = emulator.cursor()
    assert [cursor.x, cursor.y] == [
        min(expected["cursor"][0], expected["cols"] - 1),
        expected["cursor"][1],
    ]
    assert cursor.visible == expected["cursor_visible"]
    assert emulator.modes.alt_screen == expected["alternate"]
    check_invariants(emulator)


@pytest.mark.parametrize("name", NAMES)
def test_history_matches_tmux(name: str) -> None:
    expected = _expected(name)
    emulator = _feed(name)
    raw = expected.get("history", "")
    want = _tmux_lines(raw, raw.count("\n")) if raw else []
    got = [trim(row_cells(row)) for row in emulator.render_history(0, emulator.history_size())]
    assert got == want


def test_fixture_expectations_still_match_tmux(tmp_path: Path) -> None:
    require_tmux()
    for name in NAMES:
        expected = _expected(name)
        data = (FIXTURES / f"{name}.bin").read_bytes()
        capture = tmux_capture(data, expected["cols"], expected["rows"], tmp_path)
        assert capture.raw == expected["screen"], name
        assert list(capture.cursor) == expected["cursor"], name
