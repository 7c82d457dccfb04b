"""Hyperlinks on the wire: beside the rows, typed, and free for rows without any."""

from __future__ import annotations

import msgspec

from adapters.emulator import PyteEmulator
from adapters.ipc import framing
from adapters.ipc.commands import HistoryAnswer
from adapters.ipc.messages import CellFrame
from core.hyperlinks import attach_links
from core.terminal import LinkedRow, Row, links_of_rows

URI = "https://example.com/docs"
LINKED = LinkedRow([("see ", -1, -1, 0), ("docs", 4, -1, 8)], ((1, URI),))
PLAIN: Row = (("plain", -1, -1, 0),)


def frame_of(rows: list[tuple[int, Row]]) -> CellFrame:
    return CellFrame(cell="c", cols=8, rows=2, lines=rows, cursor=(0, 0, True, 0),
                     links=links_of_rows(rows))


def received(frame: CellFrame) -> CellFrame:
    decoded = framing.decode_daemon(framing.encode(frame)[framing.HEADER.size:])
    assert isinstance(decoded, CellFrame)
    return decoded


def test_linked_rows_round_trip_with_their_links() -> None:
    frame = received(frame_of([(0, PLAIN), (1, LINKED)]))
    assert frame.links == [(1, ((1, URI),))]
    rows = dict(frame.lines)
    assert attach_links(rows[1], dict(frame.links)[1]) == LINKED
    assert rows[0] == PLAIN


def test_rows_without_links_encode_exactly_as_before() -> None:
    frame = frame_of([(0, PLAIN), (1, PLAIN)])
    assert frame.links == []
    before = CellFrame(cell="c", cols=8, rows=2, lines=[(0, PLAIN), (1, PLAIN)],
                       cursor=(0, 0, True, 0))
    assert framing.encode(frame) == framing.encode(before)
    assert b"links" not in framing.encode(frame)


def test_a_linked_row_s_runs_encode_as_a_plain_row_s() -> None:
    # The runs travel as they always did; only the links field is added.
    assert msgspec.msgpack.encode(LINKED) == msgspec.msgpack.encode(tuple(LINKED))


def test_a_peer_that_does_not_know_links_reads_the_frame() -> None:
    class OldCellFrame(msgspec.Struct, tag_field="t", tag="frame", omit_defaults=True):
        cell: str
        cols: int
        rows: int
        lines: list[tuple[int, tuple[tuple[str, int, int, int], ...]]]
        cursor: tuple[int, int, bool, int]

    body = framing.encode(frame_of([(1, LINKED)]))[framing.HEADER.size:]
    old = msgspec.msgpack.decode(body, type=OldCellFrame)
    assert old.lines == [(1, tuple(LINKED))]


def test_links_the_client_would_not_accept_are_dropped_on_arrival() -> None:
    row = attach_links(tuple(LINKED), [(1, "javascript:alert(1)"), (9, URI), (-1, URI)])
    assert type(row) is tuple and row == tuple(LINKED)


def test_history_answers_carry_links_only_when_some_row_has_them() -> None:
    emulator = PyteEmulator(10, 2, scrollback_lines=10)
    emulator.feed(f"plain\r\n\x1b]8;;{URI}\x1b\\docs\x1b]8;;\x1b\\\r\n\r\n\r\n".encode())
    rows = emulator.render_history(0, emulator.history_size())
    assert [row[0][0].rstrip() for row in rows[:2]] == ["plain", "docs"]
    links = links_of_rows(enumerate(rows))
    assert links == [(1, ((0, URI),))]
    answer = HistoryAnswer(size=len(rows), rows=list(rows), links=links)
    back = msgspec.msgpack.decode(msgspec.msgpack.encode(answer), type=HistoryAnswer)
    assert back.links == links
    plain = HistoryAnswer(size=1, rows=[PLAIN])
    assert b"links" not in msgspec.msgpack.encode(plain)
