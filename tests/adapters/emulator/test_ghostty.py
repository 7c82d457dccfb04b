"""The ghostty backend's own parts: its declarations of the C API, the raw cell layout it
decodes, the bounds it adds on top of libghostty-vt, the backend selection."""

from __future__ import annotations

import re
import resource
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.config import parse_config
from adapters.emulator.backends import choose
from adapters.emulator.ghostty import GhosttyEmulator
from adapters.emulator.ghostty_lib import CDEF, load
from adapters.emulator.ghostty_rows import _complex_row, build_row
from core.terminal import TerminalEventKind, row_text
from tests.adapters.emulator.helpers import history_lines, lines

pytestmark = pytest.mark.ghostty_only


def _pyghostty() -> Any:
    import pyghostty  # the full binding: the reference for the short declarations

    return pyghostty


def test_every_constant_matches_the_full_binding() -> None:
    full = _pyghostty().lib
    ours = load().lib
    names = re.findall(r"#define (\w+) ", CDEF)
    assert len(names) > 30
    for name in names:
        assert getattr(ours, name) == getattr(full, name), name


@pytest.mark.parametrize(
    "ctype",
    ["GhosttyStyle", "GhosttyDeviceAttributes", "GhosttySizeReportSize", "GhosttyCellsView",
     "GhosttyTerminalModeConfig", "GhosttyClipboardWrite", "GhosttyClipboardContent",
     "GhosttyTerminalDesktopNotification", "GhosttyRenderStateCursor", "GhosttyString",
     "GhosttyRenderStateRowId", "GhosttyGridRef"],
)
def test_every_struct_has_the_full_bindings_layout(ctype: str) -> None:
    full, ours = _pyghostty().ffi, load().ffi
    assert ours.sizeof(ctype) == full.sizeof(ctype)
    assert ours.alignof(ctype) == full.alignof(ctype)
    full_fields = full.typeof(ctype).fields
    ours_fields = ours.typeof(ctype).fields
    assert [(name, field.offset) for name, field in ours_fields] == [
        (name, field.offset) for name, field in full_fields
    ]


def test_the_scroll_request_twin_has_the_unions_layout() -> None:
    full, ours = _pyghostty().ffi, load().ffi
    assert ours.sizeof("IdeaScrollViewportS") == full.sizeof("GhosttyTerminalScrollViewport")
    assert ours.alignof("IdeaScrollViewportS") == full.alignof("GhosttyTerminalScrollViewport")


def test_the_grid_point_twin_has_the_unions_layout() -> None:
    full, ours = _pyghostty().ffi, load().ffi
    assert ours.sizeof("IdeaPointS") == full.sizeof("GhosttyPoint")
    assert ours.alignof("IdeaPointS") == full.alignof("GhosttyPoint")
    assert ours.offsetof("IdeaPointS", "value") == full.offsetof("GhosttyPoint", "value")
    coordinate = full.typeof("GhosttyPointCoordinate").fields
    assert [(name, field.offset) for name, field in coordinate] == [
        (name, field.offset) for name, field in ours.typeof("IdeaPointValueS").fields[:2]]


def test_the_raw_cell_layout_is_the_one_the_rows_decode() -> None:
    pyghostty = _pyghostty()
    ffi, lib = pyghostty.ffi, pyghostty.lib
    emulator = GhosttyEmulator(10, 2)
    emulator.feed("a\x1b[1;31mB\x1b[0m中\x1b]8;;https://x\x1b\\L\x1b]8;;\x1b\\\x1b[44m\x1b[K"
                  .encode())
    emulator.render_row(0)
    binding = load()
    iterator = emulator._iterator_box
    binding.lib.ghostty_render_state_get(
        emulator._state, binding.lib.GHOSTTY_RENDER_STATE_DATA_ROW_ITERATOR, iterator)
    assert binding.lib.ghostty_render_state_row_iterator_next(iterator[0])
    binding.lib.ghostty_render_state_row_get(
        iterator[0], binding.lib.GHOSTTY_RENDER_STATE_ROW_DATA_CELLS_RAW, emulator._view)
    raw = memoryview(binding.ffi.buffer(emulator._view.ptr, emulator._view.len * 8)[:]).cast("Q")
    value = ffi.new("uint32_t*")

    def get(cell: int, key: str) -> int:
        assert lib.ghostty_cell_get(cell, getattr(lib, f"GHOSTTY_CELL_DATA_{key}"), value) == 0
        return int(value[0])

    for cell in raw:
        assert cell & 3 == get(cell, "CONTENT_TAG")
        if cell & 3 < 2:
            assert (cell >> 2) & 0x1FFFFF == get(cell, "CODEPOINT")
        else:
            assert (cell >> 2) & 0xFF == get(cell, "COLOR_PALETTE")
        assert (cell >> 26) & 0xFFFF == get(cell, "STYLE_ID")
        assert (cell >> 42) & 3 == get(cell, "WIDE")
        flag = ffi.new("bool*")
        assert lib.ghostty_cell_get(cell, lib.GHOSTTY_CELL_DATA_HAS_HYPERLINK, flag) == 0
        assert (cell >> 45) & 1 == flag[0]
    assert sum((cell >> 45) & 1 for cell in raw) == 1


