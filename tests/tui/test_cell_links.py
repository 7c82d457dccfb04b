"""Hyperlinks in a cell reach the user's terminal: the strip of a linked row has the link
style on exactly the linked text, unlinked rows are drawn as before, and what Textual writes
to the terminal holds `OSC 8` around that text (and nothing else linked)."""

from __future__ import annotations

import re

from rich.console import Console
from textual.pilot import Pilot

from adapters.ipc.commands import HistoryAnswer
from adapters.ipc.messages import CellFrame
from core.terminal import LinkedRow, Row, links_of_rows
from idea_tui.app import IdeaApp
from idea_tui.view_actions import history_rows
from idea_tui.widgets.row_render import RowRenderer
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.pilot import drive, make_app, settle, show
from tests.helpers.scenes import grid_scene, run

URI = "https://example.com/docs?q=1"
LINKED = LinkedRow([("see ", 1, -1, 0), ("the docs", -1, -1, 8), (" now", -1, -1, 0)],
                   ((1, URI),))
PLAIN: Row = (("see the docs now", 1, -1, 0),)
OSC8 = re.compile(r"\x1b]8;id=[^;\x1b]*;([^\x1b]*)\x1b\\(.*?)\x1b]8;;\x1b\\")


def test_the_linked_segment_has_the_link_style_and_the_rest_none() -> None:
    renderer = RowRenderer()
    strip = renderer.render(LINKED, 20)
    links = [(segment.text, segment.style.link if segment.style else None)
             for segment in strip]
    assert links == [("see ", None), ("the docs", URI), (" now", None), ("    ", None)]
    assert strip.text == "see the docs now    "
    assert strip.cell_length == 20


def test_unlinked_rows_are_drawn_as_before() -> None:
    renderer = RowRenderer()
    strip = renderer.render(PLAIN, 20)
    assert all(segment.style is None or segment.style.link is None for segment in strip)
    # The same runs linked and unlinked are different rows to the strip cache.
    assert renderer.cached(tuple(LINKED), 20) is not renderer.cached(LINKED, 20)
    assert all(segment.style is None or not segment.style.link
               for segment in renderer.cached(tuple(LINKED), 20))


def test_the_cursor_row_keeps_its_link() -> None:
    strip = RowRenderer().render_with_cursor(LINKED, 20, 5)
    linked_text = "".join(segment.text for segment in strip
                          if segment.style is not None and segment.style.link == URI)
    assert linked_text == "the docs"


def test_textual_writes_osc_8_around_exactly_the_linked_text() -> None:
    written = RowRenderer().render(LINKED, 20).render(Console(force_terminal=True))
    assert OSC8.findall(written) == [(URI, "\x1b[4mthe docs\x1b[0m")]


def test_a_frame_with_links_reaches_the_terminal_as_osc_8() -> None:
    scene = grid_scene(60, 12, 1, 1)
    lines: list[tuple[int, Row]] = [(0, PLAIN), (1, LINKED)]
    frame = CellFrame(cell="cell-0", cols=scene.cells[0].width, rows=11, lines=lines,
                      cursor=(0, 5, True, 0), full=True, links=links_of_rows(lines))
    output: list[str] = []

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await show(pilot, scene, [frame])
        await settle(pilot)
        # What the driver is given to write: the whole screen as Textual renders it.
        update = app.screen._compositor.render_full_update()
        output.append(update.render_segments(app.console))

    drive(make_app(FakeGateway()), scenario, (60, 14))
    links = OSC8.findall(output[0])
    assert [(uri, re.sub(r"\x1b\[[0-9;]*m", "", text)) for uri, text in links] == [
        (URI, "the docs")]


def test_copy_mode_history_rows_keep_their_links() -> None:
    answer = HistoryAnswer(size=2, rows=[[list(run("old"))], [list(r) for r in LINKED]],
                           links=[(1, ((1, URI),)), (5, ((0, URI),))])
    rows = history_rows(answer)
    assert rows == [(run("old"),), LINKED]
    assert history_rows(HistoryAnswer(size=1, rows=[[list(run("x"))]])) == [(run("x"),)]
