"""The oldest scrollback of the Ghostty backend, moved out of Ghostty's pages and packed.

Ghostty keeps its history in pages of cells: some 5 MB for 10,000 styled lines. History the
user is not looking at is text that repeats itself (the same words, a few styles), so it is
moved here, where it takes a few percent of that: logical lines are grouped into blocks,
each encoded column-wise with msgpack (all the text as one string, then run lengths and
style numbers, which deflate far better than runs interleaved with their styles) and
deflated.

A logical line is kept as the rows it was rendered as, with the width they were rendered
at. Read at that width, the rows come back verbatim (links and all), and a width that
changes and comes back loses nothing. At another width the line is re-wrapped from those
rows, as a terminal reflows: so each width change starts again from what was drawn and
blanks left behind by wide characters do not pile up across resizes.

A resize must not unpack the history. Per logical line the store keeps, in `array`s (a few
bytes a line, where a list of ints would take tens): the width it was rendered at, its rows
at that width, its width in cells and whether every code point in it is one cell wide. The
rows of such a "simple" line at any width are integer maths; only blocks holding other
lines (wide characters, combining marks) are decoded, and only those lines rebuilt, to count
them. Per block, the rows at the current width are kept, so finding row `n` is a search over
blocks and then over the lines of one block.

The newest lines, fewer than a block's worth, stay unpacked (`_tail`) until a block is full:
packing a partial block again on every `add` would cost a compression each time. One block
is kept unpacked after a read (and its rows at the current width), so reading the history
in order unpacks each block once.
"""

from __future__ import annotations

import zlib
from array import array
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate, pairwise

import msgspec

from adapters.emulator.grid import NARROW, char_width, text_width
from core.terminal import DEFAULT_COLOR, LinkedRow, Links, Row, Run, row_links, with_links

BLOCK_LINES = 64
"""Logical lines per packed block: enough text for deflate to find its repetitions, little
enough that unpacking one (to read a few rows) stays well under a millisecond."""
BLOCK_ROWS = 256
"""A block is also closed at this many rows, so that long wrapped lines keep the unpacked
block (the read cache) small."""
LEVEL = 6
"""zlib level: 9 saves a few percent more for twice the time."""

Style = tuple[int, int, int]
Line = list[Row]
"""One logical line: the rows it was rendered as, each but the last wrapped."""

_BLANK: Style = (DEFAULT_COLOR, DEFAULT_COLOR, 0)
_NO_LINK = -1
"""The run index that marks a `LinkedRow` with no links (kept so that its type survives)."""


class _Block(msgspec.Struct, array_like=True):
    """A block on the wire, column-wise: like values side by side deflate best."""

    text: str
    """The text of every run of every row, concatenated."""
    lengths: list[int]
    """Code points of each run."""
    styles: list[Style]
    """The block's distinct `(fg, bg, attrs)`, in order of first use."""
    style_of: list[int]
    """Each run's style, an index into `styles` (one byte for the first 128)."""
    runs: list[int]
    """Runs of each row."""
    rows: list[int]
    """Rows of each logical line."""
    links: list[tuple[int, int, str]]
    """`(row in the block, run index, URI)` of each link; run `_NO_LINK` marks a linked row
    without links."""


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(_Block)


def pack(lines: Sequence[Line]) -> bytes:
    """A block of logical lines, encoded and deflated."""
    every_run = [run for line in lines for row in line for run in row]
    texts = [run[0] for run in every_run]
    # Styles are told apart by one int, not a tuple sliced from each run: thousands of
    # tuples a block would wake the garbage collector, a pause the loop would feel.
    numbers: dict[int, int] = {}
    styles: list[Style] = []
    style_of: list[int] = []
    for run in every_run:
        key = (run[1] + 1) << 48 | (run[2] + 1) << 20 | run[3]
        number = numbers.get(key)
        if number is None:
            number = numbers[key] = len(styles)
            styles.append((run[1], run[2], run[3]))
        style_of.append(number)
    links: list[tuple[int, int, str]] = []
    rows = [row for line in lines for row in line]
    for number, row in enumerate(rows):
        if type(row) is LinkedRow:
            links += [(number, index, uri) for index, uri in row.links] or [
                (number, _NO_LINK, "")]
    block = _Block("".join(texts), [len(text) for text in texts], styles, style_of,
                   [len(row) for row in rows], [len(line) for line in lines], links)
    return zlib.compress(_encoder.encode(block), LEVEL)


