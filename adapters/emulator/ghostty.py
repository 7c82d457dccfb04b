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
state update per screenful), never cell by cell.
"""

from __future__ import annotations

import logging
import time
import weakref
from collections.abc import Callable
from typing import Any

from adapters.emulator.ghostty_lib import Binding, load
from adapters.emulator.ghostty_rows import MAX_GRAPHEME, Style, blank_row, build_row, style_tuple
from adapters.emulator.osc import handle_osc
from adapters.emulator.reports import MAX_REPLY_CHARS, queue_event
from adapters.emulator.stream import MAX_STRING
from core.terminal import (
    Cursor,
    CursorShape,
    MouseMode,
    Row,
    TerminalEvent,
    TerminalEventKind,
    TerminalModes,
)

_log = logging.getLogger(__name__)
_SHAPES = {0: CursorShape.BAR, 1: CursorShape.BLOCK, 2: CursorShape.UNDERLINE}
_PAGE_SLACK = 1024
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
        self._false = ffi.new("bool*", False)
        self._bool = ffi.new("bool*")
        self._u16 = ffi.new("uint16_t*")
        self._u32 = ffi.new("uint32_t*")
        self._size = ffi.new("size_t*")
        self._string = ffi.new("GhosttyString*")
        self._mode = ffi.new("GhosttyTerminalModeConfig*")
        self._style = ffi.new("GhosttyStyle*")
        self._style.size = ffi.sizeof("GhosttyStyle")
        self._graphemes = ffi.new("uint32_t[]", MAX_GRAPHEME)
        self._style_bytes = ffi.buffer(self._style)
        self._styles: dict[bytes, Style] = {}
        # Hot-path functions and keys, looked up once (attribute access on `lib` is not free).
        self._row_get = lib.ghostty_render_state_row_get
        self._cell_select = lib.ghostty_render_state_row_cells_select
        self._cell_get = lib.ghostty_render_state_row_cells_get
        self._key_cells_raw = lib.GHOSTTY_RENDER_STATE_ROW_DATA_CELLS_RAW
        self._key_cells = lib.GHOSTTY_RENDER_STATE_ROW_DATA_CELLS
        self._key_style = lib.GHOSTTY_RENDER_STATE_ROW_CELLS_DATA_STYLE
        self._row_iterator: Any = None
        self._positioned = False
        self._raw = memoryview(b"")
        self._cursor = ffi.new("GhosttyRenderStateCursor*")
        self._cursor.size = ffi.sizeof("GhosttyRenderStateCursor")
        self._full = False
        self._reverse = False
        self._mouse_flags = 0
        self._mouse = MouseMode.OFF
        self._scrollback = max(scrollback_lines, 0)
        self._alternate = lib.GHOSTTY_TERMINAL_SCREEN_ALTERNATE
        self._cols, self._rows = cols, rows
        self._rows_cache: list[Row] = [blank_row(cols)] * rows
        self._raw_rows: list[bytes] = [b""] * rows
        self._unbuilt: set[int] = set()
        self._dirty: set[int] = set(range(rows))
        self._stale = True
        self._replies: list[bytes] = []
        self._reply_bytes = 0
        self._osc = _OscSink()
        self._internal_errors = 0
        self._callbacks: list[Any] = []
        self._configure(scrollback_lines)

    # -- setup --------------------------------------------------------------------------

    def _configure(self, scrollback_lines: int) -> None:
        ffi, lib, t = self._ffi, self._lib, self._t
        # Ghostty frees scrollback a page at a time and its byte limit is on by default: no
        # byte limit, and a page of slack over the line limit so that at least
        # `scrollback_lines` are kept (`history_size` shows exactly that many).
        lines = max(scrollback_lines, 0)
        for option, value in (("SCROLLBACK_MAX_BYTES", 1 << 40),
                              ("SCROLLBACK_MAX_LINES", lines + _PAGE_SLACK if lines else 0)):
            _check(lib.ghostty_terminal_set(t, getattr(lib, f"GHOSTTY_TERMINAL_OPT_{option}"),
                                            ffi.new("size_t*", value)), option)
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
        if self._reply_bytes + length <= MAX_REPLY_CHARS:
            self._replies.append(self._ffi.buffer(data, length)[:])
            self._reply_bytes += length

    def _on_bell(self, _t: Any, _u: Any) -> None:
        self._osc.add_event(TerminalEvent(TerminalEventKind.BELL))

    def _on_title(self, _t: Any, _u: Any) -> None:
        title = self._get_string("TITLE")
        if title is not None:
            self._handle_osc("2", title)

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
        )

    def _mouse_mode(self) -> MouseMode:
        """The mouse mode the program set last (Ghostty keeps a flag per DECSET mode but
        one tracking mode, like xterm: any reset turns tracking off)."""
        if not self._get_bool("MOUSE_TRACKING"):
            self._mouse_flags, self._mouse = 0, MouseMode.OFF
            return MouseMode.OFF
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
        if b"\x7f" in data:
            # DEL is ignored in every parser state (DEC STD 070, tmux, pyte's backend);
            # Ghostty prints it as a glyph. The byte never occurs inside UTF-8 sequences.
            data = data.replace(b"\x7f", b"")
        self._lib.ghostty_terminal_vt_write(self._t, data, len(data))
        self._stale, self._same_pages = True, False

    def resize(self, cols: int, rows: int) -> None:
        cols, rows = _clamp(cols), _clamp(rows)
        if (cols, rows) == (self._cols, self._rows):
            return
        self._sync()
        _check(self._lib.ghostty_terminal_resize(self._t, cols, rows, 8, 16), "resize")
        self._cols, self._rows = cols, rows
        self._rows_cache = [blank_row(cols)] * rows
        self._raw_rows = [b""] * rows
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

    def cursor(self) -> Cursor:
        self._sync()
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
        return min(self._kept_history(), self._scrollback)

    def _kept_history(self) -> int:
        """Scrollback lines Ghostty holds: it frees whole pages, so it may hold more than
        `scrollback_lines`; the port shows only the newest `scrollback_lines` of them."""
        lib = self._lib
        if lib.ghostty_terminal_get(self._t, lib.GHOSTTY_TERMINAL_DATA_SCROLLBACK_ROWS,
                                    self._size):
            return 0
        return int(self._size[0])

    def render_history(self, start: int, count: int) -> list[Row]:
        kept = self._kept_history()
        size = min(kept, self._scrollback)
        start = max(start, 0)
        stop = min(start + max(count, 0), size)
        if start >= stop:
            return []
        start, stop = start + kept - size, stop + kept - size
        self._sync()
        lib = self._lib
        rows: list[Row] = []
        scroll = self._ffi.new("IdeaScrollViewportS*")
        scroll_viewport = lib.ghostty_terminal_scroll_viewport
        try:
            while start + len(rows) < stop:
                top = start + len(rows)
                scroll.tag = lib.GHOSTTY_SCROLL_VIEWPORT_ROW
                scroll.value[0] = top
                scroll_viewport(self._t, scroll[0])
                _check(lib.ghostty_render_state_update(self._state, self._t), "render_state")
                want = min(stop - top, self._rows)
                rows.extend(self._read_rows(want))
        finally:
            scroll.tag = lib.GHOSTTY_SCROLL_VIEWPORT_BOTTOM
            scroll_viewport(self._t, scroll[0])
            self._stale = self._full = self._same_pages = True
        return rows

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
        not once per 16 KiB read: a `cat` flood reads many times per frame).
        """
        lib = self._lib
        if self._stale:
            self._stale = False
            _check(lib.ghostty_render_state_update(self._state, self._t), "render_state_update")
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
                lib.ghostty_render_state_set(self._state, lib.GHOSTTY_RENDER_STATE_OPTION_DIRTY,
                                             self._dirty_out_false())
                return
        if build and self._unbuilt:
            self._pass(False, True)

    _same_pages = False

    def _dirty_out_false(self) -> Any:
        self._dirty_out[0] = self._lib.GHOSTTY_RENDER_STATE_DIRTY_FALSE
        return self._dirty_out

    def _pass(self, full: bool, build: bool, same_pages: bool = False) -> None:
        """One walk over the render state's rows: the changed ones (all when `full`) and the
        ones noted but not built yet."""
        lib = self._lib
        iterator = self._iterator_box[0]
        _check(lib.ghostty_render_state_get(self._state, lib.GHOSTTY_RENDER_STATE_DATA_ROW_ITERATOR,
                                            self._iterator_box), "row iterator")
        row_get, row_set = self._row_get, lib.ghostty_render_state_row_set
        is_dirty, view, ffi = self._bool, self._view, self._ffi
        key_dirty = lib.GHOSTTY_RENDER_STATE_ROW_DATA_DIRTY
        unset = lib.GHOSTTY_RENDER_STATE_ROW_OPTION_DIRTY
        cache, raws, unbuilt, dirty = self._rows_cache, self._raw_rows, self._unbuilt, self._dirty
        rows, y = len(cache), 0
        while y < rows and lib.ghostty_render_state_row_iterator_next(iterator):
            changed = full
            if not changed:
                row_get(iterator, key_dirty, is_dirty)
                changed = bool(is_dirty[0])
            if changed or (build and y in unbuilt):
                if changed:
                    row_set(iterator, unset, self._false)
                _check(row_get(iterator, self._key_cells_raw, view), "row cells")
                raw = ffi.buffer(view.ptr, view.len * 8)[:]
                if (changed and raw == raws[y] and (y not in unbuilt or not build)
                        and (same_pages or not full or _page_free(raw))):
                    pass  # rewritten with the same cells: nothing to show again
                elif build:
                    row = self._build(iterator, raw)
                    if cache[y] != row:
                        cache[y] = row
                        if y not in unbuilt:
                            dirty.add(y)
                    raws[y] = raw
                    unbuilt.discard(y)
                else:  # noted now, built once when a frame shows it
                    unbuilt.add(y)
                    dirty.add(y)
                    raws[y] = raw
            y += 1

    def _build(self, iterator: Any, raw: bytes) -> Row:
        cells = memoryview(raw).cast("Q")
        self._row_iterator, self._positioned, self._raw = iterator, False, cells
        return build_row(cells, self._style_at, self._grapheme_at, self._reverse)

    def _read_rows(self, count: int) -> list[Row]:
        """The first `count` rows of the render state (for scrollback reads)."""
        lib = self._lib
        iterator = self._iterator_box[0]
        _check(lib.ghostty_render_state_get(self._state, lib.GHOSTTY_RENDER_STATE_DATA_ROW_ITERATOR,
                                            self._iterator_box), "row iterator")
        rows: list[Row] = []
        while len(rows) < count and lib.ghostty_render_state_row_iterator_next(iterator):
            rows.append(self._read_row(iterator, False))
        return rows

    def _read_row(self, iterator: Any, reverse: bool) -> Row:
        view = self._view
        _check(self._row_get(iterator, self._key_cells_raw, view), "row cells")
        raw = memoryview(self._ffi.buffer(view.ptr, view.len * 8)[:]).cast("Q")
        self._row_iterator, self._positioned, self._raw = iterator, False, raw
        return build_row(raw, self._style_at, self._grapheme_at, reverse)

    def _row_cells(self) -> Any:
        """The cell iterator, on the row being read (positioned once per row, if needed)."""
        if not self._positioned:
            _check(self._row_get(self._row_iterator, self._key_cells, self._cells_box),
                   "row cells iterator")
            self._positioned = True
        return self._cells_box[0]

    def _style_at(self, x: int) -> Style:
        cells = self._row_cells()
        self._cell_select(cells, x)
        if self._cell_get(cells, self._key_style, self._style):
            return (-1, -1, 0)
        # Rows repeat a few styles: convert each distinct one once (keyed by its bytes).
        key = self._style_bytes[:]
        style = self._styles.get(key)
        if style is None:
            if len(self._styles) > 4096:
                self._styles.clear()
            style = self._styles[key] = style_tuple(self._lib, self._style)
        return style

    def _grapheme_at(self, x: int) -> str:
        lib = self._lib
        cells = self._row_cells()
        self._cell_select(cells, x)
        self._cell_get(cells, lib.GHOSTTY_RENDER_STATE_ROW_CELLS_DATA_GRAPHEMES_LEN, self._u32)
        length = int(self._u32[0])
        if length == 0:
            return " "
        if length > MAX_GRAPHEME:
            return chr((self._raw[x] >> 2) & 0x1FFFFF) or " "
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


_PAGE_BOUND = (0xFFFF << 26) | 3 | (1 << 45)  # a style id, a grapheme or colour, a link


def _page_free(raw: bytes) -> bool:
    """No cell refers to anything kept in its page (styles, graphemes, hyperlinks): the same
    raw cells mean the same row wherever the row now lies."""
    return not any([cell & _PAGE_BOUND for cell in memoryview(raw).cast("Q")])


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
