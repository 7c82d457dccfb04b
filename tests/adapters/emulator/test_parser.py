"""The byte stream: decoding, sequences split across reads, malformed and absurd input."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

from tests.adapters.emulator.helpers import check_invariants, fed, lines, make, style_at

MIXED = (
    "plain \x1b[1;31mred\x1b[0m 中文 e\u0301 \x1b]0;title\x07\x1b[2;3Hx\x1b[?25l"
    "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x1bP+q544e\x1b\\\x1b[38:2::1:2:3mrgb\r\n"
).encode()


def _screen_of(chunks: list[bytes]) -> tuple[list[str], tuple[int, int], str]:
    emulator = make(cols=30, rows=4)
    for chunk in chunks:
        emulator.feed(chunk)
    cursor = emulator.cursor()
    return lines(emulator), (cursor.x, cursor.y), emulator.title


def test_every_split_point_gives_the_same_screen() -> None:
    whole = _screen_of([MIXED])
    for cut in range(1, len(MIXED)):
        assert _screen_of([MIXED[:cut], MIXED[cut:]]) == whole, cut


def test_byte_at_a_time_gives_the_same_screen() -> None:
    assert _screen_of([MIXED[i : i + 1] for i in range(len(MIXED))]) == _screen_of([MIXED])


def test_utf8_split_across_feeds_is_kept() -> None:
    emulator = make()
    data = "é中😀".encode()
    for index in range(len(data)):
        emulator.feed(data[index : index + 1])
    assert lines(emulator)[0] == "é中😀"


def test_invalid_utf8_becomes_replacement_characters() -> None:
    assert lines(fed(b"a\xffb\xc3"))[0] == "a\ufffdb"


def test_private_sgr_like_sequences_are_not_sgr() -> None:
    # vim sends `CSI > 4 ; 2 m` (modifyOtherKeys); pyte would take it as underline.
    emulator = fed("\x1b[>4;2mx\x1b[?4mx")
    assert style_at(emulator, 0, 0) == (-1, -1, 0)
    assert style_at(emulator, 1, 0) == (-1, -1, 0)


def test_unknown_sequences_are_consumed_silently() -> None:
    emulator = fed("a\x1b[?u\x1b[>1u\x1b[=5c\x1b[1$zb\x1bNc\x1b%Gd\x1b*0e\x1b[ @f")
    assert lines(emulator)[0] == "abcdef"


def test_controls_inside_a_csi_are_executed_in_place() -> None:
    assert lines(fed("abc\x1b[1\r;5Hx"))[0] == "abc x"


def test_can_cancels_a_sequence() -> None:
    assert lines(fed("a\x1b[12\x18b"))[0] == "ab"


def test_c1_code_points_and_nul_del_are_ignored() -> None:
    assert lines(fed("a\u009b31mb\x00c\x7fd"))[0] == "a31mbcd"


def test_dcs_and_apc_strings_are_dropped_even_when_split() -> None:
    emulator = make()
    for part in (b"a\x1bP1$r", b"0m", b"\x1b", b"\\b\x1b_Gi=1;", b"AAAA\x1b\\c"):
        emulator.feed(part)
    assert lines(emulator)[0] == "abc"


def test_osc_string_beyond_the_limit_is_dropped_and_parsing_resumes() -> None:
    emulator = make()
    emulator.feed(b"\x1b]2;" + b"x" * 40_000)
    emulator.feed(b"y" * 40_000 + b"\x07after")
    assert emulator.title == ""
    assert lines(emulator)[0] == "after"


def test_unterminated_string_fed_a_byte_at_a_time_stays_linear() -> None:
    emulator = make()

    def bytes_one_by_one() -> None:
        for _ in range(3000):
            emulator.feed(b"z")

    calls = _calls(bytes_one_by_one)
    # OSC 7 (a cwd) is kept whole; a title would be capped at MAX_TITLE (issue 7).
    emulator.feed(b"\x1b]7;/" + b"z")
    calls_in_string = _calls(bytes_one_by_one)
    emulator.feed(b"\x07")
    # Each byte inside the string costs a bounded amount, as each plain byte does.
    assert calls_in_string <= calls * 3
    assert emulator.cwd == "/" + "z" * 3001


def _calls(action: Callable[[], object]) -> int:
    """Python function calls made while running `action`: a timing-free measure of work."""
    count = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return count


@pytest.mark.parametrize(
    "sequence",
    [
        "\x1b[999999999@",
        "\x1b[999999999P",
        "\x1b[999999999L",
        "\x1b[999999999M",
        "\x1b[999999999S",
        "\x1b[999999999T",
        "\x1b[999999999X",
        "\x1b[999999999b",
        "\x1b[999999999I",
        "\x1b[999999999;999999999H",
        "\x1b[" + "9" * 5000 + "A",
        "\x1b[" + "1;" * 5000 + "m",
        "\x1b[" + "38;5;" * 3000 + "m",
    ],
    ids=lambda sequence: repr(sequence[:24]),
)
def test_absurd_parameters_cost_bounded_work(sequence: str) -> None:
    sane = make(cols=80, rows=24)
    sane.feed(b"text")
    baseline = _calls(lambda: sane.feed(b"\x1b[5@x"))
    emulator = make(cols=80, rows=24)
    emulator.feed(b"text")
    work = _calls(lambda: emulator.feed(sequence.encode()))
    assert work < max(baseline, 50) * 40, (work, baseline)
    check_invariants(emulator)


def test_a_partial_sequence_longer_than_the_bound_is_dropped() -> None:
    emulator = make()
    emulator.feed(b"\x1b[" + b"1;" * 5000)
    emulator.feed(b"\x1b[Hok")
    assert lines(emulator)[0].startswith("ok")
    check_invariants(emulator)


def test_reports_come_from_a_fresh_parser_after_any_garbage() -> None:
    emulator = fed(b"\x1b\x1b[\x1b]\x1b\\\x1bP\x1b\\\x1b[?\x1b[6n")
    assert emulator.take_replies() == b"\x1b[1;1R"
