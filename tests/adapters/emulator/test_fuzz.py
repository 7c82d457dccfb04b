"""Property tests: any input is survived, invariants hold, and how the bytes are cut into
reads never changes the result."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from core.terminal import row_text
from tests.adapters.emulator.helpers import Emulator, check_invariants, make

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "emulator"
FUZZ = settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])

_FINALS = "@ABCDEFGHIJKLMPSTXZ`abcdefghlmnqrstu"
_TEXT = ["a", "word ", "中", "😀", "e\u0301", "\u200d", "─│", "\t", "\r", "\n", "\x08", "\x07"]


@st.composite
def _csi(draw: st.DrawFn) -> str:
    marker = draw(st.sampled_from(["", "", "?", ">", "="]))
    params = draw(st.lists(st.integers(0, 2100), max_size=4))
    if draw(st.booleans()):
        params = [
            draw(st.sampled_from([1, 6, 7, 25, 47, 1000, 1002, 1004, 1006, 1047, 1049, 2004, 2026]))
        ]
    inter = draw(st.sampled_from(["", "", "", " ", "$", "!"]))
    return f"\x1b[{marker}{';'.join(map(str, params))}{inter}{draw(st.sampled_from(_FINALS))}"


def _sgr_of(params: list[int]) -> str:
    return f"\x1b[{';'.join(map(str, params))}m"


_PIECES = st.one_of(
    st.sampled_from(_TEXT),
    _csi(),
    st.builds(_sgr_of, st.lists(st.integers(0, 260), max_size=6)),
    st.sampled_from(
        [
            "\x1b[38;2;1;2;3m",
            "\x1b[48:5:200m",
            "\x1b[4:3m",
            "\x1b7",
            "\x1b8",
            "\x1bM",
            "\x1bD",
            "\x1bE",
            "\x1bc",
            "\x1b#8",
            "\x1b(0",
            "\x1b(B",
            "\x0e",
            "\x0f",
            "\x1b=",
            "\x1b>",
            "\x1b]0;t\x07",
            "\x1b]7;file:///x\x1b\\",
            "\x1bP1$r\x1b\\",
            "\x1b]8;;u\x1b\\",
            "\x1b",
            "\x1b[",
            "\x18",
            "\x9b",
        ]
    ),
    st.text(max_size=8),
)


@st.composite
def _stream(draw: st.DrawFn) -> bytes:
    return "".join(draw(st.lists(_PIECES, max_size=60))).encode("utf-8", "surrogatepass")


def _snapshot(emulator: Emulator) -> tuple[object, ...]:
    cursor = emulator.cursor()
    return (
        [emulator.render_row(y) for y in range(emulator.rows)],
        emulator.render_history(0, emulator.history_size()),
        (cursor.x, cursor.y, cursor.visible, cursor.shape),
        emulator.title,
        emulator.cwd,
        emulator.modes,
    )


def _cut(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({cut % (len(data) + 1) for cut in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


@FUZZ
@given(st.binary(max_size=2000), st.integers(1, 40), st.integers(1, 12))
def test_random_bytes_never_break_the_screen(data: bytes, cols: int, rows: int) -> None:
    emulator = make(cols, rows, scrollback=50)
    emulator.feed(data)
    check_invariants(emulator)


@FUZZ
@given(_stream(), st.lists(st.integers(0, 10_000), max_size=12))
# A title, then a full reset in the same read (Ghostty clears its title; the title stays).
@example(b"\x1b]0;t\x07\x1bc", [6])
@example(b"\x1b]0;t\x07\x1bc", [7])
def test_how_the_stream_is_cut_never_matters(data: bytes, cuts: list[int]) -> None:
    whole = make(16, 6, scrollback=20)
    whole.feed(data)
    pieces = make(16, 6, scrollback=20)
    for chunk in _cut(data, cuts):
        pieces.feed(chunk)
    assert _snapshot(pieces) == _snapshot(whole)
    assert pieces.take_replies() == whole.take_replies()
    check_invariants(whole)


def _texts_read_alone(data: list[bytes], cols: int = 16, rows: int = 6) -> list[str]:
    """Each row's `row_text` as the daemon reads an agent's screen: after each read's
    `take_dirty`, never a `render_row` (a backend may take the text from unbuilt rows)."""
    emulator = make(cols, rows, scrollback=20)
    texts: list[str] = []
    for chunk in data:
        emulator.feed(chunk)
        emulator.take_dirty()
        texts = [emulator.row_text(y) for y in range(emulator.rows)]
    return texts


def _texts_of_rows(data: bytes, cols: int = 16, rows: int = 6) -> list[str]:
    emulator = make(cols, rows, scrollback=20)
    emulator.feed(data)
    return [row_text(emulator.render_row(y)) for y in range(emulator.rows)]


@FUZZ
@given(_stream(), st.lists(st.integers(0, 10_000), max_size=6))
@example(b"a\x1b7\x1b[\ta\x1b[38;2;1;2;3m", [6])  # a CSI holding a TAB, cut after it
def test_a_rows_text_read_alone_is_the_text_of_the_row(data: bytes, cuts: list[int]) -> None:
    assert _texts_read_alone(_cut(data, cuts)) == _texts_of_rows(data)


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.bin")), ids=lambda p: p.stem)
def test_a_recorded_programs_rows_read_alone_are_the_text_of_its_rows(path: Path) -> None:
    data = path.read_bytes()
    assert _texts_read_alone(_cut(data, list(range(0, len(data), 4096))), 80, 24) == (
        _texts_of_rows(data, 80, 24))


# The sequences a backend answers or corrects with a look at the bytes it is given (device
# attributes with and without a parameter, the DEC cursor report, a soft reset, mouse
# tracking set and reset), each cut at every byte: the screen, the modes and the replies are
# those of the uncut stream.
_CORRECTED = [
    b"\x1b[1c", b"\x1b[c", b"\x1b[0c", b"\x1b[>1c", b"\x1b[>c", b"\x1b[=1c",
    b"\x1b[5;3H\x1b[?6n", b"\x1b[4h\x1b[?7l\x1b[2;3Hx\x1b[!p", b"\x1b[?1000h\x1b[?1003;1006h",
    b"\x1b[?1003h\x1b[?1000l", b"ab\x1b[1c\x1b[c\x1b[?6n",
]


@pytest.mark.parametrize("data", _CORRECTED, ids=repr)
def test_a_corrected_sequence_cut_between_reads_is_corrected_all_the_same(data: bytes) -> None:
    whole = make(16, 6, scrollback=20)
    whole.feed(data)
    expected = (_snapshot(whole), whole.take_replies())
    for at in range(1, len(data)):
        pieces = make(16, 6, scrollback=20)
        pieces.feed(data[:at])
        pieces.feed(data[at:])
        assert (_snapshot(pieces), pieces.take_replies()) == expected, f"cut at {at}"
    # Cut more than once (hypothesis found `\e`, `[`, `1c` answered): a byte at a time.
    pieces = make(16, 6, scrollback=20)
    for at in range(len(data)):
        pieces.feed(data[at:at + 1])
    assert (_snapshot(pieces), pieces.take_replies()) == expected, "a byte at a time"


@FUZZ
@given(
    st.lists(st.tuples(_stream(), st.integers(1, 30), st.integers(1, 10)), max_size=6),
)
def test_resizing_between_reads_keeps_the_invariants(steps: list[tuple[bytes, int, int]]) -> None:
    emulator = make(20, 6, scrollback=30)
    for data, cols, rows in steps:
        emulator.feed(data)
        emulator.take_dirty()
        changed = (cols, rows) != (emulator.cols, emulator.rows)
        emulator.resize(cols, rows)
        check_invariants(emulator)
        assert emulator.take_dirty() == (set(range(rows)) if changed else set())


@FUZZ
@given(st.sampled_from(sorted(FIXTURES.glob("*.bin"))), st.integers(0, 2**32 - 1))
def test_mutated_recordings_keep_the_invariants(path: Path, seed: int) -> None:
    rng = random.Random(seed)
    data = bytearray(path.read_bytes())
    for _ in range(rng.randint(1, 30)):
        where = rng.randrange(len(data))
        action = rng.random()
        if action < 0.4:
            data[where] = rng.randrange(256)
        elif action < 0.7:
            del data[where]
        else:
            data[where:where] = bytes(rng.choice([b"\x1b", b"[", b"9999", b";", b"\x07", b"\xe4"]))
    emulator = make(80, 24, scrollback=100)
    for chunk in _cut(bytes(data), [rng.randrange(len(data) + 1) for _ in range(5)]):
        emulator.feed(chunk)
    check_invariants(emulator)
