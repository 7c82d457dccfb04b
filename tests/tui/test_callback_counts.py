"""`idea_tui.callback_counts`: the same parameter counts as Textual's, without working a
callback's signature out again on every call."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any
from unittest import mock

from textual import _callback

from idea_tui import callback_counts


class Thing:
    def none(self) -> None: ...

    def one(self, value: int) -> None: ...


def two(first: int, second: int) -> None: ...


def test_counts_are_textuals() -> None:
    thing = Thing()
    callables: list[Any] = [
        thing.none, thing.one, two, partial(two), partial(two, 1), partial(two, second=2),
        partial(thing.one), partial(thing.one, 5), lambda: None, lambda a, b, c: None,
    ]
    for func in callables:
        assert callback_counts.count_parameters(func) == callback_counts._textual_count(func)


def test_a_bare_partial_is_counted_once_for_its_function() -> None:
    thing = Thing()
    callback_counts.install()
    textual_signature = _callback.signature  # type: ignore[attr-defined]
    with mock.patch.object(_callback, "signature", wraps=textual_signature) as signature:
        for _ in range(5):
            # What `call_next` and `call_after_refresh` hand to `invoke`: a new partial.
            asyncio.run(_callback._invoke(partial(thing.none)))
    assert signature.call_count <= 1


def test_installing_twice_keeps_one_layer() -> None:
    callback_counts.install()
    callback_counts.install()
    assert _callback.count_parameters is callback_counts.count_parameters
