"""The ghostty backend moves its oldest history pages out of Ghostty while idle
(`adapters/emulator/cold_rows.py`): whatever is moved, the port shows what a twin that never
moved anything shows, and Ghostty keeps only the pages it must.

Each test feeds one stream to two emulators and compacts one of them fully; at the same
width both must give the same history and screen, row for row.
"""

from __future__ import annotations

import random

import pytest

from adapters.emulator.ghostty import GhosttyEmulator
from core.terminal import Row, row_text

pytestmark = pytest.mark.ghostty_only

COLS, ROWS = 120, 30
WORDS = ("alpha", "beta", "gamma", "delta", "omega", "zeta", "kappa", "lambda")


def styled_lines(count: int, seed: int = 7, first: int = 0) -> bytes:
    """`count` lines of coloured words, some long enough to wrap at 120 columns."""
    pick = random.Random(seed)
    out = []
    for n in range(first, first + count):
        words = pick.randrange(3, 40 if n % 5 == 0 else 15)
        line = " ".join(f"\x1b[3{pick.randrange(8)}m{pick.choice(WORDS)}" for _ in range(words))
        out.append(f"{n:05d} {line}\x1b[0m\r\n")
    return "".join(out).encode()


def twins(data: bytes, scrollback: int = 10_000) -> tuple[GhosttyEmulator, GhosttyEmulator]:
    plain = GhosttyEmulator(COLS, ROWS, scrollback_lines=scrollback)
    moved = GhosttyEmulator(COLS, ROWS, scrollback_lines=scrollback)
    plain.feed(data)
    moved.feed(data)
    return plain, moved


def compact(emulator: GhosttyEmulator) -> int:
    """Run compaction steps until there is nothing more to do; how many ran."""
    steps = 0
    while emulator.compact_step():
        steps += 1
        assert steps < 100_000, "compaction never ends"
    return steps


def history(emulator: GhosttyEmulator) -> list[Row]:
    return list(emulator.render_history(0, emulator.history_size()))


def assert_same(plain: GhosttyEmulator, moved: GhosttyEmulator) -> None:
    assert moved.history_size() == plain.history_size()
    assert history(moved) == history(plain)
    assert moved.display() == plain.display()
    assert moved.cursor() == plain.cursor()


def test_moving_the_oldest_pages_out_changes_nothing_the_port_shows() -> None:
    plain, moved = twins(styled_lines(12_000))
    kept_before = moved._kept_history()
    compact(moved)
    assert moved._cold.size() > 0, "nothing was moved out"
    # Ghostty keeps the page the screen starts in and one more, nothing older.
    rows_per_page = 374_500 // (8 * COLS + 8)
    assert moved._kept_history() < 3 * rows_per_page < kept_before
    assert_same(plain, moved)
    # Packed, the moved rows take a fraction of Ghostty's 8 bytes a cell.
    assert moved._cold.packed_bytes() < moved._cold.size() * COLS * 8 / 10


def test_reading_parts_of_the_history_gives_the_same_rows_as_reading_it_whole() -> None:
    plain, moved = twins(styled_lines(6_000))
    compact(moved)
    size = moved.history_size()
    whole = history(plain)
    for start, count in ((0, 1), (5, 300), (size - 700, 650), (size - 3, 10), (1234, 2000)):
        assert moved.render_history(start, count) == whole[start:start + count]


def test_output_after_a_move_goes_on_after_the_moved_rows_within_the_bound() -> None:
    plain, moved = twins(styled_lines(5_000), scrollback=6_000)
    compact(moved)
    more = styled_lines(4_000, seed=8, first=5_000)
    plain.feed(more)
    moved.feed(more)
    assert_same(plain, moved)
    assert moved.history_size() == 6_000
    compact(moved)  # a second move: a second segment, the oldest trimmed to the bound
    assert_same(plain, moved)
    assert moved._cold.size() <= 6_000 + 2 * ROWS


def test_a_move_cut_short_by_output_begins_again_and_duplicates_nothing() -> None:
    plain, moved = twins(styled_lines(4_000))
    for _ in range(5):
        assert moved.compact_step()  # part of the pages read
    line = b"one more line\r\n"
    plain.feed(line)
    moved.feed(line)
    compact(moved)
    assert moved._cold.size() > 0
    assert_same(plain, moved)


