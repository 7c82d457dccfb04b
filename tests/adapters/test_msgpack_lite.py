"""The plain-Python msgpack of the early frame reads what msgspec writes, and msgspec reads
what it writes (the protocol's real messages, and the edges of each type's encodings)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.ipc import framing, msgpack_lite
from adapters.ipc.messages import (
    PROTOCOL_VERSION,
    CellFrame,
    CellInfo,
    Hello,
    PageInfo,
    Request,
    Scene,
    TabInfo,
)

values = st.recursive(
    st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 64) - 1)
    | st.floats(allow_nan=False) | st.text() | st.binary(),
    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner),
    max_leaves=30,
)


@given(values)
def test_what_msgspec_writes_is_read_alike(value: Any) -> None:
    assert msgpack_lite.decode(msgspec.msgpack.encode(value)) == value


@given(values)
def test_what_it_writes_msgspec_reads_alike(value: Any) -> None:
    assert msgspec.msgpack.decode(msgpack_lite.encode(value)) == value


@pytest.mark.parametrize("size", [0, 15, 16, 31, 32, 255, 256, 65535, 65536])
def test_every_length_encoding_of_strings_arrays_and_maps(size: int) -> None:
    for value in ("x" * size, list(range(size)), {str(n): n for n in range(size)}):
        data = msgspec.msgpack.encode(value)
        assert msgpack_lite.decode(data) == value
        assert msgspec.msgpack.decode(msgpack_lite.encode(value)) == value


def test_the_handshake_and_request_it_writes_are_the_protocol_s() -> None:
    hello = {"t": "hello", "protocol": PROTOCOL_VERSION, "client_version": "1.0", "kind": "tui",
             "window": None, "width": 80, "height": 22, "env": {"TERM": "xterm"}}
    decoded = framing.decode_client(msgpack_lite.encode(hello))
    assert decoded == Hello(protocol=PROTOCOL_VERSION, client_version="1.0", window=None,
                            width=80, height=22, env={"TERM": "xterm"})
    request = {"t": "req", "id": 0, "method": "profile_list"}
    assert framing.decode_client(msgpack_lite.encode(request)) == Request(id=0,
                                                                         method="profile_list")


def test_a_scene_and_a_frame_read_as_their_maps() -> None:
    scene = Scene(window="w", windows=[], tabs=[TabInfo("p", "proj", "/p", True)],
                  pages=[PageInfo("a", "Default")], width=10, height=5,
                  cells=[CellInfo("c", 0, 0, 0, 10, 5, title="é 漢")], borders=[])
    read = msgpack_lite.decode(framing.encode(scene)[4:])
    assert read["t"] == "scene" and read["cells"][0]["title"] == "é 漢"
    frame = CellFrame(cell="c", cols=10, rows=4, lines=[(0, (("hi", -1, -1, 0),))],
                      cursor=(2, 0, True, 0))
    assert msgpack_lite.decode(framing.encode(frame)[4:])["lines"] == [[0, [["hi", -1, -1, 0]]]]


@pytest.mark.parametrize("data", [b"", b"\x92\x01", b"\xa5abc", b"\xc1", b"\x01\x02",
                                  b"\xa2\xff\xfe", b"\x81\x90\x01"])
def test_malformed_msgpack_is_refused_with_lite_error(data: bytes) -> None:
    with pytest.raises(msgpack_lite.LiteError):
        msgpack_lite.decode(data)


def test_frames_split_as_framing_splits_them_and_huge_lengths_are_refused() -> None:
    one, two = framing.encode(Request(id=1, method="a")), framing.encode(Request(id=2, method="b"))
    buffer = bytearray(one + two[:3])
    assert msgpack_lite.split_frames(buffer, framing.MAX_FRAME) == [one[4:]]
    assert bytes(buffer) == two[:3]
    with pytest.raises(msgpack_lite.LiteError):
        msgpack_lite.split_frames(bytearray(b"\xff\xff\xff\xff"), framing.MAX_FRAME)
