"""Textual asks how many parameters a callback takes each time it calls one; remember it.

Every `call_next`, `call_later` and `call_after_refresh` wraps its callback in a new
`functools.partial`, and `textual._callback.count_parameters` caches the count on that
partial, which is thrown away after the call: each call runs `inspect.signature` again.
For this app that is several per frame drawn (the echo's "after refresh" callbacks, the
paced repaints of other cells), about 6 % of the client's CPU while nine agent cells
repaint. A partial that adds no arguments counts as its function, whose count Textual
does keep (bound methods keep it on their function), so that is what is asked instead.
Textual is pinned exactly (pyproject.toml); tests/tui/test_callback_counts.py holds the
counts to Textual's own.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual import _callback

_textual_count = _callback.count_parameters


def count_parameters(func: Callable[..., Any]) -> int:
    """Textual's count, with a bare partial counted as the function it wraps."""
    if type(func) is partial and not func.args and not func.keywords:
        return _textual_count(func.func)
    return _textual_count(func)


def install() -> None:
    """Make Textual's callback invocation use `count_parameters` (idempotent)."""
    _callback.count_parameters = count_parameters
