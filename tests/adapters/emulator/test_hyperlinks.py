"""Hyperlinks (OSC 8): the rows carry exactly the right URIs on exactly the right text, in
both backends, and a hostile program's URI never gets through."""

from __future__ import annotations

import pytest

from adapters.emulator import PyteEmulator
from adapters.emulator.ghostty import GhosttyEmulator
from adapters.emulator.links import MAX_LINKS, OSC_URI_LIMIT
from core.terminal import Row, row_links, row_text
from tests.adapters.emulator.helpers import Emulator, fed, make, row_width

A = "https://example.com/a"
B = "https://example.com/b"
ST = "\x1b\\"


def link(uri: str, params: str = "") -> str:
    return f"\x1b]8;{params};{uri}{ST}"


END = link("")


def linked(row: Row) -> list[tuple[str, str]]:
    """(text, URI) of each linked run."""
    return [(row[index][0], uri) for index, uri in row_links(row)]


def first(emulator: Emulator) -> Row:
    return emulator.render_row(0)


def test_a_link_with_an_id_covers_exactly_its_text() -> None:
    emulator = fed(f"see {link(A, 'id=x1')}here{END} now")
    row = first(emulator)
    assert linked(row) == [("here", A)]
    assert row_text(row).rstrip() == "see here now"
    assert row_width(row) == 20


def test_rows_without_links_are_plain_tuples() -> None:
    row = first(fed("\x1b[1mplain\x1b[m text"))
    assert type(row) is tuple
    assert row_links(row) == ()


def test_a_link_split_across_every_read_boundary_is_the_same() -> None:
    data = f"ab{link(A, 'id=7')}LINK{END}cd".encode()
    whole = first(fed(data))
    assert linked(whole) == [("LINK", A)]
    for cut in range(1, len(data)):
        emulator = make()
        emulator.feed(data[:cut])
        emulator.feed(data[cut:])
        assert first(emulator) == whole, cut


def test_a_link_over_wide_characters_keeps_their_cells() -> None:
    row = first(fed(f"x{link(A)}中文é{END}y"))
    assert linked(row) == [("中文é", A)]
    assert row_text(row).startswith("x中文éy")
    assert row_width(row) == 20


def test_a_new_link_replaces_the_open_one() -> None:
    row = first(fed(f"{link(A)}one{link(B, 'id=2')}two{END}three"))
    assert linked(row) == [("one", A), ("two", B)]
    assert row_text(row).startswith("onetwothree")


def test_the_same_uri_twice_with_plain_text_between_is_two_stretches() -> None:
    row = first(fed(f"{link(A, 'id=1')}a{END}-{link(A, 'id=2')}b{END}"))
    assert linked(row) == [("a", A), ("b", A)]


def test_a_link_closed_mid_row_keeps_the_style_going_unlinked() -> None:
    row = first(fed(f"\x1b[1m{link(A)}ab{END}cd\x1b[m"))
    assert [(run[0], run[3]) for run in row[:2]] == [("ab", 1), ("cd", 1)]
    assert linked(row) == [("ab", A)]


def test_sgr_reset_keeps_the_link_open() -> None:
    row = first(fed(f"{link(A)}\x1b[31ma\x1b[0mb{END}c"))
    assert [text for text, _ in linked(row)] == ["a", "b"]


def test_a_saved_cursor_does_not_bring_its_link_back() -> None:
    row = first(fed(f"{link(A)}a\x1b7{link(B)}b\x1b8c{END}"))
    assert linked(row) == [("a", A), ("c", B)]


def test_switching_screens_closes_the_link() -> None:
    row = first(fed(f"{link(A)}a\x1b[?1049h\x1b[?1049lb"))
    assert linked(row) == [("a", A)]


def test_erasing_linked_cells_removes_their_link() -> None:
    row = first(fed(f"{link(A)}abcd{END}\x1b[3D\x1b[K"))
    assert linked(row) == [("a", A)]
    assert row_text(row).rstrip() == "a"


def test_a_link_printed_over_changes_the_row() -> None:
    emulator = fed(f"{link(A)}abc{END}")
    assert linked(first(emulator)) == [("abc", A)]
    emulator.take_dirty()
    emulator.feed(f"\r{link(B)}abc{END}".encode())
    assert emulator.take_dirty() == {0}
    assert linked(first(emulator)) == [("abc", B)]
    emulator.feed(b"\rabc")
    emulator.take_dirty()
    assert linked(first(emulator)) == []
    assert type(first(emulator)) is tuple


def test_links_scroll_into_the_history() -> None:
    emulator = fed(f"{link(A)}old{END}\r\n" + "\r\n" * 6, rows=3)
    history = emulator.render_history(0, emulator.history_size())
    assert linked(history[0]) == [("old", A)]
    assert row_text(history[0]).rstrip() == "old"


