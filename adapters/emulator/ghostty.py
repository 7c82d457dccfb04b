"""`GhosttyEmulator`: the `core.terminal.TerminalEmulator` port on libghostty-vt (D26).

The VT parser, screen, scrollback and reflow are Ghostty's (native code, 30-100× the pure
Python backend). What this class adds is the port's contract on top:
- rows come from one render state: after output, `ghostty_render_state_update` marks the
  rows that changed; each such row's raw cells are read as one buffer and turned into runs
  (`ghostty_rows.build_row`), and a row whose runs are what was last reported is not
  reported dirty again (programs repaint unchanged lines all the time);
- OSC titles, cwd, notifications and clipboard writes arrive through Ghostty's callbacks and
  are handed to `osc.handle_osc` as payloads, so both backends share one OSC policy
  (bounds, sanitising, what is ignored); replies to the program are bounded as in pyte's
  backend and DA answers are tmux's, as there;
- the synchronized-output time box (mode 2026 left open is closed by force after
  `sync_timeout`), and DECSCUSR 0 reported as `CursorShape.DEFAULT`.
Scrollback rows are read by moving the viewport over the history and back (one render
state update per screenful), never cell by cell. While the cell is idle, the oldest history
pages move out of Ghostty into packed segments (`cold_rows`); the history the port shows is
those segments followed by what Ghostty still holds.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from adapters.emulator.bounds import MAX_REPLY_CHARS, MAX_STRING, queue_event
from adapters.emulator.cold_rows import ColdRows, PageMove
from adapters.emulator.ghostty_fixups import (
    DEC_CPR,
    FULL_RESET,
    SOFT_RESET,
    carry_of,
    da_requests,
    may_join_a_cell,
    mouse_asked,
    needs_split,
    pieces,
    soft_reset,
)
from adapters.emulator.ghostty_lib import Binding, load
from adapters.emulator.ghostty_rows import (
    MAX_GRAPHEME,
    Style,
    blank_row,
    build_row,
    page_free,
    style_tuple,
)
from adapters.emulator.ghostty_text import text_of
from adapters.emulator.links import OSC_URI_LIMIT
from adapters.emulator.osc import handle_osc
from core.hyperlinks import safe_uri
from core.terminal import (
    Cursor,
    CursorShape,
    MouseMode,
    Row,
    TerminalEvent,
    TerminalEventKind,
    TerminalModes,
    row_text,
)

_log = logging.getLogger(__name__)
_SHAPES = {0: CursorShape.BAR, 1: CursorShape.BLOCK, 2: CursorShape.UNDERLINE}
# libghostty-vt keeps a screen and its history in pages from a pool of one size,
# `_PAGE_BYTES`; of a standard page, about `_PAGE_GRID` bytes hold rows (8 bytes each plus
# 8 per cell), so its rows depend on the width. Both are checked against the library by
# tests/adapters/emulator/test_ghostty.py (`_PAGE_GRID` errs low: fewer rows per page
# assumed means a page more kept, never a line fewer).
_PAGE_BYTES = 401_408
_PAGE_GRID = 374_500
_MOVE_STEP = 8
"""History rows read per compaction step while moving pages out (≈ 30-100 µs a row, as
many styles as the row has); the packing of a block is a step of its own (≈ 1 ms)."""
_KEEP_MIN = 200
"""History rows at least that a move leaves in Ghostty (and twice the screen's rows): a
pane that grows pulls its last lines back from there, as it did before the move."""
_CLEARS_HISTORY = (b"\x1b[3J", b"\x1bc")
"""ED 3 and RIS: Ghostty empties its history; the moved rows go with it."""
_DEFAULT_SHAPE = 3  # BLOCK_HOLLOW: no DECSCUSR selects it, so it stands for "DECSCUSR 0"
_MOUSE_MODES = ((1003, MouseMode.ANY), (1002, MouseMode.BUTTON), (1000, MouseMode.NORMAL),
                (9, MouseMode.X10))


class _OscSink:
    """What `osc.handle_osc` updates: the title, icon name, cwd and the event queue."""

    def __init__(self) -> None:
        self.title = ""
        self.icon_name = ""
        self.cwd: str | None = None
        self.events: list[TerminalEvent] = []

    def add_event(self, event: TerminalEvent) -> None:
        queue_event(self.events, event)

    def set_link(self, uri: str | None) -> None:
        """Never called: libghostty-vt handles OSC 8 itself and keeps links in its cells."""


class GhosttyEmulator:
    """A terminal screen for one cell, emulated by libghostty-vt.

    Args: as `PyteEmulator`'s (cols, rows, scrollback_lines, clock, sync_timeout).

    Raises:
        GhosttyUnavailable: libghostty-vt does not load here.
    """

    def __init__(
        self,
        cols: int,
        rows: int,
        scrollback_lines: int = 10_000,
        *,
        clock: Callable[[], float] = time.monotonic,
        sync_timeout: float = 0.5,
    ) -> None:
        binding = load()
        self._b: Binding = binding
        ffi, lib = binding.ffi, binding.lib
        self._ffi, self._lib = ffi, lib
        self._clock = clock
        self._sync_timeout = sync_timeout
        self._sync_since: float | None = None
        cols, rows = _clamp(cols), _clamp(rows)
        handle = ffi.new("GhosttyTerminal*")
        _check(lib.ghostty_terminal_new(ffi.NULL, handle, cols, rows), "terminal_new")
        self._t = handle[0]
        state = ffi.new("GhosttyRenderState*")
        _check(lib.ghostty_render_state_new(ffi.NULL, state), "render_state_new")
        self._state = state[0]
        iterator = ffi.new("GhosttyRenderStateRowIterator*")
        _check(lib.ghostty_render_state_row_iterator_new(ffi.NULL, iterator), "row_iterator_new")
        self._iterator_box = iterator
        cells = ffi.new("GhosttyRenderStateRowCells*")
        _check(lib.ghostty_render_state_row_cells_new(ffi.NULL, cells), "row_cells_new")
        self._cells_box = cells
        self._finalizer = weakref.finalize(
            self, _free, lib, self._t, self._state, iterator[0], cells[0]
        )
        # Scratch values reused by every call (cffi allocations are not free).
        self._view = ffi.new("GhosttyCellsView*")
        self._dirty_out = ffi.new("int*")
        self._bool = ffi.new("bool*")
        self._u16 = ffi.new("uint16_t*")
        self._u8 = ffi.new("uint8_t*")
        self._u32 = ffi.new("uint32_t*")
        self._size = ffi.new("size_t*")
        self._string = ffi.new("GhosttyString*")
        self._mode = ffi.new("GhosttyTerminalModeConfig*")
        self._style = ffi.new("GhosttyStyle*")
        self._style.size = ffi.sizeof("GhosttyStyle")
        self._graphemes = ffi.new("uint32_t[]", MAX_GRAPHEME)
        self._style_bytes = ffi.buffer(self._style)
        self._styles: dict[bytes, Style] = {}
        # Asking a linked cell's URI (only rows with linked cells do): the cell's place in
        # the viewport, the grid reference it gives, a buffer one byte longer than any URI
        # libghostty-vt keeps (a URI filling it is refused).
        self._point = ffi.new("IdeaPointS*")
        self._point.tag = lib.GHOSTTY_POINT_TAG_VIEWPORT
        self._grid_ref = ffi.new("GhosttyGridRef*")
        self._grid_ref.size = ffi.sizeof("GhosttyGridRef")
        self._uri = ffi.new("uint8_t[]", OSC_URI_LIMIT + 1)
        self._row_y = 0
        # Hot-path functions and keys, looked up once (attribute access on `lib` is not free).
        self._row_get = lib.ghostty_render_state_row_get
        self._cell_select = lib.ghostty_render_state_row_cells_select
        self._cell_get = lib.ghostty_render_state_row_cells_get
        self._key_cells_raw = lib.GHOSTTY_RENDER_STATE_ROW_DATA_CELLS_RAW
        self._key_cells = lib.GHOSTTY_RENDER_STATE_ROW_DATA_CELLS
        self._key_style = lib.GHOSTTY_RENDER_STATE_ROW_CELLS_DATA_STYLE
        self._key_row_id = lib.GHOSTTY_RENDER_STATE_ROW_DATA_ID
        self._row_iterator: Any = None
        self._positioned = False
        self._raw = b""
        self._cursor = ffi.new("GhosttyRenderStateCursor*")
        self._cursor.size = ffi.sizeof("GhosttyRenderStateCursor")
        self._full = False
        self._reverse = False
        self._mouse_flags = 0
        self._mouse = MouseMode.OFF
        self._mouse_asked: MouseMode | None = None
        self._carry = b""
        """The unfinished control sequence the last read ended with (`carry_of`)."""
        self._utf8_tail = b""  # the end of the last read: a code point may be cut in two
        self._dec_cpr = False
        self._da_next = False
        self._da_replies: list[int] = []
        self._scrollback = max(scrollback_lines, 0)
        self._cold = ColdRows()
        """The oldest history, moved out of Ghostty's pages while the cell was idle."""
        self._move: PageMove | None = None
        self._generation = 0
        """Moves on with every write and resize: a page move begun before is void."""
        self._moved_at = -1
        """The generation the last move ended at: none again until output comes."""
        self._raw_row = ffi.new("GhosttyRow*")
        self._pages = self._max_pages = self._kept = 0
        self._alternate = lib.GHOSTTY_TERMINAL_SCREEN_ALTERNATE
        self._cols, self._rows = cols, rows
        self._rows_cache: list[Row] = [blank_row(cols)] * rows
        self._raw_rows: list[bytes] = [b""] * rows
        # Per row, the styles its build looked up: the columns where it looked each style id
        # up, and (style id, the style's bytes) for each; None when it holds grapheme
        # clusters (kept in the page, not checked).
        self._row_styles: list[_RowStyles | None] = [None] * rows
        self._seen: list[tuple[int, int, bytes]] | None = []
        self._page_styles: dict[tuple[int, int], bytes] = {}
        self._checked: dict[tuple[int, tuple[tuple[int, bytes], ...]], bool] = {}
        self._serial = -1
        self._row_id = ffi.new("GhosttyRenderStateRowId*")
        self._unbuilt: set[int] = set()
        self._dirty: set[int] = set(range(rows))
        self._stale = True
        self._compresses = binding.compresses
        self._activity = ffi.new("uint64_t*")
        self._compress_out = ffi.new("int*")
        self._compressed_at: int | None = None
        """The activity token when the last compression pass completed."""
        self._replies: list[bytes] = []
        self._reply_bytes = 0
        self._osc = _OscSink()
        self._title_pending = False
        self._internal_errors = 0
        self._callbacks: list[Any] = []
        self._configure(scrollback_lines)

    # -- setup --------------------------------------------------------------------------

    def _configure(self, scrollback_lines: int) -> None:
        ffi, lib, t = self._ffi, self._lib, self._t
        self._limit_history()
        _check(
            lib.ghostty_terminal_set(
                t, lib.GHOSTTY_TERMINAL_OPT_DEFAULT_CURSOR_STYLE, ffi.new("int*", _DEFAULT_SHAPE)
            ),
            "cursor style",
        )
        self._on("WRITE_PTY", "GhosttyTerminalWritePtyFn", self._on_reply)
        self._on("BELL", "GhosttyTerminalBellFn", self._on_bell)
        self._on("TITLE_CHANGED", "GhosttyTerminalTitleChangedFn", self._on_title)
        self._on("PWD_CHANGED", "GhosttyTerminalPwdChangedFn", self._on_pwd)
        self._on("DESKTOP_NOTIFICATION", "GhosttyTerminalDesktopNotificationFn", self._on_notify)
        self._on("CLIPBOARD_WRITE", "GhosttyTerminalClipboardWriteFn", self._on_clipboard)
        self._on("DEVICE_ATTRIBUTES", "GhosttyTerminalDeviceAttributesFn", self._on_da)
        self._on("SIZE", "GhosttyTerminalSizeFn", self._on_size)
        self._on("RENDER_HOLD", "GhosttyTerminalRenderHoldFn", self._on_hold)

    def _limit_history(self) -> None:
        """Bound the history by bytes, a whole number of pages: enough standard pages for
        `scrollback_lines` below the screen, and one more (`history_size` shows exactly
        that many; Ghostty frees whole pages, so it holds up to a page more).

        Not by Ghostty's line limit: that one frees the oldest page and maps a fresh one
        for every page of output (a page fault per 4 KiB, 3-4x the parser's own cost on a
        scrolling log), where the byte limit reuses the oldest page in place. A page that
        needed more room than a standard one (many distinct styles, graphemes, links) is
        bigger, so fewer pages fit the bytes: `_grow_budget` adds a page when history was
        cut short of the bound."""
        lines = self._scrollback
        rows_per_page = max(_PAGE_GRID // (8 * self._cols + 8), 1)
        self._pages = -(-(lines + self._rows) // rows_per_page) + 1 if lines else 0
        self._max_pages = 2 * self._pages
        self._set_budget()

    def _set_budget(self) -> None:
        lib = self._lib
        budget = self._pages * _PAGE_BYTES + _PAGE_BYTES // 2 if self._pages else 0
        _check(lib.ghostty_terminal_set(self._t, lib.GHOSTTY_TERMINAL_OPT_SCROLLBACK_MAX_BYTES,
                                        self._ffi.new("size_t*", budget)), "scrollback bytes")

    def _grow_budget(self) -> None:
        """After output: if Ghostty freed a page while the history was short of
        `scrollback_lines` (its pages were bigger than standard ones), one page more, up
        to twice the standard budget. A history emptied (ED 3, the alternate screen) is
        not a page freed."""
        kept = self._kept_history()
        if (0 < kept < self._kept and kept < self._scrollback
                and self._pages < self._max_pages):
            self._pages += 1
            self._set_budget()
        self._kept = kept

    def _on(self, option: str, ctype: str, fn: Callable[..., Any]) -> None:
        ffi, lib = self._ffi, self._lib
        callback = ffi.callback(ctype, fn, onerror=self._on_callback_error)
        self._callbacks.append(callback)  # the trampoline must outlive the terminal's use
        _check(
            lib.ghostty_terminal_set(self._t, getattr(lib, f"GHOSTTY_TERMINAL_OPT_{option}"),
                                     callback),
            option,
        )

    def _on_callback_error(self, exc: type[BaseException], value: BaseException, tb: Any) -> None:
        self._internal_errors += 1
        _log.error("terminal emulator callback failed", exc_info=(exc, value, tb))

    # -- callbacks (called from inside ghostty_terminal_vt_write) -----------------------

    def _on_reply(self, _t: Any, _u: Any, data: Any, length: int) -> None:
        da, self._da_next = self._da_next, False
        if self._reply_bytes + length <= MAX_REPLY_CHARS:
            reply = self._ffi.buffer(data, length)[:]
            if self._dec_cpr and reply.startswith(b"\x1b["):
                reply = b"\x1b[?" + reply[2:]
            if da:
                self._da_replies.append(len(self._replies))
            self._replies.append(reply)
            self._reply_bytes += len(reply)
        elif da:
            self._da_replies.append(-1)

    def _on_bell(self, _t: Any, _u: Any) -> None:
        if self._title_pending:
            self._take_title()
        self._osc.add_event(TerminalEvent(TerminalEventKind.BELL))

    def _on_title(self, _t: Any, _u: Any) -> None:
        # Only the latest title matters (the event queue keeps one): it is read when the
        # write returns, or before the next other event (so events keep their order), so
        # a program retitling itself in a loop costs a flag per title, not a string read,
        # a clean-up and an event each (a read of such a flood held the daemon's loop for
        # 30-60 ms).
        self._title_pending = True

    def _take_title(self) -> None:
        self._title_pending = False
        title = self._get_string("TITLE")
        if title is not None and len(title) <= MAX_STRING:
            handle_osc(self._osc, f"2;{title}")

    def _on_pwd(self, _t: Any, _u: Any) -> None:
        pwd = self._get_string("PWD")
        if pwd:
            self._handle_osc("7", pwd)

    def _on_notify(self, _t: Any, _u: Any, note: Any) -> None:
        title, body = self._text(note.title), self._text(note.body)
        if title:
            self._handle_osc("777", f"notify;{title};{body}")
        elif body:
            self._handle_osc("9", body)

    def _on_clipboard(self, _t: Any, _u: Any, write: Any) -> None:
        import base64

        for index in range(write.contents_len):
            content = write.contents[index]
            mime = self._text(content.mime)
            if mime and not mime.startswith("text/"):
                continue
            if content.data.len > MAX_STRING:
                return
            data = self._ffi.buffer(content.data.ptr, content.data.len)[:]
            self._handle_osc("52", "c;" + base64.b64encode(data).decode("ascii"))
            return

    def _on_da(self, _t: Any, _u: Any, out: Any) -> bool:
        self._da_next = True  # the next reply answers it (see `_drop_da_with_parameters`)
        # As tmux (and pyte's backend) answer: DA1 `CSI ? 1 ; 2 c`, DA2 `CSI > 84 ; 0 ; 0 c`.
        out.primary.conformance_level = 1
        out.primary.features[0] = 2
        out.primary.num_features = 1
        out.secondary.device_type = 84
        out.secondary.firmware_version = 0
        out.secondary.rom_cartridge = 0
        out.tertiary.unit_id = 0
        return True

    def _on_size(self, _t: Any, _u: Any, out: Any) -> bool:
        out.rows, out.columns = self._rows, self._cols
        out.cell_width, out.cell_height = 8, 16
        return True

    def _on_hold(self, _t: Any, _u: Any, held: bool) -> None:
        self._sync_since = self._clock() if held else None

    def _text(self, value: Any) -> str:
        if not value.len:
            return ""
        return bytes(self._ffi.buffer(value.ptr, min(value.len, MAX_STRING))).decode(
            "utf-8", "replace"
        )

    def _get_string(self, key: str) -> str | None:
        lib = self._lib
        if lib.ghostty_terminal_get(self._t, getattr(lib, f"GHOSTTY_TERMINAL_DATA_{key}"),
                                    self._string):
            return None
        if self._string.len > MAX_STRING:
            return None
        return self._text(self._string)

    def _handle_osc(self, code: str, rest: str) -> None:
        if self._title_pending:
            self._take_title()
        if len(rest) <= MAX_STRING:
            handle_osc(self._osc, f"{code};{rest}")

    # -- the port -----------------------------------------------------------------------

    @property
    def cols(self) -> int:
        return self._cols

    @property
    def rows(self) -> int:
        return self._rows

    @property
    def title(self) -> str:
        return self._osc.title

    @property
    def cwd(self) -> str | None:
        return self._osc.cwd

    @property
    def modes(self) -> TerminalModes:
        mode = self._mode_set
        return TerminalModes(
            app_cursor=mode(1),
            app_keypad=mode(66),
            bracketed_paste=mode(2004),
            mouse=self._mouse_mode(),
            mouse_sgr=mode(1006),
            focus_events=mode(1004),
            alt_screen=self._get_int("ACTIVE_SCREEN") == self._alternate,
            kitty_keys=self._kitty_keys(),
        )

    def _kitty_keys(self) -> int:
        """The kitty keyboard flags of the active screen (Ghostty keeps a stack per screen,
        and answers the program's `CSI ? u` itself)."""
        if self._lib.ghostty_terminal_get(
                self._t, self._lib.GHOSTTY_TERMINAL_DATA_KITTY_KEYBOARD_FLAGS, self._u8):
            return 0
        return int(self._u8[0])

    def _mouse_mode(self) -> MouseMode:
        """The mouse mode the program set last (Ghostty keeps a flag per DECSET mode but
        one tracking mode, like xterm: any reset turns tracking off)."""
        if not self._get_bool("MOUSE_TRACKING"):
            self._mouse_flags, self._mouse, self._mouse_asked = 0, MouseMode.OFF, None
            return MouseMode.OFF
        if self._mouse_asked is not None:  # seen in the reads (xterm's rule, `ghostty_fixups`)
            return self._mouse_asked
        flags = sum(1 << index for index, (code, _) in enumerate(_MOUSE_MODES)
                    if self._mode_set(code))
        new = flags & ~self._mouse_flags
        if new or self._mouse == MouseMode.OFF:
            # The newly set flag is the last mode asked for (the highest if several were).
            pick = new or flags
            self._mouse = next((kind for index, (_, kind) in enumerate(_MOUSE_MODES)
                                if pick & (1 << index)), MouseMode.OFF)
        self._mouse_flags = flags
        return self._mouse

    @property
    def synchronized(self) -> bool:
        if self._sync_since is None:
            return False
        if self._clock() - self._sync_since >= self._sync_timeout:
            self._sync_since = None
            self._set_mode(2026, False)
            return False
        return True

    def feed(self, data: bytes) -> None:
        if not data:
            return
        self._generation += 1
        if self._cold:
            cut = self._history_cleared_at(data)
            if cut is not None:
                # The moved rows are cleared with Ghostty's history, and only then does the
                # output after the clear scroll into a history that starts again.
                self._feed(data[:cut])
                if not self._kept_history() and not self._on_alternate():
                    self._cold.clear()
                data = data[cut:]
                if not data:
                    return
        self._feed(data)

    def _history_cleared_at(self, data: bytes) -> int | None:
        """Where in `data` the last ED 3 or RIS ends (the previous read's unfinished
        sequence in front: a clear cut in two is found), or None."""
        scanned = self._carry + data
        ends = [scanned.rfind(code) + len(code) for code in _CLEARS_HISTORY if code in scanned]
        if not ends:
            return None
        return max(max(ends) - len(self._carry), 0)

    def _feed(self, data: bytes) -> None:
        if b"\x7f" in data:
            # DEL is ignored in every parser state (DEC STD 070, tmux, pyte's backend);
            # Ghostty prints it as a glyph. The byte never occurs inside UTF-8 sequences.
            data = data.replace(b"\x7f", b"")
        # The fixups look at this read with the previous one's unfinished sequence in
        # front: a request cut between two reads is corrected as one that is not.
        carry = self._carry
        scanned = carry + data if carry else data
        self._carry = carry_of(scanned)  # a sequence may be cut more than once
        self._mouse_asked = mouse_asked(scanned, self._mouse_asked)
        write, terminal = self._lib.ghostty_terminal_vt_write, self._t
        if not needs_split(scanned):
            write(terminal, data, len(data))
        else:
            for piece, fixed in pieces(data, carry):
                write(terminal, piece, len(piece))
                if fixed == SOFT_RESET:
                    reset = soft_reset(self._get_int("CURSOR_X"), self._get_int("CURSOR_Y"))
                    write(terminal, reset, len(reset))
                elif fixed == DEC_CPR:
                    self._dec_cpr = True  # the reply to this CSI 6 n gets its "?"
                    write(terminal, b"\x1b[6n", 4)
                    self._dec_cpr = False
                elif fixed == FULL_RESET:
                    if self._title_pending:
                        self._take_title()  # the title set before the reset stays
                    write(terminal, FULL_RESET, len(FULL_RESET))
        # A joiner cut between two reads is in the few bytes around the cut: the read
        # itself is not copied to look at it with the last read's end in front.
        tail = self._utf8_tail
        joins = may_join_a_cell(data) or (bool(tail) and may_join_a_cell(tail + data[:3]))
        self._utf8_tail = data[-3:]
        if joins:
            # Setting the default foreground to what it is (never set: the default) is how
            # to have the next update copy every row (see `ghostty_fixups`).
            self._lib.ghostty_terminal_set(
                terminal, self._lib.GHOSTTY_TERMINAL_OPT_COLOR_FOREGROUND, self._ffi.NULL)
        if self._title_pending:
            try:
                self._take_title()
            except Exception as exc:  # as in a callback: counted, and the screen goes on
                self._on_callback_error(type(exc), exc, exc.__traceback__)
        if self._da_replies:
            self._drop_da_with_parameters(scanned)
        if self._pages < self._max_pages:
            self._grow_budget()
        self._stale, self._same_pages = True, False

    def _drop_da_with_parameters(self, data: bytes) -> None:
        """xterm ignores DA1/DA2/DA3 with a non-zero parameter; Ghostty answers them. The
        requests of this read (a request cut between reads is in it whole, the previous read's
        carry in front) are paired with the replies made to them, in order; should the
        counts differ, the pairing is unknown and nothing is dropped."""
        indexes, self._da_replies = self._da_replies, []
        requests = da_requests(data)
        if len(requests) != len(indexes):
            return
        for answered, index in zip(requests, indexes, strict=True):
            if not answered and index >= 0:
                self._reply_bytes -= len(self._replies[index])
                self._replies[index] = b""

    def resize(self, cols: int, rows: int) -> None:
        cols, rows = _clamp(cols), _clamp(rows)
        if (cols, rows) == (self._cols, self._rows):
            return
        self._generation += 1
        self._cold.resize(cols)
        self._sync()
        _check(self._lib.ghostty_terminal_resize(self._t, cols, rows, 8, 16), "resize")
        self._cols, self._rows = cols, rows
        self._limit_history()
        self._kept = self._kept_history()  # reflow moves lines in or out: not a page freed
        self._rows_cache = [blank_row(cols)] * rows
        self._raw_rows = [b""] * rows
        self._row_styles = [None] * rows
        self._unbuilt = set()
        self._dirty = set(range(rows))
        self._stale = self._full = True

    def take_dirty(self) -> set[int]:
        self._sync(build=False)
        dirty = {y for y in self._dirty if y < self._rows}
        self._dirty = set()
        return dirty

    def take_replies(self) -> bytes:
        if not self._replies:
            return b""
        data = b"".join(self._replies)
        self._replies = []
        self._reply_bytes = 0
        return data

    def take_events(self) -> list[TerminalEvent]:
        events = self._osc.events
        self._osc.events = []
        return events

    def render_row(self, y: int) -> Row:
        self._sync()
        return self._rows_cache[y]

    def row_text(self, y: int) -> str:
        # A row noted but not built (an agent's screen nobody shows) is read from its raw
        # cells without resolving its styles; `render_row` would build every noted row.
        self._sync(build=False)
        if y in self._unbuilt:
            text = text_of(self._raw_rows[y])
            if text is not None:
                return text
            return row_text(self.render_row(y))
        return row_text(self._rows_cache[y])

    def cursor(self) -> Cursor:
        self._sync(build=False)  # the render state's cursor is current; rows need not be
        lib, cursor = self._lib, self._cursor
        lib.ghostty_render_state_get(self._state, lib.GHOSTTY_RENDER_STATE_DATA_CURSOR, cursor)
        style = int(cursor.visual_style)
        default = style == _DEFAULT_SHAPE
        return Cursor(
            x=min(self._get_int("CURSOR_X"), self._cols - 1),
            y=min(self._get_int("CURSOR_Y"), self._rows - 1),
            visible=bool(cursor.visible),
            shape=CursorShape.DEFAULT if default else _SHAPES.get(style, CursorShape.DEFAULT),
            blink=True if default else bool(cursor.blinking),
        )

    def history_size(self) -> int:
        return min(self._kept_history() + self._cold_size(), self._scrollback)

    def _cold_size(self) -> int:
        """Rows moved out of Ghostty, shown before its own (none on the alternate screen,
        which has no history)."""
        if not self._cold or self._on_alternate():
            return 0
        return self._cold.size()

    def _on_alternate(self) -> bool:
        return bool(self._get_int("ACTIVE_SCREEN") == self._alternate)

    def _kept_history(self) -> int:
        """Scrollback lines Ghostty holds: it frees whole pages, so it may hold more than
        `scrollback_lines`; the port shows only the newest `scrollback_lines` of them."""
        lib = self._lib
        if lib.ghostty_terminal_get(self._t, lib.GHOSTTY_TERMINAL_DATA_SCROLLBACK_ROWS,
                                    self._size):
            return 0
        return int(self._size[0])

    def render_history(self, start: int, count: int) -> list[Row]:
        cold = self._cold_size()
        total = self._kept_history() + cold
        size = min(total, self._scrollback)
        start = max(start, 0)
        stop = min(start + max(count, 0), size)
        if start >= stop:
            return []
        # The port shows the newest `scrollback_lines` of the moved rows and Ghostty's.
        start, stop = start + total - size, stop + total - size
        rows = self._cold.rows(start, min(stop, cold) - start) if start < cold else []
        if stop > cold:
            rows.extend(self._ghostty_history(max(start, cold) - cold, stop - cold))
        return rows

    def _ghostty_history(self, start: int, stop: int) -> list[Row]:
        """Rows `[start, stop)` of the history Ghostty holds, 0 its oldest."""
        self._sync()
        rows: list[Row] = []
        with self._history_viewport() as show:
            while start + len(rows) < stop:
                top = start + len(rows)
                show(top)
                rows.extend(self._read_rows(min(stop - top, self._rows)))
        return rows

    @contextmanager
    def _history_viewport(self) -> Iterator[Callable[[int], None]]:
        """A function that puts the viewport (and the render state) on history row `top`;
        the viewport is back at the bottom afterwards, whatever happened."""
        lib = self._lib
        scroll = self._ffi.new("IdeaScrollViewportS*")
        scroll_viewport = lib.ghostty_terminal_scroll_viewport

        def show(top: int) -> None:
            scroll.tag = lib.GHOSTTY_SCROLL_VIEWPORT_ROW
            scroll.value[0] = top
            scroll_viewport(self._t, scroll[0])
            self._update()

        try:
            yield show
        finally:
            scroll.tag = lib.GHOSTTY_SCROLL_VIEWPORT_BOTTOM
            scroll_viewport(self._t, scroll[0])
            self._stale = self._full = self._same_pages = True
            # The lookups of the pages read are of no use to the screen: not kept until the
            # next update (a whole history holds tens of thousands).
            self._page_styles.clear()
            self._checked.clear()

    def compact_step(self) -> bool:
        """One bounded step: of a page move (the oldest history out of Ghostty, see
        `cold_rows`), else of Ghostty's compression of the history it keeps."""
        if not self._finalizer.alive:
            return False
        return self._move_step() or self._compress_step()

    def _move_step(self) -> bool:
        """Read the next rows of a page move (beginning one when Ghostty holds pages it
        would free), or end it; False when there is nothing to move."""
        move = self._move
        if move is None:
            move = self._move = self._begin_move()
            if move is None:
                return False
        elif move.generation != self._generation:
            self._move = None  # output or a resize since: the rows read may have moved
            return False
        if move.pack_due:
            move.pack()
            return True
        if not move.done:
            want = min(_MOVE_STEP, move.kept - move.next_row)
            move.take(self._history_rows_read(move.next_row, want))
            return True
        self._move = None
        self._moved_at = self._generation
        self._end_move(move)
        return True

    def _begin_move(self) -> PageMove | None:
        """A page move, when the history holds three pages or more (a move frees the
        oldest and leaves at least `_KEEP_MIN` rows) and has grown since the last move;
        else None. It reads up to the page the screen starts in, which Ghostty never
        frees."""
        kept = self._kept_history()
        rows_per_page = max(_PAGE_GRID // (8 * self._cols + 8), 1)
        if (kept < 3 * rows_per_page or self._moved_at == self._generation
                or self._on_alternate()):
            return None
        self._sync()
        iterator = self._rows_iterator()
        if not self._lib.ghostty_render_state_row_iterator_next(iterator):
            return None
        _check(self._row_get(iterator, self._key_row_id, self._row_id), "row id")
        move = PageMove(self._cols, int(self._row_id.bits[0]), kept)
        move.generation = self._generation
        return move

    def _history_rows_read(self, start: int, count: int) -> list[tuple[Row, bool, int, int]]:
        """Ghostty's history rows `[start, start + count)` (count at most a screenful),
        each with whether it wraps on, the serial of its page and the cells up to the last
        one written (an empty cell is all zero bits; a printed blank is not)."""
        lib = self._lib
        read: list[tuple[Row, bool, int, int]] = []
        with self._history_viewport() as show:
            show(start)
            iterator = self._rows_iterator()
            row_get, raw, wrap = self._row_get, self._raw_row, self._bool
            key_raw, key_wrap = lib.GHOSTTY_RENDER_STATE_ROW_DATA_RAW, lib.GHOSTTY_ROW_DATA_WRAP
            want = min(count, self._rows)
            next_row = lib.ghostty_render_state_row_iterator_next
            while len(read) < want and next_row(iterator):
                _check(row_get(iterator, key_raw, raw), "row")
                _check(lib.ghostty_row_get(raw[0], key_wrap, wrap), "row wrap")
                _check(row_get(iterator, self._key_row_id, self._row_id), "row id")
                wrapped, serial = bool(wrap[0]), int(self._row_id.bits[0])
                row = self._read_row(iterator, False, len(read))
                written = (len(self._raw.rstrip(b"\0")) + 7) // 8
                read.append((row, wrapped, serial, written))
        return read

    def _end_move(self, move: PageMove) -> None:
        """Have Ghostty free the oldest pages read, and keep the rows it freed.

        Ghostty frees its oldest pages then and there when its byte budget is lowered (never
        the pages the screen is in): the budget goes down a page at a time until the pages
        meant to go are gone, then back up."""
        target = move.droppable(max(2 * self._rows, _KEEP_MIN))
        if not target:
            return
        lib, ffi = self._lib, self._ffi
        before = after = self._kept_history()
        budget = self._pages * _PAGE_BYTES + _PAGE_BYTES // 2
        while before - after < target and budget > 1:
            budget = max(budget - _PAGE_BYTES, 1)
            _check(lib.ghostty_terminal_set(
                self._t, lib.GHOSTTY_TERMINAL_OPT_SCROLLBACK_MAX_BYTES, ffi.new("size_t*", budget)),
                "scrollback bytes")
            after = self._kept_history()
        self._set_budget()
        dropped = before - after
        if dropped > move.staged:  # never seen: Ghostty kept less than the page read
            _log.error("history move: Ghostty freed %d rows, %d were read; %d lost",
                       dropped, move.staged, dropped - move.staged)
        for segment in move.moved(dropped):
            self._cold.append(segment)
        self._cold.trim(max(self._scrollback - after, 0))
        self._kept = after
        self._compressed_at = None  # what Ghostty kept may be compressed again
        self._stale = self._full = self._same_pages = True

    def _compress_step(self) -> bool:
        """One bounded step of Ghostty's scrollback compression (≈ 0.5 ms at most for a
        120-column page; a pass over 10,000 lines is some thirty steps and takes the history
        from ≈ 11 MB to ≈ 3 MB). Ghostty restores a page transparently when it is read (a
        scrollback read, a reflow) or written again; its activity token moves then, and only
        then is another pass worth running: with the token where the last complete pass left
        it, this returns False at once."""
        if not self._compresses:
            return False
        lib = self._lib
        if lib.ghostty_terminal_compression_activity(self._t, self._activity):
            return False
        token = int(self._activity[0])
        if token == self._compressed_at:
            return False
        if lib.ghostty_terminal_compress(
            self._t, lib.GHOSTTY_TERMINAL_COMPRESSION_MODE_INCREMENTAL, self._compress_out
        ):
            return False
        if self._compress_out[0] == lib.GHOSTTY_TERMINAL_COMPRESSION_RESULT_PENDING:
            return True
        # Complete (or unsupported here): nothing more until the terminal changes.
        self._compressed_at = token
        return False

    # -- beyond the port ----------------------------------------------------------------

    @property
    def internal_errors(self) -> int:
        """How many callbacks raised (logged; should stay 0)."""
        return self._internal_errors

    @property
    def pending_wrap(self) -> bool:
        """The last column was written and the next character wraps (the cursor shows on
        the last column; tmux reports it one further)."""
        return self._get_bool("CURSOR_PENDING_WRAP")

    @property
    def backend(self) -> str:
        return f"ghostty (pyghostty {self._b.version})"

    def display(self) -> list[str]:
        """Screen text per line, trailing blanks kept (wide characters appear once)."""
        return ["".join(run[0] for run in self.render_row(y)) for y in range(self._rows)]

    def close(self) -> None:
        """Free the native terminal now (garbage collection does it otherwise)."""
        self._finalizer()

    # -- internals ----------------------------------------------------------------------

    def _sync(self, build: bool = True) -> None:
        """Bring the rows up to date with the terminal, noting which rows changed.

        `take_dirty` (after every PTY read) only notes them (`build=False`): a changed row
        whose raw cells are what they were when it was last built is not reported, the
        others are reported and built later, once, by `render_row` (at the frame rate,
        not once per read: a `cat` flood reads many times per frame).
        """
        lib = self._lib
        if self._stale:
            self._stale = False
            self._update()
            lib.ghostty_render_state_get(self._state, lib.GHOSTTY_RENDER_STATE_DATA_DIRTY,
                                         self._dirty_out)
            reverse = self._mode_set(5)
            full = self._full or self._dirty_out[0] == lib.GHOSTTY_RENDER_STATE_DIRTY_FULL
            flipped = reverse != self._reverse
            if flipped:  # DECSCNM changes every row's colours, not its cells
                self._reverse, full = reverse, True
            if full or self._dirty_out[0] != lib.GHOSTTY_RENDER_STATE_DIRTY_FALSE:
                # After a scrollback read the viewport is back where it was: raw cells that
                # are what they were still mean what they meant.
                same_pages = self._full and self._same_pages and not flipped
                self._full = self._same_pages = False
                self._pass(full, build, same_pages)
                lib.ghostty_render_state_clean(self._state)
                return
        if build and self._unbuilt:
            self._build_noted()

    _same_pages = False

    def _update(self) -> None:
        _check(self._lib.ghostty_render_state_update(self._state, self._t), "render_state_update")
        self._page_styles.clear()  # style ids may mean other styles now
        self._checked.clear()

    def _rows_iterator(self) -> Any:
        lib = self._lib
        _check(lib.ghostty_render_state_get(self._state, lib.GHOSTTY_RENDER_STATE_DATA_ROW_ITERATOR,
                                            self._iterator_box), "row iterator")
        return self._iterator_box[0]

    def _pass(self, full: bool, build: bool, same_pages: bool = False) -> None:
        """One walk over the render state's rows after an update: the changed ones (all
        when `full`), and, when building, the ones noted but not built yet."""
        lib = self._lib
        iterator = self._rows_iterator()
        rows = len(self._rows_cache)
        visit = self._visit
        if not full and not (build and self._unbuilt):
            # Ghostty skips the unchanged rows itself: a repaint of a few lines costs a few.
            at = self._u16
            next_dirty = lib.ghostty_render_state_row_iterator_next_dirty
            while next_dirty(iterator, at) and at[0] < rows:
                visit(iterator, at[0], True, build, same_pages)
            return
        row_get, is_dirty = self._row_get, self._bool
        key_dirty = lib.GHOSTTY_RENDER_STATE_ROW_DATA_DIRTY
        unbuilt = self._unbuilt
        next_row = lib.ghostty_render_state_row_iterator_next
        y = 0
        while y < rows and next_row(iterator):
            changed = full
            if not changed:
                row_get(iterator, key_dirty, is_dirty)
                changed = bool(is_dirty[0])
            if changed or (build and y in unbuilt):
                visit(iterator, y, changed, build, same_pages)
            y += 1

    def _build_noted(self) -> None:
        """Build the rows `take_dirty` noted (nothing changed since: no update)."""
        iterator = self._rows_iterator()
        unbuilt = self._unbuilt
        last = min(max(unbuilt), len(self._rows_cache) - 1)
        next_row = self._lib.ghostty_render_state_row_iterator_next
        y = 0
        while y <= last and next_row(iterator):
            if y in unbuilt:
                self._visit(iterator, y, False, True)
            y += 1
        unbuilt.clear()  # rows past the screen (it shrank meanwhile) are gone

    def _visit(self, iterator: Any, y: int, changed: bool, build: bool,
               same_pages: bool = False) -> None:
        """Row y, changed or noted before: skipped if it shows what it showed, else built
        (`build`) or noted to be built once a frame needs it."""
        view, raws, unbuilt = self._view, self._raw_rows, self._unbuilt
        _check(self._row_get(iterator, self._key_cells_raw, view), "row cells")
        raw = self._ffi.buffer(view.ptr, view.len * 8)[:]
        if (changed and raw == raws[y] and (y not in unbuilt or not build)
                and (same_pages or page_free(raw) or self._same_styles(iterator, y))):
            return  # rewritten with the same cells: nothing to show again
        if build:
            row = self._build(iterator, raw, y)
            cache = self._rows_cache
            if cache[y] != row:
                cache[y] = row
                if y not in unbuilt:
                    self._dirty.add(y)
            raws[y] = raw
            self._row_styles[y] = _row_styles(self._seen)
            unbuilt.discard(y)
        else:  # noted now, built once when a frame shows it
            unbuilt.add(y)
            self._dirty.add(y)
            raws[y] = raw

    def _build(self, iterator: Any, raw: bytes, y: int) -> Row:
        self._row_iterator, self._positioned, self._serial, self._raw = iterator, False, -1, raw
        self._seen = []
        self._row_y = y
        return build_row(raw, self._style_at, self._grapheme_at, self._reverse, self._uri_at)

    def _same_styles(self, iterator: Any, y: int) -> bool:
        """Row y's style ids still mean the styles its build saw. Equal raw cells are not
        enough: an id freed (its cells erased) is given to the next new style, so a line
        redrawn in another colour can come back with the very same raw cells."""
        seen = self._row_styles[y]
        if seen is None:
            return False
        columns, styles = seen
        if not styles:
            return True
        _check(self._row_get(iterator, self._key_row_id, self._row_id), "row id")
        serial = self._row_id.bits[0]
        # Rows of a page repainted alike (an agent's whole screen, every frame) hold the
        # same ids and styles: checked once per update.
        key = (serial, styles)
        same = self._checked.get(key)
        if same is None:
            self._row_iterator, self._positioned, self._serial = iterator, False, serial
            style_data = self._style_data
            same = self._checked[key] = all(
                style_data(x, style_id) == data
                for x, (style_id, data) in zip(columns, styles, strict=True))
        return same

    def _read_rows(self, count: int) -> list[Row]:
        """The first `count` rows of the render state (for scrollback reads)."""
        lib = self._lib
        iterator = self._rows_iterator()
        rows: list[Row] = []
        while len(rows) < count and lib.ghostty_render_state_row_iterator_next(iterator):
            rows.append(self._read_row(iterator, False, len(rows)))
        return rows

    def _read_row(self, iterator: Any, reverse: bool, y: int) -> Row:
        view = self._view
        _check(self._row_get(iterator, self._key_cells_raw, view), "row cells")
        raw = self._ffi.buffer(view.ptr, view.len * 8)[:]
        self._row_iterator, self._positioned, self._serial, self._raw = iterator, False, -1, raw
        self._row_y = y
        self._seen = None  # a row read, not built for the screen: its styles are not kept
        return build_row(raw, self._style_at, self._grapheme_at, reverse, self._uri_at)

    def _row_cells(self) -> Any:
        """The cell iterator, on the row being read (positioned once per row, if needed)."""
        if not self._positioned:
            _check(self._row_get(self._row_iterator, self._key_cells, self._cells_box),
                   "row cells iterator")
            self._positioned = True
        return self._cells_box[0]

    def _style_data(self, x: int, key: int) -> bytes | None:
        """The bytes of the style with id `key` (the cell at column x has it) on the row
        being read, or None if Ghostty has none for the cell.

        A style id means something only in its page, and only until its last cell is
        erased, but within one render-state update it means one style: rows of one page
        share the lookup (`_page_styles`, emptied at each update). The page is the first
        word of the row's id (its page's serial; the second is its row in the page)."""
        serial = self._serial
        if serial < 0:
            _check(self._row_get(self._row_iterator, self._key_row_id, self._row_id), "row id")
            serial = self._serial = self._row_id.bits[0]
        data = self._page_styles.get((serial, key))
        if data is None:
            cells = self._row_cells()
            self._cell_select(cells, x)
            if self._cell_get(cells, self._key_style, self._style):
                return None
            data = self._page_styles[(serial, key)] = self._style_bytes[:]
        return data

    def _style_at(self, x: int, key: int) -> Style:
        data = self._style_data(x, key)
        if data is None:
            self._seen = None  # not checkable: the row is built again next time
            return (-1, -1, 0)
        if self._seen is not None:
            self._seen.append((x, key, data))
        # Rows repeat a few styles: convert each distinct one once (keyed by its bytes).
        style = self._styles.get(data)
        if style is None:
            if len(self._styles) > 4096:
                self._styles.clear()
            self._style_bytes[:] = data
            style = self._styles[data] = style_tuple(self._lib, self._style)
        return style

    def _uri_at(self, x: int) -> str | None:
        """The URI of the link of the cell at column x of the row being read (its viewport
        row: the render state was updated from the terminal as it is now), or None if there
        is none or `safe_uri` refuses it."""
        # A row's links are kept in its page, like its clusters, and not checked by
        # `_same_styles`: a row with links is always built again (see `_row_styles`).
        self._seen = None
        lib, point, uri = self._lib, self._point, self._uri
        point.value.x, point.value.y = x, self._row_y
        if lib.ghostty_terminal_grid_ref(self._t, point[0], self._grid_ref):
            return None
        # Non-zero (GHOSTTY_OUT_OF_SPACE) for a URI filling the buffer: longer than any
        # libghostty-vt keeps, refused rather than cut.
        if lib.ghostty_grid_ref_hyperlink_uri(self._grid_ref, uri, len(uri), self._size):
            return None
        length = int(self._size[0])
        if not 0 < length < len(uri):
            return None
        try:
            text = self._ffi.buffer(uri, length)[:].decode("utf-8")
        except UnicodeDecodeError:
            return None
        return safe_uri(text)

    def _grapheme_at(self, x: int) -> str:
        self._seen = None  # a row with clusters is always built again (see `_row_styles`)
        lib = self._lib
        cells = self._row_cells()
        self._cell_select(cells, x)
        self._cell_get(cells, lib.GHOSTTY_RENDER_STATE_ROW_CELLS_DATA_GRAPHEMES_LEN, self._u32)
        length = int(self._u32[0])
        if length == 0:
            return " "
        if length > MAX_GRAPHEME:
            cell = int.from_bytes(self._raw[8 * x:8 * x + 8], "little")
            return chr((cell >> 2) & 0x1FFFFF) or " "
        self._cell_get(cells, lib.GHOSTTY_RENDER_STATE_ROW_CELLS_DATA_GRAPHEMES_BUF,
                       self._graphemes)
        return "".join(chr(self._graphemes[i]) for i in range(length))

    def _mode_set(self, code: int, ansi: bool = False) -> bool:
        config = self._mode
        config.mode = (code & 0x7FFF) | (ansi << 15)
        if self._lib.ghostty_terminal_get(self._t, self._lib.GHOSTTY_TERMINAL_DATA_MODE, config):
            return False
        return bool(config.value)

    def _set_mode(self, code: int, value: bool) -> None:
        config = self._ffi.new("GhosttyTerminalModeConfig*")
        config.mode = code & 0x7FFF
        config.value = value
        self._lib.ghostty_terminal_set(self._t, self._lib.GHOSTTY_TERMINAL_OPT_MODE, config)

    def _get_int(self, key: str) -> int:
        lib = self._lib
        out = self._u16 if key != "ACTIVE_SCREEN" else self._ffi.new("int*")
        if lib.ghostty_terminal_get(self._t, getattr(lib, f"GHOSTTY_TERMINAL_DATA_{key}"), out):
            return 0
        return int(out[0])

    def _get_bool(self, key: str) -> bool:
        lib = self._lib
        if lib.ghostty_terminal_get(self._t, getattr(lib, f"GHOSTTY_TERMINAL_DATA_{key}"),
                                    self._bool):
            return False
        return bool(self._bool[0])


_RowStyles = tuple[tuple[int, ...], tuple[tuple[int, bytes], ...]]


def _row_styles(seen: list[tuple[int, int, bytes]] | None) -> _RowStyles | None:
    if seen is None:
        return None
    return tuple(x for x, _, _ in seen), tuple((key, data) for _, key, data in seen)


def _clamp(size: int) -> int:
    return min(max(size, 1), 4000)


def _check(result: int, what: str) -> None:
    if result:
        raise RuntimeError(f"libghostty-vt {what} failed: {result}")


def _free(lib: Any, terminal: Any, state: Any, iterator: Any, cells: Any) -> None:
    lib.ghostty_render_state_row_cells_free(cells)
    lib.ghostty_render_state_row_iterator_free(iterator)
    lib.ghostty_render_state_free(state)
    lib.ghostty_terminal_free(terminal)
