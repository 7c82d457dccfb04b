"""The early frame's copies of the protocol: its classes fill the Structs' defaults, and
its constants are the ones of the modules it does without."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from adapters.config import Config
from adapters.ipc import framing, messages, msgpack_lite
from core import terminal
from idea_tui import attach, early_attach, first_paint
from idea_tui.early_scene import EarlyBorder, EarlyCell, EarlyCellFrame, EarlyNamed, EarlyScene

REQUIRED = {"id": "c", "index": 3, "x": 1, "y": 2, "width": 30, "height": 9}


@pytest.mark.parametrize(("early", "struct", "given"), [
    (EarlyCell, messages.CellInfo, REQUIRED),
    (EarlyNamed, messages.TabInfo, {"project": "p", "name": "n", "root": "/r"}),
    (EarlyNamed, messages.PageInfo, {"id": "a", "name": "n"}),
    (EarlyBorder, messages.BorderInfo, {"vertical": True, "x": 1, "y": 2, "length": 3,
                                        "container": "k", "index": 0}),
])
def test_fields_left_out_of_the_wire_take_the_struct_s_default(
        early: Any, struct: Any, given: dict[str, Any]) -> None:
    wire = msgpack_lite.decode(msgspec.msgpack.encode(struct(**given)))
    view = early(wire)
    reference = struct(**given)
    for name in early.__slots__:
        if hasattr(reference, name):
            assert getattr(view, name) == getattr(reference, name), name


def test_a_whole_scene_and_frame_read_as_the_structs_say() -> None:
    scene = messages.Scene(
        window="main", windows=[], tabs=[messages.TabInfo("p", "proj", "/p", True)],
        pages=[messages.PageInfo("a", "Default", active=True)], width=40, height=10,
        cells=[messages.CellInfo("c", 0, 0, 0, 40, 10, command="vim", running=False,
                                 exit_code=2, kind="agent", mark="T3")],
        borders=[messages.BorderInfo(True, 20, 0, 10, "k", 0)], zoomed=True)
    view = EarlyScene(msgpack_lite.decode(framing.encode(scene)[4:]))
    assert (view.window, view.width, view.height, view.zoomed) == ("main", 40, 10, True)
    cell = view.cells[0]
    assert (cell.command, cell.running, cell.exit_code, cell.kind, cell.mark) == (
        "vim", False, 2, "agent", "T3")
    assert [(t.name, t.active) for t in view.tabs] == [("proj", True)]
    assert (view.borders[0].vertical, view.borders[0].x) == (True, 20)
    frame = messages.CellFrame(cell="c", cols=40, rows=9, full=True, cursor=(5, 1, True, 2),
                               lines=[(0, (("a", 1, -1, 3), ("b", -1, 2, 0)))])
    early = EarlyCellFrame(msgpack_lite.decode(framing.encode(frame)[4:]))
    assert (early.cell, early.cols, early.rows, early.full) == ("c", 40, 9, True)
    assert early.cursor == (5, 1, True, 2)
    assert early.lines == [(0, [("a", 1, -1, 3), ("b", -1, 2, 0)])]


def test_a_malformed_scene_reads_as_defaults_instead_of_failing() -> None:
    view = EarlyScene({"t": "scene", "tabs": "no", "cells": [1, {"id": 5, "width": "x"}]})
    assert view.tabs == [] and view.cells[0].id == "" and view.cells[0].width == 0


def test_the_constants_copied_for_the_first_frame_are_the_originals() -> None:
    assert early_attach.PROTOCOL_VERSION == messages.PROTOCOL_VERSION
    assert early_attach.MAX_FRAME == framing.MAX_FRAME
    assert msgpack_lite.HEADER.format == framing.HEADER.format
    assert Config().prefix == attach.DEFAULT_PREFIX
    assert first_paint.DEFAULT_COLOR == terminal.DEFAULT_COLOR
    assert first_paint.TRUECOLOR_FLAG == terminal.TRUECOLOR_FLAG
    for flag in terminal.Attr:
        if flag.name and flag is not terminal.Attr.NONE:
            assert getattr(first_paint, f"ATTR_{flag.name}") == flag.value, flag.name


def test_the_early_frame_draws_an_unavailable_tab_as_the_tab_bar_does() -> None:
    scene = messages.Scene(
        window="main", windows=[], tabs=[
            messages.TabInfo("p", "proj", "/p", True),
            messages.TabInfo("", "gone", "/g", unavailable="/g is missing")],
        pages=[messages.PageInfo("a", "Default", active=True)], width=80, height=10,
        cells=[], borders=[])
    view = EarlyScene(msgpack_lite.decode(framing.encode(scene)[4:]))
    assert view.tabs[1].unavailable == "/g is missing" and view.tabs[1].root == "/g"
    painted = first_paint.Painter(view, {}, 120, 12, "256").paint()
    assert first_paint.unavailable_label("gone", "/g is missing") in painted
    assert first_paint.unavailable_label(
        "gone", "/g is missing") == " ⚠ gone: /g is missing (click: retry) "
