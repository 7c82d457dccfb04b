"""The Ghostty backend's older scrollback, moved out of Ghostty's pages into packed stores.

Ghostty keeps history as 8-byte cells in pages of some 400 KB; compressed, 10,000 lines with
a style per word still take about 5 MB. Packed as text and style runs (`ColdHistory`) the
same lines take a fraction of that. So, while a cell is idle, its oldest history pages are
read (a `PageMove`, a few rows per step, each page packed as it is read), then dropped from
Ghostty by lowering its scrollback budget for a moment: Ghostty frees whole pages, oldest
first, never the ones the screen is in, and the budget stops going down once the pages
meant to go are gone, so that a few hundred rows stay and a pane that grows still pulls its
last lines back from history. The rows Ghostty dropped are exactly the oldest ones read:
they become one more segment here.

One segment per move, oldest first: a segment is never rewritten (no unpacking to append),
and a bound that passes drops the oldest segments whole.

A logical line cut by a page boundary ends one segment and starts the next (or the rows
still in Ghostty): its parts are kept exactly, but a reflow to another width wraps them as
two lines. Ghostty's own history has no such seam.
"""

from __future__ import annotations

from collections.abc import Sequence

from adapters.emulator.cold_history import BLOCK_LINES, ColdHistory
from core.terminal import Row

PACK_AT = BLOCK_LINES - 16
"""Lines read before a page move packs them, in a step of its own: a step that reads rows
(8 at most, so 8 lines at most) never also packs a block (about a millisecond)."""


class ColdRows:
    """The rows moved out of Ghostty, in segments, oldest first."""

    def __init__(self) -> None:
        self._segments: list[ColdHistory] = []

    def size(self) -> int:
        return sum(segment.size() for segment in self._segments)

    def __bool__(self) -> bool:
        return bool(self._segments)

    def append(self, segment: ColdHistory) -> None:
        if segment.size():
            self._segments.append(segment)

    def rows(self, start: int, count: int) -> list[Row]:
        """Rows `[start, start + count)` across the segments, 0 being the oldest."""
        found: list[Row] = []
        stop = start + count
        first = 0
        for segment in self._segments:
            if first >= stop:
                break
            size = segment.size()
            if first + size > start:
                begin = max(start - first, 0)
                found.extend(segment.rows(begin, min(stop - first, size) - begin))
            first += size
        return found

    def resize(self, cols: int) -> None:
        for segment in self._segments:
            segment.resize(cols)

    def trim(self, keep: int) -> None:
        """Drop the oldest rows beyond the newest `keep` (whole logical lines: a few more
        may stay)."""
        total = self.size()
        segments = self._segments
        while segments and total - segments[0].size() >= keep:
            total -= segments.pop(0).size()
        if segments and total > keep:
            segments[0].trim(segments[0].size() - (total - keep))
            if not segments[0].size():
                segments.pop(0)

    def clear(self) -> None:
        self._segments = []

    def packed_bytes(self) -> int:
        return sum(segment.packed_bytes() for segment in self._segments)


class PageMove:
    """The oldest pages of Ghostty's history being read, one segment per page.

    Reading starts at history row 0 and stops before the first row of `stop_serial` (the
    page the screen starts in, which Ghostty keeps). `take` packs each logical line as soon
    as its last row is read (a block at a time: no step holds more than a few dozen rows);
    `segments` holds the pages read whole.
    """

    def __init__(self, cols: int, stop_serial: int, kept: int) -> None:
        self.cols = cols
        self.stop_serial = stop_serial
        self.kept = kept
        """Ghostty's history rows when the move began."""
        self.next_row = 0
        """The next Ghostty history row to read."""
        self.generation = 0
        """The emulator's write-and-resize count when the move began."""
        self.done = False
        self.segments: list[ColdHistory] = []
        self._segment: ColdHistory | None = None
        self._serial: int | None = None
        self._line: list[tuple[Row, bool, int]] = []
        """The rows read of a logical line not ended yet."""

    def take(self, rows: Sequence[tuple[Row, bool, int, int]]) -> None:
        """Rows read from `next_row` on: `(row, wrapped, page serial, cells written)`."""
        for row, wrapped, serial, written in rows:
            if serial == self.stop_serial:
                self.done = True
                break
            if serial != self._serial or self._segment is None:
                self._close_page()
                self._serial, self._segment = serial, ColdHistory(self.cols)
            self._line.append((row, wrapped, written))
            if not wrapped:
                self._segment.add(self._line, self.cols)
                self._line = []
            self.next_row += 1
        if self.next_row >= self.kept:
            self.done = True
        if self.done:
            self._close_page()

    @property
    def pack_due(self) -> bool:
        return self._segment is not None and self._segment.unpacked_lines >= PACK_AT

    def pack(self) -> None:
        """Pack the lines read of the current page (a step of its own)."""
        if self._segment is not None:
            self._segment.seal()

    def _close_page(self) -> None:
        segment = self._segment
        if segment is None:
            return
        if self._line:
            # A line that runs on into the next page is cut there (see the module's note).
            row, _, written = self._line[-1]
            self._line[-1] = (row, False, written)
            segment.add(self._line, self.cols)
            self._line = []
        segment.seal()  # a page is never added to
        self.segments.append(segment)
        self._segment = None

    def droppable(self, keep: int) -> int:
        """Rows of the oldest pages read that can go while Ghostty keeps at least `keep`
        history rows (so that a pane that grows pulls lines back as before)."""
        left, drop = self.kept, 0
        for segment in self.segments:
            size = segment.size()
            if left - size < keep:
                break
            left -= size
            drop += size
        return drop

    def moved(self, dropped: int) -> list[ColdHistory]:
        """The segments holding exactly the `dropped` oldest rows (Ghostty frees whole
        pages, so they end where a page read ends; should they not, the rows of the last
        page beyond `dropped` are still in Ghostty and are left out here)."""
        out: list[ColdHistory] = []
        left = dropped
        for segment in self.segments:
            if left <= 0:
                break
            size = segment.size()
            if size <= left:
                out.append(segment)
            else:
                part = ColdHistory(self.cols)
                part.add([(row, False) for row in segment.rows(0, left)], self.cols)
                part.seal()
                out.append(part)
            left -= size
        return out

    @property
    def staged(self) -> int:
        return sum(segment.size() for segment in self.segments)
