"""The ghostty backend's own parts: its declarations of the C API, the raw cell layout it
decodes, the bounds it adds on top of libghostty-vt, the backend selection."""

from __future__ import annotations

import re
from typing import Any

import pytest

from adapters.config import parse_config
from adapters.emulator.backends import choose
from adapters.emulator.ghostty import GhosttyEmulator
from adapters.emulator.ghostty_lib import CDEF, load
from core.terminal import TerminalEventKind
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
     "GhosttyTerminalDesktopNotification", "GhosttyRenderStateCursor", "GhosttyString"],
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


def test_the_raw_cell_layout_is_the_one_the_rows_decode() -> None:
    pyghostty = _pyghostty()
    ffi, lib = pyghostty.ffi, pyghostty.lib
    emulator = GhosttyEmulator(10, 2)
    emulator.feed("a\x1b[1;31mB\x1b[0m中\x1b[44m\x1b[K".encode())
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
