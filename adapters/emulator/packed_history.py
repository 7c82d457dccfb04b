"""The pyte backend's scrollback: a bounded sequence whose older lines are kept packed.

A compact entry (`rows.HistoryLine`) still costs some 350-550 bytes as Python objects for a
120-column line: 10,000 lines were 5.4 MB per cell. Terminal history is text that repeats
itself (the same words, the same few style ids), so blocks of `BLOCK` lines, encoded with
msgpack and deflated, take a tenth of that. Packing happens while the cell is idle
(`pack_step`, one block per call, through the emulator port's `compact_step`), never on
the output path; the newest `HOT` lines stay unpacked, so scrolling back a little, a line
pulled back by a resize and the wrap flag of the last line cost nothing. Reading an older
line unpacks its block (one block is kept unpacked for the next read); a reflow reads the
whole history and leaves it unpacked until the next quiet spell.

The sequence offers what the screen, the reflow and the port use of a `deque` with a
`maxlen`: `append`, `extend`, `pop`, `clear`, indexing, `[-1] =`, `len`, iteration.
"""

from __future__ import annotations

import zlib
from collections import deque
from collections.abc import Iterable, Iterator

import msgspec

from adapters.emulator.rows import HistoryLine, WrappedCells, WrappedText

BLOCK = 128
"""Lines per packed block (packing one takes well under a millisecond)."""
HOT = 256
"""The newest lines, never packed."""

_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(list[tuple[int, str, bytes, bytes]])

# An entry's kind on the wire: plain text or cells, each continuing on the next line or not.
_TEXT, _WRAPPED_TEXT, _CELLS, _WRAPPED_CELLS = range(4)


def _encode(entry: HistoryLine) -> tuple[int, str, bytes, bytes]:
    if isinstance(entry, str):
        return (_WRAPPED_TEXT if isinstance(entry, WrappedText) else _TEXT, str(entry), b"", b"")
    kind = _WRAPPED_CELLS if isinstance(entry, WrappedCells) else _CELLS
    counts = entry[2] if len(entry) == 3 else b""
    # A third field that is empty and a line with no counts pack alike: the length of the
    # kind's tuple tells them apart (bit 2 of the kind).
    return (kind | (4 if len(entry) == 3 else 0), entry[0], entry[1], counts)


def _decode(item: tuple[int, str, bytes, bytes]) -> HistoryLine:
    kind, text, styles, counts = item
    if kind == _TEXT:
        return text
    if kind == _WRAPPED_TEXT:
        return WrappedText(text)
    cells: HistoryLine = (text, styles, counts) if kind & 4 else (text, styles)
    return WrappedCells(cells) if kind & 3 == _WRAPPED_CELLS else cells


def pack(entries: list[HistoryLine]) -> bytes:
    return zlib.compress(_encoder.encode([_encode(entry) for entry in entries]), 6)


def unpack(block: bytes) -> list[HistoryLine]:
    return [_decode(item) for item in _decoder.decode(zlib.decompress(block))]


class PackedHistory:
    """At most `maxlen` history lines, oldest first; the older ones packed by `pack_step`."""

    def __init__(self, maxlen: int) -> None:
        self.maxlen = max(maxlen, 0)
        self._blocks: list[bytes] = []
        """Packed blocks of `BLOCK` lines each, oldest first."""
        self._skip = 0
        """Lines of the first block already dropped (the bound moved past them)."""
        self._tail: deque[HistoryLine] = deque()
        """The newer lines, unpacked."""
        self._open: tuple[int, list[HistoryLine]] | None = None
        """The last block read, unpacked: (its index in `_blocks`, its lines)."""

    # -- the deque subset -----------------------------------------------------------------

    def __len__(self) -> int:
        return self._packed_len() + len(self._tail)

    def __bool__(self) -> bool:
        return bool(self._tail) or bool(self._blocks)

    def append(self, entry: HistoryLine) -> None:
        if not self.maxlen:
            return
        self._tail.append(entry)
        self._trim()

    def extend(self, entries: Iterable[HistoryLine]) -> None:
        for entry in entries:
            self.append(entry)

    def pop(self) -> HistoryLine:
        if not self._tail:
            self._unpack_last()
        return self._tail.pop()  # IndexError when empty, as a deque's

    def clear(self) -> None:
        self._blocks.clear()
        self._tail.clear()
        self._skip = 0
        self._open = None

    def __getitem__(self, index: int) -> HistoryLine:
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("history index out of range")
        packed = self._packed_len()
        if index >= packed:
            return self._tail[index - packed]
        position = index + self._skip
        return self._block(position // BLOCK)[position % BLOCK]

    def __setitem__(self, index: int, entry: HistoryLine) -> None:
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("history index out of range")
        while index < self._packed_len():  # rare: unpack down to that line
            self._unpack_last()
        self._tail[index - self._packed_len()] = entry

    def __iter__(self) -> Iterator[HistoryLine]:
        for number in range(len(self._blocks)):
            lines = self._block(number)
            yield from (lines[self._skip:] if number == 0 else lines)
        yield from self._tail

    # -- packing --------------------------------------------------------------------------

    def pack_step(self) -> bool:
        """Pack the oldest `BLOCK` unpacked lines if more than `HOT` newer ones would stay
        unpacked; True while another step would pack more."""
        if len(self._tail) < HOT + BLOCK:
            return False
        tail = self._tail
        lines = [tail.popleft() for _ in range(BLOCK)]
        if not self._blocks:
            self._skip = 0
        self._blocks.append(pack(lines))
        return len(tail) >= HOT + BLOCK

    @property
    def packed_bytes(self) -> int:
        """What the packed blocks take (for tests and diagnostics)."""
        return sum(len(block) for block in self._blocks)

    # -- internals ------------------------------------------------------------------------

    def _packed_len(self) -> int:
        return len(self._blocks) * BLOCK - self._skip

    def _block(self, number: int) -> list[HistoryLine]:
        opened = self._open
        if opened is not None and opened[0] == number:
            return opened[1]
        lines = unpack(self._blocks[number])
        self._open = (number, lines)
        return lines

    def _unpack_last(self) -> None:
        """Move the newest packed block back in front of the unpacked lines."""
        if not self._blocks:
            return
        number = len(self._blocks) - 1
        lines = self._block(number)
        if number == 0:
            lines = lines[self._skip:]
            self._skip = 0
        self._blocks.pop()
        self._open = None
        self._tail.extendleft(reversed(lines))

    def _trim(self) -> None:
        """Drop the oldest lines past `maxlen`."""
        while len(self) > self.maxlen:
            if not self._blocks:
                self._tail.popleft()
                continue
            self._skip += 1
            if self._skip == BLOCK:
                self._blocks.pop(0)
                self._skip = 0
                self._open = None  # block numbers moved