def _decode(packed: bytes) -> _Block:
    return _decoder.decode(zlib.decompress(packed))


def unpack(packed: bytes) -> list[Line]:
    """The logical lines of a block, rows as they were packed."""
    block = _decode(packed)
    text, styles = block.text, block.styles
    ends = list(accumulate(block.lengths))
    runs: list[Run] = [(text[start:end],) + styles[style]
                       for start, end, style in zip([0, *ends[:-1]], ends, block.style_of,
                                                    strict=True)]
    rows: list[Row] = [tuple(runs[start:end])
                       for start, end in pairwise(accumulate(block.runs, initial=0))]
    for number, links in _links_by_row(block.links).items():
        rows[number] = LinkedRow(rows[number], links)
    return [rows[start:end] for start, end in pairwise(accumulate(block.rows, initial=0))]


def _links_by_row(links: list[tuple[int, int, str]]) -> dict[int, Links]:
    """The links of the rows that were `LinkedRow`s, by row in the block."""
    by_row: dict[int, list[tuple[int, str]]] = {}
    for number, index, uri in links:
        pairs = by_row.setdefault(number, [])
        if index != _NO_LINK:
            pairs.append((index, uri))
    return {number: tuple(pairs) for number, pairs in by_row.items()}


class _Reader:
    """A decoded block read one line at a time. After a resize only the lines that are not
    simple are counted from their content: building those few, and not the thousands of run
    tuples of the whole block (`unpack`), makes such a resize several times cheaper."""

    __slots__ = ("block", "chars", "links", "row_runs", "rows")

    def __init__(self, packed: bytes) -> None:
        block = self.block = _decode(packed)
        self.rows = list(accumulate(block.rows, initial=0))
        """The first row of each line (and the end)."""
        self.row_runs = list(accumulate(block.runs, initial=0))
        """The first run of each row."""
        self.chars = list(accumulate(block.lengths, initial=0))
        """The first code point of each run."""
        self.links = _links_by_row(block.links)

    def line(self, number: int) -> Line:
        """Line `number` of the block, as `unpack` gives it."""
        text, styles, style_of = self.block.text, self.block.styles, self.block.style_of
        chars, row_runs = self.chars, self.row_runs
        line: Line = []
        for row in range(self.rows[number], self.rows[number + 1]):
            runs: Row = tuple([(text[chars[run]:chars[run + 1]],) + styles[style_of[run]]
                               for run in range(row_runs[row], row_runs[row + 1])])
            links = self.links.get(row)
            line.append(runs if links is None else LinkedRow(runs, links))
        return line


# -- logical lines ----------------------------------------------------------------------------


def content(line: Line, written: int = 0) -> tuple[list[Run], dict[int, str]]:
    """What a re-wrap moves: the runs of all the rows, less the trailing default blanks of the
    last row (the padding to the width), and the links by index in those runs.

    Only the last row is trimmed: a wrapped row is full by definition, its trailing spaces
    are text the line goes on after. Nor are the first `written` cells of the last row: a
    blank the program printed is text a reflow keeps (as Ghostty's and tmux's do), where a
    cell nobody wrote is padding.
    """
    runs: list[Run] = []
    links: dict[int, str] = {}
    for row in line:
        base = len(runs)
        for index, uri in row_links(row):
            links[base + index] = uri
        runs += row
    last = len(runs) - len(line[-1]) if line else 0
    cells = sum(text_width(run[0]) for run in runs[last:]) if written else 0
    while len(runs) > last:
        text, fg, bg, attrs = runs[-1]
        if (fg, bg, attrs) != _BLANK or len(runs) - 1 in links:
            break
        kept = text.rstrip(" ")
        if written:  # the run's cells before `written` stay (its blanks are one cell each)
            width = text_width(text)
            cells -= width
            kept += " " * max(0, min(written - cells, width) - text_width(kept))
        if kept:
            runs[-1] = (kept, fg, bg, attrs)
            break
        runs.pop()
    return runs, links


