"""A row's characters from libghostty-vt's raw cells, without its styles.

The daemon reads an agent's screen as text to tell its state (prompt ready, working,
waiting for the user) and to check that a delegated task was submitted. Agents mostly run
in cells nobody shows, so their rows are built for nothing but these reads: a full build
resolves every distinct style through the library (a few calls each), while the text alone
is a handful of whole-row integer operations on the raw cells, as `build_row` takes it.

`text_of` gives exactly `row_text(build_row(raw, ...))`, or None for the rows whose text
needs the library (grapheme clusters) or per-cell fitting (a character whose width
wcwidth sees otherwise than Ghostty): the caller builds those.
"""

from __future__ import annotations

from adapters.emulator.ghostty_rows import _TAIL, _masks, _one_cell, special_cells


def text_of(raw: bytes) -> str | None:
    """Row text of the raw cells `raw` (8 bytes each), or None when a build must say."""
    size = len(raw)
    count = size // 8
    if not count:
        return ""
    special, non_ascii, wide_cp, cp21, _key16, unit, _linked = _masks(count)
    whole = int.from_bytes(raw, "little")
    if whole & special:
        return _special_text(whole, size, unit, wide_cp, cp21)
    codes = ((whole >> 2) & cp21).to_bytes(size, "little")
    if not whole & non_ascii:
        return codes[::8].decode("ascii").replace("\0", " ")
    text = (memoryview(codes).cast("I")[::2].tobytes()
            .decode("utf-32-le", "replace").replace("\0", " "))
    if whole & wide_cp and not all(map(_one_cell, set(text))):
        return None
    return text


def _special_text(whole: int, size: int, unit: int, wide_cp: int, cp21: int) -> str | None:
    """`text_of` for a row with wide characters, colour-only cells or links (as `_special_row`
    reads them: a wide character once, a colour-only cell as a blank)."""
    cells = special_cells(whole, size, unit, wide_cp, cp21)
    if cells is None:
        return None
    text, _colour_only, tails = cells
    text = text.replace("\0", " ")
    return text.replace(_TAIL, "") if tails else text