def test_history_is_exactly_the_lines_asked_for() -> None:
    # libghostty-vt frees whole pages: it may hold more, the port shows the bound.
    emulator = GhosttyEmulator(20, 5, scrollback_lines=7)
    emulator.feed(b"".join(b"line %d\r\n" % n for n in range(3000)))
    assert emulator.history_size() == 7
    assert history_lines(emulator) == [f"line {n}" for n in range(2989, 2996)]
    assert lines(emulator)[0] == "line 2996"


def test_scrollback_of_ten_thousand_lines_is_kept_whole() -> None:
    emulator = GhosttyEmulator(120, 40, scrollback_lines=10_000)
    emulator.feed(b"".join(b"\x1b[3%dmline %d\x1b[0m\r\n" % (n % 8, n) for n in range(12_000)))
    assert emulator.history_size() == 10_000
    first, last = emulator.render_history(0, 1)[0], emulator.render_history(9_999, 1)[0]
    assert first[0][0].rstrip() == "line 1961" and last[0][0].rstrip() == "line 11960"


@pytest.mark.parametrize("cols", [80, 120, 211, 1000])
def test_history_never_drops_below_the_bound_while_it_scrolls(cols: int) -> None:
    # The byte budget assumes a standard page's rows at this width (`_PAGE_GRID`): were
    # it high, fewer lines would fit than asked for; were the page size wrong, more.
    emulator = GhosttyEmulator(cols, 40, scrollback_lines=500)
    rows_per_page = 374_500 // (8 * cols + 8)
    for block in range(40):
        emulator.feed(b"".join(b"line %d\r\n" % (block * 50 + n) for n in range(50)))
        if block >= 11:
            assert emulator.history_size() == 500
            assert emulator._kept_history() <= 500 + 40 + 2 * rows_per_page


def test_a_history_of_many_colours_keeps_the_bound_too() -> None:
    # More than 128 styles to a page makes Ghostty's pages bigger than standard ones: the
    # byte budget grows by a page when one was freed short of the bound.
    emulator = GhosttyEmulator(120, 40, scrollback_lines=3000)
    colours = [b"\x1b[38;2;%d;%d;%dm" % (n % 251, n % 241, n % 239) for n in range(4000)]
    for n in range(12_000):
        emulator.feed(b"".join(colours[(n * 7 + k) % 4000] + b"word " for k in range(20))
                      + b"\x1b[0m\r\n")
    assert emulator.history_size() == 3000
    assert row_text(emulator.render_history(2999, 1)[0]).startswith("word word")


def test_scrolling_past_a_full_history_reuses_its_pages() -> None:
    # The byte limit recycles the oldest page in place; Ghostty's line limit unmaps it and
    # faults a fresh one in (about 100 page faults per 387 lines at 120 columns), which cost
    # 3-4x the parsing itself on a scrolling log.
    emulator = GhosttyEmulator(120, 40, scrollback_lines=3000)
    block = b"".join(b"line %d of a log that scrolls by\r\n" % n for n in range(3000))
    emulator.feed(block)
    emulator.feed(block)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(4):
        emulator.feed(block)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before < 300
    assert emulator.history_size() == 3000


