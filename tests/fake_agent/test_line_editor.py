"""The fake agent's input parser, fed directly: however the bytes are split across reads
(a PTY hands them over in arbitrary pieces), the same lines come out."""

from __future__ import annotations

import importlib.util
import itertools
from types import ModuleType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fake_agent.driver import FAKE_AGENT


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("fake_agent_under_test", FAKE_AGENT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fake_agent = _load()


def submitted(chunks: list[bytes]) -> list[tuple[Any, ...]]:
    editor = fake_agent.LineEditor(echo=False)
    events = [event for chunk in chunks for event in editor.feed(chunk)]
    return [event for event in events if event[0] != "echo"]


STREAM = (
    b"plain\r"
    b"\x1b[200~pasted\r\nblock \x1b[201 tail\x1b[201~\r"
    b"\x1b[Aarrows\x1bOBand\x1bxmeta\r"
    b"crlf\r\n"
    b"lf only\n"
    + "é€\x7fx\r".encode()
)


def test_the_lines_of_the_stream() -> None:
    assert submitted([STREAM]) == [
        ("submit", "plain", False),
        ("submit", "pasted\r\nblock \x1b[201 tail", True),
        ("submit", "arrowsandmeta", False),
        ("submit", "crlf", False),
        ("submit", "lf only", False),
        ("submit", "éx", False),
    ]


@settings(deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_any_split_gives_the_same_lines(cuts: list[int]) -> None:
    points = [0, *sorted(cuts), len(STREAM)]
    chunks = [STREAM[a:b] for a, b in itertools.pairwise(points)]
    assert submitted(chunks) == submitted([STREAM])


def test_echo_shows_typing_and_summarises_a_paste() -> None:
    editor = fake_agent.LineEditor(echo=True)
    events = editor.feed(b"ab\x7f\x1b[200~12345\x1b[201~")
    echoed = b"".join(event[1] for event in events if event[0] == "echo")
    assert echoed == b"ab\b \b[pasted 5 bytes]"


def test_ctrl_d_ends_input_only_on_an_empty_line() -> None:
    assert submitted([b"x\x04\r\x04"]) == [("submit", "x", False), ("eof",)]


def test_lost_enters_keep_the_text_in_the_box() -> None:
    editor = fake_agent.LineEditor(echo=False, drop_submits=2)
    events = editor.feed(b"\r\x1b[200~task\x1b[201~\r\r\rnext\r")
    assert [e for e in events if e[0] != "echo"] == [
        ("submit", "", False),  # an Enter on an empty box is not one that could be lost
        ("submit", "task", True),  # two lost, the third went through
        ("submit", "next", False),
    ]