@pytest.mark.parametrize("uri", [
    "javascript:alert(1)",
    "data:text/html,<script>x</script>",
    "https://a/\u009b31m",  # C1 CSI
    "https://a/\u009c",  # C1 ST
    "https://a/\u202etxt.exe",  # bidi override
    "https://a/b c",
    "vscode://open?x",
])
def test_a_refused_uri_keeps_the_text_unlinked(uri: str) -> None:
    row = first(fed(f"{link(A)}a{link(uri)}bad{END}c"))
    assert linked(row) == [("a", A)]
    assert row_text(row).startswith("abadc")


@pytest.mark.parametrize("hostile", [
    f"{link('https://a/' + chr(1) + 'x')}t{END}",
    f"{link('https://a/')}\x1b[31mt{END}",  # ESC ends the OSC early
    "\x1b]8;;https://a/\x1b]0;x\x07t" + END,
    "\x1b]8;;https://a/\x07\x1b[2Jt" + END,
])
def test_no_control_character_ever_reaches_a_link(hostile: str) -> None:
    emulator = fed(hostile)
    for y in range(emulator.rows):
        for _, uri in row_links(emulator.render_row(y)):
            assert uri.isprintable() and "\x1b" not in uri, uri


def test_a_100_kb_uri_is_dropped_and_the_text_kept() -> None:
    row = first(fed(f"{link('https://x/' + 'a' * 100_000)}text{END}!"))
    assert linked(row) == []
    assert row_text(row).startswith("text!")


@pytest.mark.parametrize("length", [3_000, 100_000])
def test_an_over_long_uri_leaves_the_open_link_open(length: int) -> None:
    # libghostty-vt drops an OSC 8 longer than it keeps; pyte's backend does the same.
    row = first(fed(f"{link(A)}a{link('https://x/' + 'a' * length)}b{END}c"))
    assert linked(row) == [("ab", A)]


def test_the_longest_uri_kept() -> None:
    longest = "https://x/" + "a" * (OSC_URI_LIMIT - len("https://x/"))
    row = first(fed(f"{link(longest)}a{END}{link(longest + 'b')}b{END}"))
    assert linked(row) == [("a", longest)]


STREAMS = [
    f"see {link(A, 'id=x1')}here{END} now",
    f"x{link(A)}中文é{END}y\r\n\x1b[44m{link(B)}blue\x1b[m tail{END}",
    f"{link(A)}one{link(B, 'id=2')}two{END}three",
    f"\x1b[1m{link(A)}ab{END}cd\x1b[m {link(A)}e\u0301{END}",
    f"{link(A)}a{link('javascript:x')}bad{END}c",
    f"{link(A)}{'w' * 25}{END}\r\n" * 4,  # wraps, scrolls into the history
    f"{link(A)}abcd{END}\x1b[3D\x1b[K{link(B)}\x1b[2@zz",
]


@pytest.mark.ghostty_only
@pytest.mark.parametrize("stream", STREAMS)
def test_both_backends_show_the_same_linked_rows(stream: str) -> None:
    ours = GhosttyEmulator(20, 3, scrollback_lines=100)
    reference = PyteEmulator(20, 3, scrollback_lines=100)
    for emulator in (ours, reference):
        emulator.feed(stream.encode())
    assert [ours.render_row(y) for y in range(3)] == [
        reference.render_row(y) for y in range(3)]
    assert ours.history_size() == reference.history_size()
    history = ours.render_history(0, ours.history_size())
    expected = reference.render_history(0, reference.history_size())
    assert [linked(row) for row in history] == [linked(row) for row in expected]
    assert [row_text(row).rstrip() for row in history] == [
        row_text(row).rstrip() for row in expected]


@pytest.mark.pyte_only
def test_links_no_cell_shows_any_more_are_freed_for_new_ones() -> None:
    emulator = PyteEmulator(20, 2, scrollback_lines=0)
    for number in range(3 * MAX_LINKS):
        emulator.feed(f"\r{link(f'https://x/{number}')}ab{END}".encode())
        assert linked(first(emulator)) == [("ab", f"https://x/{number}")], number
    assert len(emulator.screen.links) <= MAX_LINKS


@pytest.mark.ghostty_only
@pytest.mark.parametrize("stream", STREAMS)
def test_ghostty_reads_linked_rows_as_text_without_building_them(stream: str) -> None:
    emulator = GhosttyEmulator(20, 3, scrollback_lines=100)
    emulator.feed(stream.encode())
    emulator.take_dirty()  # noted, not built
    texts = [emulator.row_text(y) for y in range(3)]
    assert texts == [row_text(emulator.render_row(y)) for y in range(3)]
