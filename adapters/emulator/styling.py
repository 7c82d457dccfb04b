"""SGR state, the style table and character sets of idea's pyte screen.

Every `CSI … m` lands in `sgr`, so it is two dict lookups on the common path: a cache keyed by
the parameter text for SGRs that start with a reset, and one keyed by (current style id,
text) for the others; a miss compiles the parameters once (`styles.compile_sgr`). Styles are
stored in cells as 2-byte ids from a bounded `StyleTable`; when it fills, the ids no cell,
scrollback line or saved cursor uses are freed, and if most are still alive, truecolor styles
fall back to their nearest 256-colour palette entry instead of growing memory without bound.

The current hyperlink (OSC 8) is part of the style: its id sits above the SGR bits of the
attributes (`links.LINK_SHIFT`), where SGR operations never touch it (an `SGR 0` keeps the
link, as in xterm and libghostty-vt). So the cache of SGRs that start with a reset, whose
states hold no link, is not used while a link is open.
"""

from __future__ import annotations

import sys

from adapters.emulator.canvas import CanvasScreen
from adapters.emulator.grid import DEFAULT_KEY, MAX_STYLES, StyleTable
from adapters.emulator.links import ATTR_MASK, LINK_SHIFT, LinkTable
from adapters.emulator.styles import (
    DEFAULT_STYLE,
    SgrOp,
    Style,
    apply_op,
    compile_sgr,
    is_absolute,
    is_truecolor,
    to_palette_style,
)

# DEC Special Graphics (`ESC ( 0`), as xterm and tmux map it.
_DEC_GRAPHICS = str.maketrans(
    dict(
        zip(
            "+,-.0`abcdefghijklmnopqrstuvwxyz{|}~_",
            "→←↑↓█◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£· ",
            strict=True,
        )
    )
)


MAX_CACHED_SGR = 64
TRUECOLOR_ROOM = MAX_STYLES * 3 // 4
FALLBACKS_BEFORE_RETRY = 4096
LINKS_BEFORE_RETRY = 256
"""New links dropped (the table full of live ones) before a collection is tried again."""
# Looked up instead of the reset-SGR cache while a link is open; never written to.
_NO_CACHE: dict[str, tuple[Style, bytes, bytes]] = {}


