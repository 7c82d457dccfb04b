"""Enough msgpack, in plain Python, for the first frame of an attach.

msgspec is quick once loaded, but loading it (and the `uuid`, `platform`, `inspect`,
`datetime`, `decimal` and `typing_extensions` it brings) costs more CPU than everything
else before the first paint of `idea attach` together; on a loaded machine that is most of
the wait. The early frame (`idea_tui.early_attach`) only has to say Hello, ask one
question and read a scene and a few cell frames, so it encodes and decodes them with this
module: maps, arrays, strings, binaries, integers, floats, booleans and nil — what the
protocol's Structs (`adapters.ipc.messages`, tagged maps) are made of. The app then decodes
the same bytes again with msgspec, into the Structs. `tests/adapters/test_msgpack_lite.py`
holds both to the same bytes.
"""

from __future__ import annotations

import struct

TYPE_CHECKING = False  # typing is not imported before the first frame
if TYPE_CHECKING:
    from typing import Any

HEADER = struct.Struct("!I")
"""The frame header of `adapters.ipc.framing`: the body's length."""


class LiteError(ValueError):
    """Bytes that are not msgpack of the subset this module reads."""


# ─── encoding ──────────────────────────────────────────────────────────────────────────


def _encode(value: Any, out: bytearray) -> None:
    if value is None:
        out.append(0xC0)
    elif value is True:
        out.append(0xC3)
    elif value is False:
        out.append(0xC2)
    elif isinstance(value, int):
        _encode_int(value, out)
    elif isinstance(value, str):
        data = value.encode("utf-8")
        size = len(data)
        if size < 32:
            out.append(0xA0 | size)
        elif size < 0x100:
            out += b"\xd9" + bytes((size,))
        elif size < 0x10000:
            out += b"\xda" + struct.pack("!H", size)
        else:
            out += b"\xdb" + struct.pack("!I", size)
        out += data
    elif isinstance(value, dict):
        _size(len(value), 0x80, b"\xde", b"\xdf", out)
        for key, item in value.items():
            _encode(key, out)
            _encode(item, out)
    elif isinstance(value, (list, tuple)):
        _size(len(value), 0x90, b"\xdc", b"\xdd", out)
        for item in value:
            _encode(item, out)
    elif isinstance(value, float):
        out += b"\xcb" + struct.pack("!d", value)
    elif isinstance(value, (bytes, bytearray)):
        size = len(value)
        if size < 0x100:
            out += b"\xc4" + bytes((size,))
        elif size < 0x10000:
            out += b"\xc5" + struct.pack("!H", size)
        else:
            out += b"\xc6" + struct.pack("!I", size)
        out += value
    else:
        raise LiteError(f"cannot encode {type(value).__name__}")


def _size(size: int, fix: int, sixteen: bytes, thirty_two: bytes, out: bytearray) -> None:
    if size < 16:
        out.append(fix | size)
    elif size < 0x10000:
        out += sixteen + struct.pack("!H", size)
    else:
        out += thirty_two + struct.pack("!I", size)


def _encode_int(value: int, out: bytearray) -> None:
    if 0 <= value < 0x80:
        out.append(value)
    elif -32 <= value < 0:
        out.append(value & 0xFF)
    elif 0 <= value < 1 << 64:
        out += b"\xcf" + struct.pack("!Q", value)
    elif -(1 << 63) <= value < 0:
        out += b"\xd3" + struct.pack("!q", value)
    else:
        raise LiteError(f"integer {value} does not fit in 64 bits")


def encode(value: Any) -> bytes:
    """`value` as msgpack."""
    out = bytearray()
    _encode(value, out)
    return bytes(out)


def frame(value: Any) -> bytes:
    """`value` as one frame of the protocol (length prefix, msgpack body)."""
    body = encode(value)
    return HEADER.pack(len(body)) + body


# ─── decoding ──────────────────────────────────────────────────────────────────────────

_FIXED = {
    0xCC: (struct.Struct("!B"), 1), 0xCD: (struct.Struct("!H"), 2),
    0xCE: (struct.Struct("!I"), 4), 0xCF: (struct.Struct("!Q"), 8),
    0xD0: (struct.Struct("!b"), 1), 0xD1: (struct.Struct("!h"), 2),
    0xD2: (struct.Struct("!i"), 4), 0xD3: (struct.Struct("!q"), 8),
    0xCA: (struct.Struct("!f"), 4), 0xCB: (struct.Struct("!d"), 8),
}
_LENGTH = {1: struct.Struct("!B"), 2: struct.Struct("!H"), 4: struct.Struct("!I")}
_STR = {0xD9: 1, 0xDA: 2, 0xDB: 4}
_BIN = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_ARRAY = {0xDC: 2, 0xDD: 4}
_MAP = {0xDE: 2, 0xDF: 4}


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, size: int) -> bytes:
        end = self.at + size
        if end > len(self.data):
            raise LiteError("truncated msgpack")
        chunk = self.data[self.at:end]
        self.at = end
        return chunk

    def length(self, size: int) -> int:
        value: int = _LENGTH[size].unpack(self.take(size))[0]
        return value

    def value(self) -> Any:
        head = self.take(1)[0]
        if head < 0x80:
            return head
        if head >= 0xE0:
            return head - 0x100
        if 0xA0 <= head <= 0xBF:
            return self.text(head & 0x1F)
        if 0x90 <= head <= 0x9F:
            return [self.value() for _ in range(head & 0x0F)]
        if 0x80 <= head <= 0x8F:
            return self.mapping(head & 0x0F)
        if head == 0xC0:
            return None
        if head in (0xC2, 0xC3):
            return head == 0xC3
        fixed = _FIXED.get(head)
        if fixed is not None:
            unpacker, size = fixed
            return unpacker.unpack(self.take(size))[0]
        if head in _STR:
            return self.text(self.length(_STR[head]))
        if head in _BIN:
            return self.take(self.length(_BIN[head]))
        if head in _ARRAY:
            return [self.value() for _ in range(self.length(_ARRAY[head]))]
        if head in _MAP:
            return self.mapping(self.length(_MAP[head]))
        raise LiteError(f"msgpack type 0x{head:02x} is not read here")

    def text(self, size: int) -> str:
        try:
            return self.take(size).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise LiteError(f"bad UTF-8 in msgpack: {exc}") from None

    def mapping(self, size: int) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for _ in range(size):
            key = self.value()
            if isinstance(key, (list, dict)):
                raise LiteError("unhashable msgpack map key")
            result[key] = self.value()
        return result


def decode(data: bytes) -> Any:
    """The value `data` holds (arrays as lists, binaries as bytes).

    Raises:
        LiteError: Not msgpack of this subset, or bytes left over after the value.
    """
    reader = _Reader(data)
    value = reader.value()
    if reader.at != len(data):
        raise LiteError("bytes left after the msgpack value")
    return value


def split_frames(buffer: bytearray, limit: int) -> list[bytes]:
    """`adapters.ipc.framing.split_frames`, without importing msgspec: the complete frames
    at the start of `buffer`, removed from it.

    Raises:
        LiteError: A frame's header announces more than `limit` bytes.
    """
    frames: list[bytes] = []
    start = 0
    while len(buffer) - start >= HEADER.size:
        (length,) = HEADER.unpack_from(buffer, start)
        if length > limit:
            raise LiteError(f"frame of {length} bytes exceeds the {limit} limit")
        end = start + HEADER.size + length
        if end > len(buffer):
            break
        frames.append(bytes(buffer[start + HEADER.size:end]))
        start = end
    del buffer[:start]
    return frames
