"""`IdeaStream`: splits decoded terminal output into text runs and control sequences.

pyte's `Stream` walks a generator one character at a time inside sequences; here one compiled
regex finds every control token (CR LF, CSI, OSC, ESC, DCS, single C0) in a single C-level
scan, the text between two tokens is drawn in one call, and CSI actions are cached per
sequence text. Behaviour follows tmux where terminals disagree (see the token comments).

State across `feed` calls: an incomplete escape sequence at the end of a chunk is kept
(bounded) and prepended to the next chunk; an unterminated OSC/DCS string switches to string
mode, which scans only the new data for its terminator (no rescans, so a long string fed a byte
at a time stays linear). String payloads beyond `MAX_STRING` are dropped, not applied.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial

from adapters.emulator.bounds import MAX_STRING
from adapters.emulator.csi import NOOP, build_csi
from adapters.emulator.osc import handle_osc
from adapters.emulator.screen import IdeaScreen

MAX_PENDING = 4_096
_CACHE_LIMIT = 4_096
_CACHEABLE = 64

# Every token starts with one control character, so the pattern opens with that character class:
# `re` then skips plain text with its C charset scan (≈200 MB/s here) instead of trying each
# alternative at every position (≈6 MB/s). Lookbehinds tell the alternatives apart by that
# first character; `lastindex` names the alternative that matched.
_TOKEN = re.compile(
    r"[\x00-\x1f\x7f-\x9f](?:"
    # 1 SGR params, 2 the text that follows it: the commonest pair in coloured output, taken
    # in one step
    r"(?<=\x1b)\[([0-9:;]*)m([^\x00-\x1f\x7f-\x9f]*)"
    r"|(?<=\x1b)(\[([<=>?]?)([0-9:;]*)([ -/]?)([@-~]))"  # 3 CSI: 4 marker 5 params 6 inter 7 final
    r"|(?<=\r)(\n)"  # 8 CR LF, the commonest control pair, in one dispatch
    # 9 OSC (10 payload) ended by BEL or ESC + any character (tmux consumes both; ESC \ is ST)
    r"|(?<=\x1b)(\]([^\x07\x1b]*)(?:\x07|\x1b.))"
    r"|(?<=\x1b)([PX^_][^\x1b]*\x1b.)"  # 11 DCS, SOS, PM, APC: consumed and ignored
    # 12 sequence cut by the end of the chunk (a CSI may hold C0 controls, as in 18)
    r"|(?<=\x1b)((?:\[[0-?\x00-\x17\x19\x1c-\x1f]*[ -/]*|[ -/]*)\Z)"
    r"|(?<=\x1b)([\]PX^_])"  # 13 string with no terminator in this chunk
    # 14 ESC sequence: 15 intermediates + 16 final, or 17 final alone
    r"|(?<=\x1b)((?:([ -/]+)([0-~])|([0-OQ-WYZ\\`-~])))"
    r"|(?<=\x1b)(\[[0-?\x00-\x17\x19\x1c-\x1f]*[ -/]*[@-~])"  # 18 CSI with C0 or odd params
    # 19 sequence cancelled by CAN/SUB, or cut by a new ESC (which then starts afresh)
    r"|(?<=\x1b)((?:\[[0-?]*[ -/]*|[ -/]+)(?:[\x18\x1a]|(?=\x1b)))"
    # 20 any other single control: C0, DEL, a stray ESC, C1 (ignored: UTF-8 terminals do
    # not act on C1 code points)
    r"|()"
    r")",
    re.S,
)
_CSI = re.compile(r"\x1b\[([<=>?]?)([0-9:;]*)([ -/]?)([@-~])")
_OSC_END = re.compile(r"[\x07\x1b]")
_DCS_END = re.compile(r"\x1b")


_TITLE_CODES = ("0;", "2;")
"""OSC payloads that set the title (`flush_title` applies the latest)."""


class IdeaStream:
    """Parses decoded text and drives an `IdeaScreen`."""

    def __init__(self, screen: IdeaScreen) -> None:
        self.screen = screen
        self._pending = ""
        self._text_tail = False  # the last chunk ended with text (see REP in `feed`)
        self._string_kind: str | None = None
        self._string_parts: list[str] = []
        self._string_len = 0
        self._string_esc = False
        self._title: str | None = None
        """The latest title OSC (0 or 2) of this feed, applied by `flush_title`."""
        self._csi_cache: dict[str, Callable[[], None]] = {}
        s = screen
        noop = NOOP[0]
        c0: dict[str, Callable[[], None]] = {chr(code): noop for code in range(32)}
        c0.update((chr(code), noop) for code in range(0x7F, 0xA0))
        c0.update(
            {
                "\x07": s.bell,
                "\x08": s.backspace,
                "\t": s.tab,
                "\n": s.linefeed,
                "\x0b": s.linefeed,
                "\x0c": s.linefeed,
                "\r": s.carriage_return,
                "\x0e": s.shift_out,
                "\x0f": s.shift_in,
            }
        )
        self._c0 = c0
        self._esc_plain: dict[str, Callable[[], None]] = {
            "7": s.save_cursor,
            "8": s.restore_cursor,
            "D": s.index,
            "E": s.crlf,
            "M": s.reverse_index,
            "H": s.set_tab_stop,
            "c": self._reset,
            "=": self._keypad_on,
            ">": self._keypad_off,
        }

    def reset(self) -> None:
        """Forget any partial sequence (after an internal error)."""
        self._pending = ""
        self._text_tail = False
        self._string_kind = None
        self._string_parts = []
        self._string_len = 0
        self._string_esc = False
        self._title = None

    def flush_title(self) -> None:
        """Apply the latest title the output set. Only the latest one matters (the event
        queue keeps one), so a program retitling itself in a loop costs one title per feed,
        not a clean-up and an event per title (such a flood held the daemon's loop for tens
        of milliseconds a read). Called at the end of each feed, and before anything that
        could be ordered after the title (another OSC, a reset)."""
        if self._title is not None:
            title, self._title = self._title, None
            handle_osc(self.screen, title)

    def feed(self, data: str) -> None:
        if self._string_kind is not None:
            data = self._continue_string(data)
            if not data:
                return
        if self._pending:
            data = self._pending + data
            self._pending = ""
        screen = self.screen
        draw = screen.draw
        sgr = screen.sgr
        pos = 0
        # Offset where the last drawn text ended: REP repeats a character only when it comes
        # straight after text (tmux forgets the last character at any control).
        text_end = 0 if self._text_tail else -1
        for match in _TOKEN.finditer(data):
            start = match.start()
            if start != pos:
                draw(data[pos:start])
                text_end = start
            pos = match.end()
            kind = match.lastindex
            if kind == 2:
                params, text = match.group(1, 2)
                sgr(params)
                if text:
                    draw(text)
                    text_end = pos
            elif kind == 3:
                seq = match.group()
                action = self._csi_cache.get(seq)
                if action is None:
                    action = self._build(seq, *match.group(4, 5, 6, 7))
                screen.after_text = text_end == start
                action()
            elif kind == 8:
                screen.crlf()
            elif kind == 20:
                self._c0[match.group()]()
            elif kind == 9:
                payload = match.group(10)
                if len(payload) <= MAX_STRING:
                    if payload[:2] in _TITLE_CODES:
                        self._title = payload
                    else:
                        self.flush_title()
                        handle_osc(screen, payload)
            elif kind == 14:
                self._esc(match.group(15), match.group(16) or match.group(17))
            elif kind == 12:
                tail = match.group()
                if len(tail) <= MAX_PENDING:
                    self._pending = tail
                self._text_tail = text_end == start
                return
            elif kind == 13:
                self._string_kind = match.group(13)
                self._text_tail = False
                rest = self._continue_string(data[pos:])
                if rest:
                    self.feed(rest)
                return
            elif kind == 18:
                screen.after_text = False
                self._odd_csi(match.group())
        if pos < len(data):
            draw(data[pos:])
            text_end = len(data)
        self._text_tail = text_end == len(data)

    def _build(
        self, seq: str, marker: str, params: str, inter: str, final: str
    ) -> Callable[[], None]:
        method, args = build_csi(self.screen, marker, params, inter, final)
        action = partial(method, *args)
        if len(seq) <= _CACHEABLE:  # absurdly long sequences would bloat the cache
            if len(self._csi_cache) >= _CACHE_LIMIT:
                self._csi_cache.clear()
            self._csi_cache[seq] = action
        return action

    def _odd_csi(self, seq: str) -> None:
        # Controls inside a CSI are executed where they stand (VT parser rule), then the
        # sequence without them is dispatched if it is well formed.
        body = seq[2:]
        for char in body:
            if char < " ":
                self._c0[char]()
        match = _CSI.fullmatch("\x1b[" + "".join(char for char in body if char >= " "))
        if match is not None:
            action = build_csi(self.screen, *match.group(1, 2, 3, 4))
            action[0](*action[1])

    def _esc(self, inter: str | None, final: str) -> None:
        screen = self.screen
        if not inter:
            handler = self._esc_plain.get(final)
            if handler is not None:
                handler()
            elif final == "Z":
                screen.report_device_attributes(0)
        elif inter == "#" and final == "8":
            screen.alignment_display()
        elif inter in ("(", ")"):
            screen.define_charset(final, inter)

    def _reset(self) -> None:
        self.flush_title()
        self.screen.reset()

    def _keypad_on(self) -> None:
        self.screen.app_keypad = True

    def _keypad_off(self) -> None:
        self.screen.app_keypad = False

    # -- OSC / DCS strings spanning chunks ----------------------------------------------

    def _continue_string(self, data: str) -> str:
        """Consume string content; return what follows the terminator ("" if none yet)."""
        if self._string_esc:
            # The previous chunk ended with ESC inside the string: this character ends it.
            self._string_esc = False
            self._finish_string()
            return data[1:]
        ender = _OSC_END if self._string_kind == "]" else _DCS_END
        found = ender.search(data)
        if found is None:
            self._keep(data)
            return ""
        end = found.start()
        self._keep(data[:end])
        if data[end] == "\x07":
            self._finish_string()
            return data[end + 1 :]
        if end + 1 >= len(data):
            self._string_esc = True
            return ""
        self._finish_string()
        return data[end + 2 :]

    def _keep(self, part: str) -> None:
        if self._string_len + len(part) <= MAX_STRING:
            self._string_parts.append(part)
        self._string_len += len(part)

    def _finish_string(self) -> None:
        if self._string_kind == "]" and self._string_len <= MAX_STRING:
            self.flush_title()
            handle_osc(self.screen, "".join(self._string_parts))
        self._string_kind = None
        self._string_parts = []
        self._string_len = 0
