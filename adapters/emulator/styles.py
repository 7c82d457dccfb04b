"""Cell styles and SGR (Select Graphic Rendition) parsing.

A style is a plain `(fg, bg, attrs)` tuple of ints encoded the way `core.terminal` documents,
so a rendered run is just `(text, *style)`. Cells store a 2-byte id per style (see
`grid.StyleTable`).

`compile_sgr` turns the parameters of one `CSI … m` into an operation that does not depend on
the current style; `IdeaScreen.sgr` caches operations per parameter string and applies them
with `apply_op`, a few tuple operations.
"""

from __future__ import annotations

from core.terminal import DEFAULT_COLOR, TRUECOLOR_FLAG, Attr

Style = tuple[int, int, int]

_UNDERLINES = (
    Attr.UNDERLINE
    | Attr.DOUBLE_UNDERLINE
    | Attr.CURLY_UNDERLINE
    | Attr.DOTTED_UNDERLINE
    | Attr.DASHED_UNDERLINE
)
_UNDERLINE_STYLE = {
    1: Attr.UNDERLINE,
    2: Attr.DOUBLE_UNDERLINE,
    3: Attr.CURLY_UNDERLINE,
    4: Attr.DOTTED_UNDERLINE,
    5: Attr.DASHED_UNDERLINE,
}

# SGR code -> (bits to clear, bits to set) for the plain attribute codes.
_ATTR_CODES: dict[int, tuple[int, int]] = {
    1: (0, Attr.BOLD),
    2: (0, Attr.DIM),
    3: (0, Attr.ITALIC),
    4: (_UNDERLINES, Attr.UNDERLINE),
    5: (0, Attr.BLINK),
    6: (0, Attr.BLINK),  # rapid blink: shown as blink, as xterm and tmux do
    7: (0, Attr.REVERSE),
    8: (0, Attr.HIDDEN),
    9: (0, Attr.STRIKE),
    21: (_UNDERLINES, Attr.DOUBLE_UNDERLINE),
    22: (Attr.BOLD | Attr.DIM, 0),
    23: (Attr.ITALIC, 0),
    24: (_UNDERLINES, 0),
    25: (Attr.BLINK, 0),
    27: (Attr.REVERSE, 0),
    28: (Attr.HIDDEN, 0),
    29: (Attr.STRIKE, 0),
    53: (0, Attr.OVERLINE),
    55: (Attr.OVERLINE, 0),
}

DEFAULT_STYLE: Style = (DEFAULT_COLOR, DEFAULT_COLOR, 0)


def _num(text: str) -> int:
    # Parameters are short digit strings in practice; anything longer is garbage and is
    # clamped rather than handed to int() (Python refuses > 4300 digits and is slow before).
    if not text.isdecimal():
        return 0
    return int(text) if len(text) <= 6 else 999_999


def _colour_from(kind: int, values: list[int]) -> int | None:
    """Decode the arguments following 38/48: `5;n` or `2;r;g;b`; None when malformed."""
    if kind == 5 and values:
        index = values[0]
        return index if 0 <= index <= 255 else None
    if kind == 2 and len(values) >= 3:
        red, green, blue = values[0], values[1], values[2]
        if max(red, green, blue) > 255:
            return None
        return TRUECOLOR_FLAG | (red << 16) | (green << 8) | blue
    return None


def _colon_colour(sub: list[str]) -> int | None:
    """Decode `38:5:n`, `38:2:r:g:b` or `38:2:colourspace:r:g:b` (ITU T.416 form)."""
    kind = _num(sub[1]) if len(sub) > 1 else 0
    if kind == 2 and len(sub) >= 6:
        return _colour_from(2, [_num(v) for v in sub[3:6]])
    return _colour_from(kind, [_num(v) for v in sub[2:5]])


SgrOp = tuple[int | None, int | None, int, int]
"""A compiled SGR: `(fg or None to keep, bg or None to keep, attribute bits cleared, set)`."""
_ALL_ATTRS = 0x1FFF
_RESET: SgrOp = (DEFAULT_COLOR, DEFAULT_COLOR, _ALL_ATTRS, 0)
MAX_SGR_PARAMS = 64