def test_one_style_id_in_two_pages_shows_each_pages_style() -> None:
    # Style ids are per page; the screen here spans two pages (387 rows each at 120
    # columns), where id 1 is red in the older page and green in the newer one. Styles
    # looked up once per update are keyed by the page (the first word of the row's id).
    emulator = GhosttyEmulator(120, 40)
    emulator.feed(b"".join(b"\x1b[31mred %d\x1b[0m\r\n" % n for n in range(380))
                  + b"".join(b"\x1b[32mgreen %d\x1b[0m\r\n" % n for n in range(19)))
    emulator.take_dirty()
    seen: set[tuple[int, int]] = set()
    for y in range(39):
        text, fg = emulator.render_row(y)[0][:2]
        assert fg == (1 if text.startswith("red") else 2), (y, text)
        seen.add((int.from_bytes(emulator._raw_rows[y][:8], "little") >> 26 & 0xFFFF, fg))
    assert {(1, 1), (1, 2)} <= seen  # the same id, red in one page and green in the other


def test_del_is_ignored_as_tmux_ignores_it() -> None:
    emulator = GhosttyEmulator(10, 2)
    emulator.feed(b"a\x7fb")
    assert lines(emulator)[0] == "ab"


def test_a_dec_graphics_blank_in_a_wide_cell_still_covers_two_cells() -> None:
    emulator = GhosttyEmulator(6, 2)
    emulator.feed("\x1b(0中x".encode())
    assert sum(len(run[0]) for run in emulator.render_row(0)) == 6


def test_titles_go_through_the_shared_osc_handling() -> None:
    emulator = GhosttyEmulator(10, 2)
    emulator.feed(b"\x1b]2;hello\x07\x1b]7;file://h/tmp/my%20dir\x07\x1b]777;notify;T;B\x07")
    assert emulator.title == "hello" and emulator.cwd == "/tmp/my dir"
    kinds = [(event.kind, event.text) for event in emulator.take_events()]
    assert kinds == [(TerminalEventKind.TITLE, "hello"), (TerminalEventKind.CWD, "/tmp/my dir"),
                     (TerminalEventKind.NOTIFY, "T: B")]


def test_auto_picks_ghostty_where_it_loads_and_pyte_is_always_there() -> None:
    assert choose(parse_config("").emulator).name == "ghostty"
    assert choose("ghostty").name == "ghostty"
    assert choose("pyte").name == "pyte"
    assert choose("pyte").fallback_reason is None


def test_a_library_that_does_not_load_falls_back_to_pyte_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    import adapters.emulator.ghostty_lib as ghostty_lib

    broken = tmp_path / "libghostty-vt.so"
    broken.write_bytes(b"not a library")
    monkeypatch.setenv("PYGHOSTTY_LIB", str(broken))
    monkeypatch.setattr(ghostty_lib, "_binding", None)
    monkeypatch.setattr(ghostty_lib, "_failure", None)
    backend = choose("auto")
    assert backend.name == "pyte"
    assert backend.fallback_reason is not None
    assert "does not load" in backend.fallback_reason
    assert backend.factory(10, 2, 100).rows == 2


_WORDS = ["a", "héllo", "─╮", "x" * 30, "ñ", "🤖", "中", "e\u0301", "  ", "\x1b[K", "⚡",
          "\u2600", "\U0001f1fa", "\u00ad", "\x1b(0a\x1b(B", "\x1b[2K", "\x1b[5X"]
_SGRS = ["", "\x1b[1m", "\x1b[31m", "\x1b[0m", "\x1b[38;5;200m", "\x1b[38;2;1;2;3m", "\x1b[44m",
         "\x1b[7m", "\x1b[4:3m", "\x1b[48;2;9;8;7m", "\x1b[48;5;200m"]


@given(st.lists(st.tuples(st.sampled_from(_SGRS), st.sampled_from(_WORDS)), max_size=40),
       st.booleans())