@pytest.mark.parametrize("clear", [b"\x1b[3J", b"\x1b[H\x1b[2J\x1b[3J", b"\x1bc"])
def test_clearing_the_history_clears_the_moved_rows_too(clear: bytes) -> None:
    plain, moved = twins(styled_lines(4_000))
    compact(moved)
    after = clear + b"fresh\r\n"
    plain.feed(after)
    moved.feed(after)
    assert moved.history_size() == plain.history_size()
    assert_same(plain, moved)


def test_a_clear_cut_between_two_reads_is_seen() -> None:
    plain, moved = twins(styled_lines(4_000))
    compact(moved)
    for piece in (b"\x1b[", b"3J", b"next\r\n"):
        plain.feed(piece)
        moved.feed(piece)
    assert plain.history_size() == 1  # the line "next" scrolled away, nothing older
    assert_same(plain, moved)


def test_output_in_the_same_read_after_a_clear_starts_a_new_history() -> None:
    plain, moved = twins(styled_lines(4_000))
    compact(moved)
    after = b"\x1b[3J" + styled_lines(100, seed=9)
    plain.feed(after)
    moved.feed(after)
    assert_same(plain, moved)
    assert moved.history_size() > 0
    assert not moved._cold, "the rows moved before the clear are still kept"


def test_the_alternate_screen_hides_the_moved_rows_and_keeps_them() -> None:
    plain, moved = twins(styled_lines(4_000))
    compact(moved)
    for emulator in (plain, moved):
        emulator.feed(b"\x1b[?1049h\x1b[3Jfull screen")
    assert moved.history_size() == plain.history_size() == 0
    for emulator in (plain, moved):
        emulator.feed(b"\x1b[?1049l")
    assert_same(plain, moved)


def test_a_pane_that_grows_pulls_its_last_lines_back_as_before() -> None:
    plain, moved = twins(styled_lines(4_000))
    compact(moved)
    plain.resize(COLS, ROWS + 20)
    moved.resize(COLS, ROWS + 20)
    assert_same(plain, moved)


def test_a_reflow_keeps_every_line_of_the_moved_rows() -> None:
    """Lines that never wrapped at 120 columns (so no page boundary cuts one): reflowed to
    70 and back, the moved rows read as Ghostty's own reflow reads them."""
    lines = "".join(f"{n:05d} " + "word " * (n % 19) + "\r\n" for n in range(4_000))
    plain, moved = twins(lines.encode())
    compact(moved)
    for cols in (70, 200, COLS):
        plain.resize(cols, ROWS)
        moved.resize(cols, ROWS)
        assert [row_text(row).rstrip() for row in history(moved)] == [
            row_text(row).rstrip() for row in history(plain)], cols
        assert moved.display() == plain.display()
    assert_same(plain, moved)


def test_nothing_is_moved_from_a_short_history_nor_twice_without_output() -> None:
    emulator = GhosttyEmulator(COLS, ROWS)
    emulator.feed(styled_lines(200))
    compact(emulator)
    assert not emulator._cold
    emulator.feed(styled_lines(3_000))
    compact(emulator)
    size = emulator._cold.size()
    assert size > 0
    assert compact(emulator) == 0  # quiet since: no move begins again
    assert emulator._cold.size() == size


def test_wide_characters_graphemes_and_links_move_out_as_they_were() -> None:
    pick = random.Random(3)
    parts = []
    for n in range(4_000):
        extra = pick.choice(["中文字符", "e\u0301t\u00e9", "👩\u200d💻 dev",
                             f"\x1b]8;;https://example.com/{n}\x1b\\link\x1b]8;;\x1b\\",
                             "\x1b[1;4;38;2;10;20;30mrgb\x1b[0m", "plain"])
        parts.append(f"{n:05d} {extra} " + "x" * pick.randrange(0, 140) + "\r\n")
    plain, moved = twins("".join(parts).encode())
    compact(moved)
    assert moved._cold.size() > 0
    assert_same(plain, moved)
    for cols in (90, COLS):
        plain.resize(cols, ROWS)
        moved.resize(cols, ROWS)
        assert moved.history_size() > 0
    assert_same(plain, moved)