class StyledScreen(CanvasScreen):
    """Current style, SGR caches, style ids and G0/G1 character sets."""

    def __init__(self, columns: int, lines: int, history: int) -> None:
        self.table = StyleTable()
        self.fallbacks = 0
        self.style: Style = DEFAULT_STYLE
        self.absolute_cache: dict[str, tuple[Style, bytes, bytes]] = {}
        self.sgr_absolute = self.absolute_cache
        self.links = LinkTable()
        self.link = 0
        """The id of the link open now (OSC 8), 0 for none."""
        self.link_retry = 0
        self.sgr_relative: dict[tuple[bytes, str], tuple[Style, bytes, bytes]] = {}
        self.sgr_ops: dict[str, SgrOp] = {}
        self.g0_graphics = False
        self.g1_graphics = False
        super().__init__(columns, lines, history)

    def saved_styles(self) -> list[Style]:
        """Styles held outside cells (saved cursors) that must keep their ids."""
        return []

    def sgr(self, params: str) -> None:
        # Two caches: SGRs starting with a reset give the same state from any style (one
        # lookup by text); the others are cached per (current style id, text).
        state = self.sgr_absolute.get(params)
        if state is None:
            state = self.sgr_relative.get((self.key, params))
            if state is None:
                if len(params) > MAX_CACHED_SGR:
                    self._set_style(apply_op(self.style, compile_sgr(params)))
                    return
                state = self._sgr_miss(params)
        self.style, self.key, self.blank = state

    def _sgr_miss(self, params: str) -> tuple[Style, bytes, bytes]:
        token = (self.key, params)
        op = self.sgr_ops.get(params)
        if op is None:
            op = compile_sgr(params)
            if len(self.sgr_ops) >= 4096:
                self.sgr_ops.clear()
            self.sgr_ops[params] = op
        style = apply_op(self.style, op)
        if style != self.style:
            self._set_style(style)
        state = (self.style, self.key, self.blank)
        cache = self.sgr_absolute if is_absolute(op) and not self.link else self.sgr_relative
        if len(cache) >= 4096:
            cache.clear()
        if cache is self.sgr_absolute:
            self.sgr_absolute[params] = state
        else:
            self.sgr_relative[token] = state
        return state

    def set_link(self, uri: str | None) -> None:
        """OSC 8: cells printed from now on link to `uri` (None: to nothing; `osc.py` has
        checked it). When the table is full of links still shown, the text goes unlinked."""
        link = 0
        if uri is not None:
            link = self.links.id_of(uri)
            if not link and self.link_retry <= 0:
                self._collect_styles()  # frees the links no cell shows any more
                link = self.links.id_of(uri)
                self.link_retry = 0 if link else LINKS_BEFORE_RETRY
            elif not link:
                self.link_retry -= 1
        if link != self.link:
            self.link = link
            self.sgr_absolute = _NO_CACHE if link else self.absolute_cache
            self._set_style(self.linked(self.style))

    def linked(self, style: Style) -> Style:
        """`style` with the link open now (and no other); `style` itself when that changes
        nothing (`_set_style` knows `DEFAULT_STYLE` by identity)."""
        if not self.link and style[2] <= ATTR_MASK:
            return style
        return (style[0], style[1], (style[2] & ATTR_MASK) | (self.link << LINK_SHIFT))

    def _set_style(self, style: Style) -> None:
        if style[1] != self.style[1] or style is DEFAULT_STYLE:
            self.blank = self.key_of((-1, style[1], 0))
        self.style = style
        self.key = self.key_of(style)

    def key_of(self, style: Style) -> bytes:
        """The cell id of a style, adding it to the table (see `grid.MAX_STYLES`)."""
        table = self.table
        key = table.keys.get(style)
        if key is not None:
            return key
        if is_truecolor(style) and table.used() >= TRUECOLOR_ROOM:
            # Truecolor styles may fill three quarters of the table; past that, free what is
            # no longer used, and if most is still alive share palette entries instead. The
            # collection (a scan of the scrollback) is retried only every few thousand
            # fallbacks, so a stream of new colours does not rescan on every one.
            if self.fallbacks <= 0:
                self._collect_styles()
                still_full = table.used() >= TRUECOLOR_ROOM
                self.fallbacks = FALLBACKS_BEFORE_RETRY if still_full else 0
            if table.used() >= TRUECOLOR_ROOM:
                self.fallbacks -= 1
                return self.key_of(to_palette_style(style))
        if table.full():
            self._collect_styles()
        return table.add(style)

    def _collect_styles(self) -> None:
        """Free the style ids no cell, scrollback line or cursor state still uses."""
        live = {int.from_bytes(self.key, sys.byteorder), int.from_bytes(self.blank, sys.byteorder)}
        for line in self.grid + (self.main_grid or []):
            live.update(memoryview(bytes(line.styles)).cast("H"))
        for entry in self.history:
            if isinstance(entry, str):
                continue
            if len(entry) == 2 and len(entry[1]) == len(entry[0]):
                live.update(entry[1])  # one byte per cell
            else:
                live.update(memoryview(entry[1]).cast("H"))
        for style in self.saved_styles():
            live.add(int.from_bytes(self.table.keys.get(style, DEFAULT_KEY), sys.byteorder))
        self.table.collect(live)
        links = {self.link}
        links.update(style[2] >> LINK_SHIFT for style in self.table.styles if style is not None)
        self.links.collect(links)
        self.absolute_cache.clear()
        self.sgr_relative.clear()

    def select_graphic_rendition(self, *attrs: int) -> None:
        self.sgr(";".join(map(str, attrs)))

    def define_charset(self, code: str, mode: str) -> None:
        if mode == "(":
            self.g0_graphics = code == "0"
        elif mode == ")":
            self.g1_graphics = code == "0"
        self._update_charset()

    def shift_in(self) -> None:
        self.charset = 0
        self._update_charset()

    def shift_out(self) -> None:
        self.charset = 1
        self._update_charset()

    def _update_charset(self) -> None:
        graphics = self.g1_graphics if self.charset else self.g0_graphics
        self.charset_map = _DEC_GRAPHICS if graphics else None
        self.update_plain()
