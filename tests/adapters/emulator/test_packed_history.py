"""The pyte backend's packed scrollback behaves as the bounded deque it replaces, whatever
is packed, and packing makes it smaller."""

from __future__ import annotations

from collections import deque

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.emulator.packed_history import BLOCK, HOT, PackedHistory, pack, unpack
from adapters.emulator.rows import HistoryLine, WrappedCells, WrappedText, is_wrapped

ENTRIES: list[HistoryLine] = [
    "plain",
    WrappedText("wrapped text"),
    ("cells", b"\x01\x01\x02\x02\x02"),
    WrappedCells(("wrapped", b"\x03" * 7)),
    ("wide\u4e00", b"\x00" * 5, b"\x01\x01\x01\x01\x01"),
    ("", b"", b""),
    "",
]


def test_every_kind_of_entry_comes_back_as_it_went_in() -> None:
    back = unpack(pack(ENTRIES))
    assert back == ENTRIES
    assert [type(entry) for entry in back] == [type(entry) for entry in ENTRIES]
    assert [is_wrapped(entry) for entry in back] == [is_wrapped(entry) for entry in ENTRIES]


def _entry(n: int) -> HistoryLine:
    kind = n % 4
    if kind == 0:
        return f"line {n}"
    if kind == 1:
        return WrappedText(f"wrapped {n}")
    if kind == 2:
        return (f"cells {n}", bytes([n % 7]) * len(f"cells {n}"))
    return WrappedCells((f"wrapped cells {n}", bytes([n % 5]) * len(f"wrapped cells {n}")))


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(0, 10**6)),
        st.tuples(st.just("extend"), st.integers(0, 10**6), st.integers(0, 3 * BLOCK)),
        st.tuples(st.just("pop")),
        st.tuples(st.just("set_last"), st.integers(0, 10**6)),
        st.tuples(st.just("pack")),
        st.tuples(st.just("clear")),
    ),
    max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(maxlen=st.sampled_from([0, 1, BLOCK - 1, BLOCK, 3 * BLOCK + 5, HOT + 2 * BLOCK + 1]),
       operations=OPERATIONS)
def test_it_behaves_as_a_bounded_deque_whatever_is_packed(
        maxlen: int, operations: list[tuple[object, ...]]) -> None:
    packed, reference = PackedHistory(maxlen), deque[HistoryLine](maxlen=maxlen)
    for operation in operations:
        name = operation[0]
        if name == "append":
            entry = _entry(int(operation[1]))  # type: ignore[call-overload]
            packed.append(entry)
            reference.append(entry)
        elif name == "extend":
            start, count = int(operation[1]), int(operation[2])  # type: ignore[call-overload]
            packed.extend(_entry(start + k) for k in range(count))
            reference.extend(_entry(start + k) for k in range(count))
        elif name == "pop":
            if reference:
                assert packed.pop() == reference.pop()
            else:
                with pytest.raises(IndexError):
                    packed.pop()
        elif name == "set_last" and reference:
            entry = _entry(int(operation[1]))  # type: ignore[call-overload]
            packed[-1] = entry
            reference[-1] = entry
        elif name == "pack":
            while packed.pack_step():
                pass
        elif name == "clear":
            packed.clear()
            reference.clear()
        assert len(packed) == len(reference)
        assert bool(packed) == bool(reference)
    assert list(packed) == list(reference)
    assert [packed[i] for i in range(len(reference))] == list(reference)
    if reference:
        assert packed[-1] == reference[-1] and packed[0] == reference[0]
    with pytest.raises(IndexError):
        packed[len(reference)]


def test_packing_keeps_the_newest_lines_unpacked_and_shrinks_the_rest() -> None:
    history = PackedHistory(10_000)
    text = "checking types refactoring module updating docs reading src/app.py planning "
    for n in range(12_000):
        history.append((f"{text}{n}".ljust(120), bytes([n % 3 + 1]) * 120))
    steps = 0
    while history.pack_step():
        steps += 1
    assert steps + 1 == (10_000 - HOT) // BLOCK  # one block per step, the last says "done"
    assert not history.pack_step()
    assert len(history) == 10_000
    assert history[0][0].rstrip().endswith(" 2000")
    assert history[-1][0].rstrip().endswith(" 11999")
    # Some 250 bytes of text and styles a line, packed to a small fraction of that.
    assert history.packed_bytes < 10_000 * 240 / 8
    history.append("one more")  # the bound still holds, the oldest line goes
    assert len(history) == 10_000
    assert history[0][0].rstrip().endswith(" 2001")


@pytest.mark.parametrize("cols", [40, 120])
def test_a_packed_history_reads_reflows_and_pulls_back_as_an_unpacked_one(cols: int) -> None:
    from adapters.emulator import PyteEmulator

    output = b"".join(b"\x1b[3%dmline %d %s\x1b[0m\r\n" % (n % 8, n, b"word " * (n % 23))
                      for n in range(3_000))
    plain, packed = PyteEmulator(80, 24, 2_000), PyteEmulator(80, 24, 2_000)
    for emulator in (plain, packed):
        emulator.feed(output)
    steps = 0
    while packed.compact_step():
        steps += 1
    assert steps > 5
    assert packed.render_history(0, 2_000) == plain.render_history(0, 2_000)
    for emulator in (plain, packed):
        emulator.resize(cols, 30)  # re-wraps the whole history; taller: pulls lines back
    assert packed.history_size() == plain.history_size()
    assert packed.render_history(0, 2_000) == plain.render_history(0, 2_000)
    assert packed.display() == plain.display()
    while packed.compact_step():
        pass
    for emulator in (plain, packed):
        emulator.feed(b"\x1b[?1049h\x1b[?1049l after\r\n")  # the alternate screen and back
    assert packed.render_history(0, 2_000) == plain.render_history(0, 2_000)
    assert packed.display() == plain.display()