def compile_sgr(params: str) -> SgrOp:
    """Reduce `CSI params m` to one operation independent of the current style, so the
    screen can cache it per parameter string.

    >>> compile_sgr("1;31")
    (1, None, 0, 1)
    """
    if not params:
        return _RESET
    fg: int | None = None
    bg: int | None = None
    clear = 0
    bits = 0
    # xterm reads at most 30 parameters; the cap keeps absurd input cheap.
    parts = params.split(";", MAX_SGR_PARAMS)[:MAX_SGR_PARAMS]
    count = len(parts)
    i = 0
    while i < count:
        part = parts[i]
        i += 1
        change: tuple[int, int] | None = None
        if ":" in part:
            sub = part.split(":")
            code = _num(sub[0])
            if code == 4:
                change = (_UNDERLINES, _UNDERLINE_STYLE.get(_num(sub[1]) if len(sub) > 1 else 1, 0))
            elif code in (38, 48):
                colour = _colon_colour(sub)
                if colour is not None:
                    if code == 38:
                        fg = colour
                    else:
                        bg = colour
            # 58:… (underline colour) and unknown sub-parameter forms are ignored.
        else:
            code = _num(part)
            if code == 0:
                fg, bg, clear, bits = _RESET
            elif 30 <= code <= 37:
                fg = code - 30
            elif 40 <= code <= 47:
                bg = code - 40
            elif 90 <= code <= 97:
                fg = code - 82
            elif 100 <= code <= 107:
                bg = code - 92
            elif code == 39:
                fg = DEFAULT_COLOR
            elif code == 49:
                bg = DEFAULT_COLOR
            elif code in (38, 48, 58):
                kind = _num(parts[i]) if i < count else 0
                width = 1 if kind == 5 else 3 if kind == 2 else 0
                values = [_num(v) for v in parts[i + 1 : i + 1 + width]]
                i += 1 + width
                colour = _colour_from(kind, values)
                if colour is not None and code != 58:
                    if code == 38:
                        fg = colour
                    else:
                        bg = colour
            else:
                change = _ATTR_CODES.get(code)
        if change is not None:
            # Composing (clear c1, set s1) then (c2, s2): clear c1|c2, set (s1 & ~c2) | s2.
            clear |= change[0]
            bits = (bits & ~change[0]) | change[1]
    return (fg, bg, int(clear), int(bits))


def is_absolute(op: SgrOp) -> bool:
    """Whether the operation gives the same style whatever the current one (starts with 0)."""
    return op[0] is not None and op[1] is not None and op[2] == _ALL_ATTRS


def apply_op(style: Style, op: SgrOp) -> Style:
    fg, bg, clear, bits = op
    return (
        style[0] if fg is None else fg,
        style[1] if bg is None else bg,
        (style[2] & ~clear) | bits,
    )


def apply_sgr(style: Style, params: str) -> Style:
    """Return the style that `CSI params m` produces from `style`.

    >>> apply_sgr(DEFAULT_STYLE, "1;31")
    (1, -1, 1)
    >>> apply_sgr((1, -1, 1), "")
    (-1, -1, 0)
    """
    return apply_op(style, compile_sgr(params))


def _nearest_level(value: int) -> int:
    # The xterm cube levels are 0, 95, 135, 175, 215, 255.
    return 0 if value < 48 else 1 if value < 115 else (value - 35) // 40


def to_palette(colour: int) -> int:
    """A truecolor as the nearest xterm 256-colour cube entry; other colours unchanged."""
    if colour < TRUECOLOR_FLAG:
        return colour
    red, green, blue = (colour >> 16) & 255, (colour >> 8) & 255, colour & 255
    return 16 + 36 * _nearest_level(red) + 6 * _nearest_level(green) + _nearest_level(blue)


def is_truecolor(style: Style) -> bool:
    return style[0] >= TRUECOLOR_FLAG or style[1] >= TRUECOLOR_FLAG


def to_palette_style(style: Style) -> Style:
    return (to_palette(style[0]), to_palette(style[1]), style[2])