def measure(runs: list[Run]) -> tuple[int, bool]:
    """A line's width in cells, and whether every code point in it takes one cell (then its
    rows at any width follow from its width alone)."""
    joined = "".join([run[0] for run in runs])
    if (joined.isascii() and joined.isprintable()) or NARROW.issuperset(joined) or all(
            char_width(char) == 1 for char in set(joined)):
        return len(joined), True
    return sum(text_width(run[0]) for run in runs), False


def _cells(char: str) -> int:
    """Cells a code point of non-ASCII text takes, as `text_width` counts them: one of width
    0 (a mark) or -1 (unprintable) adds nothing and stays with the cell before it."""
    return max(char_width(char), 0)


def count_rows(runs: list[Run], cols: int) -> int:
    """Rows `wrap` makes of these runs at width `cols`, without making them."""
    rows, used = 1, 0
    for run in runs:
        text = run[0]
        if text.isascii():  # one cell a code point, as `text_width` counts ASCII
            if used + len(text) > cols:
                over = used + len(text) - cols
                rows += -(-over // cols)
                used = (over - 1) % cols + 1
            else:
                used += len(text)
            continue
        for char in text:
            width = _cells(char)
            if not width:
                continue
            if used + width > cols and used:
                rows, used = rows + 1, 0
            used += width if width <= cols else 1
    return rows


class _Cutter:
    """Rows being cut at one width: the finished rows, and the runs, links and cells used of
    the row being filled."""

    __slots__ = ("cols", "done", "links", "runs", "used")

    def __init__(self, cols: int) -> None:
        self.cols = cols
        self.done: list[Row] = []
        self.runs: list[Run] = []
        self.links: list[tuple[int, str]] = []
        self.used = 0

    def put(self, text: str, cells: int, style: Style, uri: str | None) -> None:
        if uri is not None:  # both parts of a split linked run keep the link
            self.links.append((len(self.runs), uri))
        self.runs.append((text, *style))
        self.used += cells

    def end_row(self) -> None:
        """Pad the row with default blanks to the width (the cell a wide character did not
        fit in stays blank, as the terminal leaves it) and start the next."""
        if self.used < self.cols:
            self.runs.append((" " * (self.cols - self.used), *_BLANK))
        self.done.append(with_links(self.runs, tuple(self.links)))
        self.runs, self.links, self.used = [], [], 0

    def narrow(self, text: str, style: Style, uri: str | None) -> None:
        """A run whose code points take a cell each: cut by slicing."""
        cols, start, end = self.cols, 0, len(text)
        while start < end:
            if self.used == cols:
                self.end_row()
            take = min(cols - self.used, end - start)
            self.put(text[start:start + take], take, style, uri)
            start += take

    def mixed(self, text: str, style: Style, uri: str | None) -> None:
        """A run with wide characters or marks: a character that does not fit goes whole to
        the next row; marks stay with the character before them."""
        start = piece = 0
        for index, char in enumerate(text):
            width = _cells(char)
            if not width:
                continue
            if self.used + piece + width > self.cols:
                if index > start:
                    self.put(text[start:index], piece, style, uri)
                start, piece = index, 0
                if self.used:
                    self.end_row()
                if width > self.cols:  # wider than a whole row (one column): a stand-in
                    self.put("\ufffd", 1, style, uri)
                    start = index + 1
                    continue
            piece += width
        if start < len(text):
            self.put(text[start:], piece, style, uri)


def wrap(runs: list[Run], links: dict[int, str], cols: int, simple: bool) -> list[Row]:
    """The rows of a logical line's content at width `cols`, each exactly `cols` cells; an
    empty line is one blank row. Runs keep their style and are never merged."""
    if simple:
        return _wrap_simple(runs, links, cols)
    cutter = _Cutter(cols)
    for index, (text, fg, bg, attrs) in enumerate(runs):
        uri = links.get(index) if links else None
        if text.isascii():
            cutter.narrow(text, (fg, bg, attrs), uri)
        else:
            cutter.mixed(text, (fg, bg, attrs), uri)
    cutter.end_row()
    return cutter.done


def _wrap_simple(runs: list[Run], links: dict[int, str], cols: int) -> list[Row]:
    """`wrap` for a line whose code points take one cell each, nearly every line: a run that
    fits goes as it is (no new tuple), one that does not is sliced. Every row but the last
    ends full, so only the last is padded."""
    done: list[Row] = []
    row: list[Run] = []
    marks: list[tuple[int, str]] = []
    used = 0
    for index, run in enumerate(runs):
        size = len(run[0])
        if not size:
            continue
        uri = links.get(index) if links else None
        if used + size <= cols:
            if uri is not None:
                marks.append((len(row), uri))
            row.append(run)
            used += size
            continue
        text, style, start = run[0], run[1:], 0
        while start < size:
            if used == cols:
                done.append(with_links(row, tuple(marks)))
                row, marks, used = [], [], 0
            take = min(cols - used, size - start)
            if uri is not None:  # both parts of a split linked run keep the link
                marks.append((len(row), uri))
            row.append((text[start:start + take], *style))
            used += take
            start += take
    if used < cols:
        row.append((" " * (cols - used), *_BLANK))
    done.append(with_links(row, tuple(marks)))
    return done


# -- the store --------------------------------------------------------------------------------

MAX_COLS = 0xFFFF
"""Widths are kept in 2 bytes a line."""


def _check(cols: int) -> None:
    if not 1 <= cols <= MAX_COLS:
        raise ValueError(f"a history is 1 to {MAX_COLS} columns wide, not {cols}")


class ColdHistory:
    """Scrollback rows moved out of the emulator, packed; oldest first."""

    def __init__(self, cols: int) -> None:
        _check(cols)
        self._cols = cols
        self._blocks: list[bytes] = []
        self._block_lines = array("I")
        """Logical lines of each block (the first block's include the skipped ones)."""
        self._block_rows = array("I")
        """Rows of each block at the current width (the first block's without the skipped
        lines)."""
        self._skip = 0
        """Lines of the first block already dropped by `trim`."""
        self._tail: list[Line] = []
        """The newest lines, not yet a full block: unpacked."""
        self._tail_rows = 0
        """Rows of `_tail` at the current width."""
        self._tail_drawn = 0
        """Rows of `_tail` as they were rendered (what bounds a block)."""
        # Per logical line, from the first line of the first block on (skipped ones too).
        self._width = array("H")
        """The width the line was rendered at (at most `MAX_COLS`)."""
        self._drawn = array("I")
        """Its rows at that width."""
        self._cells = array("I")
        """Its content's width in cells (see `content`)."""
        self._simple = bytearray()
        """1 if each of its code points takes one cell."""
        self._written = array("H")
        """Cells of its last row the program wrote (0: unknown; see `content`)."""
        self._size = 0
        self._index: tuple[list[int], list[int]] | None = None
        """Lazily: the row each block ends at and the line each block starts at."""
        self._open: tuple[bytes, list[Line]] | None = None
        """The last block unpacked and its lines (the read cache)."""
        self._view: tuple[object, int, int, list[Row]] | None = None
        """The rows of the last block read at the current width: (the block, or `_tail`;
        lines skipped; width; rows)."""

    @property
    def cols(self) -> int:
        return self._cols

    def size(self) -> int:
        """Rows the history shows at the current width."""
        return self._size

    def packed_bytes(self) -> int:
        """Bytes held by packed blocks + bookkeeping arrays (for tests/diagnostics); the
        unpacked newest lines (fewer than a block) and the read cache are not counted."""
        arrays = (self._block_lines, self._block_rows, self._width, self._drawn, self._cells,
                  self._written)
        return (sum(map(len, self._blocks)) + len(self._simple)
                + sum(part.itemsize * len(part) for part in arrays))

    # -- adding -------------------------------------------------------------------------------

    def add(self, rows: Sequence[tuple[Row, bool] | tuple[Row, bool, int]], cols: int) -> None:
        """Append rows (oldest first) rendered at width `cols`, each with its wrapped flag
        and, optionally, the cells of it the program wrote (what a reflow keeps of a last
        row's trailing blanks; without it they are padding).

        The batch ends a logical line (its last flag is False) and is rendered at the
        store's width: a ValueError otherwise, before anything is added.
        """
        if cols != self._cols:
            raise ValueError(f"rows {cols} columns wide added to a history {self._cols} wide")
        if not rows:
            return
        if rows[-1][1]:
            raise ValueError("the last row added is wrapped: its logical line has no end")
        self._forget_tail_view()
        line: Line = []
        for entry in rows:
            line.append(entry[0])
            if not entry[1]:
                self._append(line, entry[2] if len(entry) == 3 else 0)
                line = []

    def _append(self, line: Line, written: int) -> None:
        written = min(written, MAX_COLS)
        cells, simple = measure(content(line, written)[0])
        drawn = len(line)
        self._written.append(written)
        self._width.append(self._cols)
        self._drawn.append(drawn)
        self._cells.append(cells)
        self._simple.append(simple)
        self._tail.append(line)
        self._tail_rows += drawn
        self._tail_drawn += drawn
        self._size += drawn
        if len(self._tail) >= BLOCK_LINES or self._tail_drawn >= BLOCK_ROWS:
            self._seal()

    @property
    def unpacked_lines(self) -> int:
        """The newest lines, not packed yet (a block is packed at `BLOCK_LINES`)."""
        return len(self._tail)

    def seal(self) -> None:
        """Pack the newest lines now, though they are fewer than a block: for a store no
        line will be added to (an unpacked line costs some forty times its packed size)."""
        if self._tail:
            self._seal()

    def _seal(self) -> None:
        """Pack the unpacked newest lines as a block."""
        self._forget_tail_view()
        self._blocks.append(pack(self._tail))
        self._block_lines.append(len(self._tail))
        self._block_rows.append(self._tail_rows)
        self._tail, self._tail_rows, self._tail_drawn = [], 0, 0
        self._index = None

    # -- reading ------------------------------------------------------------------------------

    def rows(self, start: int, count: int) -> list[Row]:
        """Rows [start, start+count) at the current width (clamped to size()), 0 = oldest."""
        start = max(start, 0)
        end = min(start + max(count, 0), self._size)
        found: list[Row] = []
        while start < end:
            number, first = self._locate(start)
            piece = self._render(number)[start - first:end - first]
            if not piece:  # only if counts and rows disagree (a bug): never spin on it
                break
            found += piece
            start += len(piece)
        return found

    def _locate(self, row: int) -> tuple[int, int]:
        """The block holding a row (`len(_blocks)`: the tail) and the row it starts at."""
        ends = self._indexes()[0]
        number = bisect_right(ends, row)
        return number, ends[number - 1] if number else 0

    def _indexes(self) -> tuple[list[int], list[int]]:
        if self._index is None:
            self._index = (list(accumulate(self._block_rows)),
                           list(accumulate(self._block_lines, initial=0)))
        return self._index

    def _render(self, number: int) -> list[Row]:
        """The rows of a block (or the tail) at the current width, from the read cache when
        it was the last one read."""
        tail = number == len(self._blocks)
        source: object = self._tail if tail else self._blocks[number]
        skip = self._skip if number == 0 and not tail else 0
        view = self._view
        if view is not None and view[0] is source and view[1] == skip and view[2] == self._cols:
            return view[3]
        lines = self._tail if tail else self._lines(number)
        first = self._indexes()[1][number]
        cols, widths, simple = self._cols, self._width, self._simple
        rows: list[Row] = []
        for offset in range(skip, len(lines)):
            line, width = lines[offset], widths[first + offset]
            if width == cols:
                rows += line
            else:
                runs, links = content(line, self._written[first + offset])
                rows += wrap(runs, links, cols, bool(simple[first + offset]))
        self._view = (source, skip, cols, rows)
        return rows

    def _lines(self, number: int) -> list[Line]:
        """A block's lines, unpacked once for consecutive reads of it."""
        packed = self._blocks[number]
        opened = self._open
        if opened is not None and opened[0] is packed:
            return opened[1]
        lines = unpack(packed)
        self._open = (packed, lines)
        if self._view is not None and self._view[0] is not self._tail:
            self._view = None  # one block unpacked at a time
        return lines

    def _forget_tail_view(self) -> None:
        if self._view is not None and self._view[0] is self._tail:
            self._view = None

    # -- width --------------------------------------------------------------------------------

    def resize(self, cols: int) -> None:
        """The width changes: logical lines are re-wrapped (reflow) to `cols`.

        Rows are counted from the per-line arrays; a block is decoded only if it holds a
        line that is not simple and was rendered at another width than `cols` (and only
        such lines are rebuilt, to count them).
        """
        _check(cols)
        if cols == self._cols:
            return
        self._cols = cols
        self._view = None
        self._index = None
        first = total = 0
        for number, lines in enumerate(self._block_lines):
            start = first + (self._skip if number == 0 else 0)
            rows = self._count(start, first + lines, self._reader(number, first))
            self._block_rows[number] = rows
            total += rows
            first += lines
        self._tail_rows = self._count(first, first + len(self._tail), self._reader(
            len(self._blocks), first))
        self._size = total + self._tail_rows

    def _reader(self, number: int, first: int) -> Callable[[int], Line]:
        """What gives line `n` (counted from the first line of the first block) of block
        `number` (the tail: `len(_blocks)`), which starts at line `first`; the block is only
        decoded if a line is asked for, and only once."""
        if number == len(self._blocks):
            return lambda line: self._tail[line - first]
        packed = self._blocks[number]
        if self._open is not None and self._open[0] is packed:
            lines = self._open[1]
            return lambda line: lines[line - first]
        decoded: list[_Reader] = []

        def read(line: int) -> Line:
            if not decoded:
                decoded.append(_Reader(packed))
            return decoded[0].line(line - first)

        return read

    def _count(self, start: int, end: int, line_at: Callable[[int], Line]) -> int:
        """Rows of lines [start, end) of one block at the current width; `line_at(n)` gives
        line `n`, asked for only when a line that is not simple must be counted from its
        content."""
        cols = self._cols
        total = sum(drawn if width == cols else (cells + cols - 1) // cols or 1
                    for width, drawn, cells in zip(self._width[start:end],
                                                   self._drawn[start:end],
                                                   self._cells[start:end], strict=True))
        line = self._simple.find(0, start, end)
        while line >= 0:
            if self._width[line] != cols:  # the sum counted it as simple: correct that
                runs = content(line_at(line), self._written[line])[0]
                total += count_rows(runs, cols) - ((self._cells[line] + cols - 1) // cols or 1)
            line = self._simple.find(0, line + 1, end)
        return total

    def _line_rows(self, line: int, line_at: Callable[[int], Line]) -> int:
        return self._count(line, line + 1, line_at)

    # -- dropping -----------------------------------------------------------------------------

    def trim(self, keep: int) -> None:
        """Drop whole oldest logical lines while size() stays >= keep."""
        line_at: Callable[[int], Line] | None = None  # decodes the first block at most once
        while self._blocks:
            if self._size - self._block_rows[0] >= keep:
                self._drop_block()  # the whole block goes: no line of it is counted
                line_at = None
                continue
            # Only some lines of the first block go: counted one by one, kept as a skip.
            line_at = line_at or self._reader(0, 0)
            rows = self._line_rows(self._skip, line_at)
            if self._size - rows < keep:
                return
            self._skip += 1
            self._block_rows[0] -= rows
            self._size -= rows
            self._index = None
            if self._skip == self._block_lines[0]:  # cannot happen while counts agree
                self._drop_block()
                line_at = None
        self._trim_tail(keep)

    def _drop_block(self) -> None:
        lines = self._block_lines.pop(0)
        self._size -= self._block_rows.pop(0)
        dropped = self._blocks.pop(0)
        for part in (self._width, self._drawn, self._cells, self._simple, self._written):
            del part[:lines]
        self._skip = 0
        self._index = None
        if self._open is not None and self._open[0] is dropped:
            self._open = None
        if self._view is not None and self._view[0] is dropped:
            self._view = None

    def _trim_tail(self, keep: int) -> None:
        """`trim` past the blocks: drop the oldest unpacked lines."""
        dropped = rows = drawn = 0
        line_at = self._reader(0, 0)
        while dropped < len(self._tail):
            line_rows = self._line_rows(dropped, line_at)
            if self._size - rows - line_rows < keep:
                break
            rows += line_rows
            drawn += self._drawn[dropped]
            dropped += 1
        if not dropped:
            return
        self._forget_tail_view()
        del self._tail[:dropped]
        for part in (self._width, self._drawn, self._cells, self._simple, self._written):
            del part[:dropped]
        self._tail_rows -= rows
        self._tail_drawn -= drawn
        self._size -= rows

    def clear(self) -> None:
        self._blocks.clear()
        for part in (self._block_lines, self._block_rows, self._width, self._drawn,
                     self._cells, self._simple, self._written):
            del part[:]
        self._skip = self._size = self._tail_rows = self._tail_drawn = 0
        self._tail = []
        self._index = self._open = self._view = None