@settings(max_examples=300, deadline=None)
def test_whole_row_decoding_matches_the_cell_by_cell_decoding(
    parts: list[tuple[str, str]], reverse: bool
) -> None:
    # The fast path reads a row as one integer; the per-cell path is the reference.
    emulator = GhosttyEmulator(60, 3)
    emulator.feed("".join(sgr + word for sgr, word in parts).encode())
    emulator.render_row(0)
    for raw in emulator._raw_rows:
        if not raw:
            continue
        cells = memoryview(raw).cast("Q")

        def style_at(x: int, key: int, cells: memoryview = cells) -> tuple[int, int, int]:
            assert key == (cells[x] >> 26) & 0xFFFF
            return (key, 0, 0)  # distinct per id, so runs show

        def grapheme_at(x: int) -> str:
            return "g"

        expected = _complex_row(cells, style_at, grapheme_at, reverse)
        assert build_row(raw, style_at, grapheme_at, reverse) == expected


def test_only_the_device_attribute_requests_without_a_parameter_are_answered() -> None:
    emulator = GhosttyEmulator(10, 2)
    emulator.feed(b"\x1b[c\x1b[1c\x1b[>c\x1b[>1;2c\x1b[0c")
    assert emulator.take_replies() == b"\x1b[?1;2c\x1b[>84;0;0c\x1b[?1;2c"


def test_a_soft_reset_keeps_the_cursor_where_it_is() -> None:
    emulator = GhosttyEmulator(10, 4)
    emulator.feed(b"\x1b[2;3r\x1b[?6h\x1b[2;5H\x1b[!pX")
    assert lines(emulator)[2] == "    X"


def _resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


def test_idle_compaction_shrinks_a_full_history_and_keeps_every_line() -> None:
    emulator = GhosttyEmulator(120, 40, scrollback_lines=10_000)
    words = [b"\x1b[3%dmword%d\x1b[0m " % (n % 7, n % 13) for n in range(91)]
    emulator.feed(b"".join(b"".join(words[(n + k) % 91] for k in range(17)) + b"%d\r\n" % n
                           for n in range(12_000)))
    sample = [0, 1, 2_500, 5_000, 9_999]
    before = [emulator.render_history(index, 1) for index in sample]
    screen = [emulator.render_row(y) for y in range(40)]
    resident = _resident_bytes()
    steps = 0
    while emulator.compact_step():
        steps += 1
    # Bounded steps, not one long stall; about 11 MB of cells become some 3 MB.
    assert steps > 5
    assert resident - _resident_bytes() > 4 * 2**20
    assert not emulator.compact_step()  # nothing changed since the pass completed
    assert [emulator.render_history(index, 1) for index in sample] == before
    assert [emulator.render_row(y) for y in range(40)] == screen
    # Reading history restored some pages: worth another pass, which ends too.
    assert emulator.compact_step()
    while emulator.compact_step():
        pass
    emulator.feed(b"after\r\n")
    assert row_text(emulator.render_history(9_999, 1)[0]).startswith(row_text(screen[0]))
    assert emulator.history_size() == 10_000


def test_the_precompiled_declarations_are_the_current_ones() -> None:
    # Compared by meaning, not text: another cffi version writes the module differently.
    from cffi import FFI

    from adapters.emulator.ghostty_lib import _FUNCTIONS, library_path

    hint = "CDEF changed: run `python -m adapters.emulator.ghostty_lib` to regenerate it"
    binding = load()
    assert type(binding.ffi).__module__ != "cffi.api"  # the precompiled one is in use
    parsed = FFI()
    parsed.cdef(CDEF)
    parsed_lib = parsed.dlopen(str(library_path()))
    names = set(re.findall(r"\}\s*(\w+);", CDEF)) | set(re.findall(r"struct (\w+) \{", CDEF))
    for name in sorted(names):
        ctype = name if name in re.findall(r"\}\s*(\w+);", CDEF) else f"struct {name}"
        assert binding.ffi.sizeof(ctype) == parsed.sizeof(ctype), (ctype, hint)
    for name in re.findall(r"#define (\w+) ", CDEF):
        assert getattr(binding.lib, name) == getattr(parsed_lib, name), (name, hint)
    for name in _FUNCTIONS:
        assert (binding.ffi.typeof(getattr(binding.lib, name)).cname
                == parsed.typeof(getattr(parsed_lib, name)).cname), (name, hint)
