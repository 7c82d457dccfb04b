"""The client draws programs' and files' text (cell titles, tab, page and window names,
status-line messages) cleaned and measured in cells like the screen (issue 7): nothing in the
corpus of hostile titles reaches the user's terminal as a control character, and every line
drawn is exactly as wide as the place it is drawn in, wide and combining characters included."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual.pilot import Pilot
from textual.strip import Strip

from idea_tui.app import IdeaApp
from idea_tui.widgets.bars import StatusBar
from idea_tui.widgets.labels import crop, label
from tests.helpers.fake_gateway import FakeGateway
from tests.helpers.hostile_text import HOSTILE_TITLES, UNSAFE, cells
from tests.helpers.pilot import drive, make_app, settle, show
from tests.helpers.scenes import grid_scene

WIDTH, HEIGHT = 90, 20


def assert_clean_strip(strip: Strip, width: int, where: str) -> None:
    text = "".join(segment.text for segment in strip)
    assert not UNSAFE.search(text), f"{where}: {text[:120]!r}"
    # Rich (which writes to the terminal) counts exactly the cells the line is given.
    assert sum(cell_len(segment.text) for segment in strip) == width, f"{where}: {text!r}"


def drawn(title: str) -> list[Strip]:
    """The whole screen, as Textual hands it to the terminal, for a scene whose every name
    (window, tabs, pages, cell titles and commands, a notice) is `title`."""
    scene = grid_scene(WIDTH, HEIGHT - 2, 1, 2, titles=(title, title), commands=(title, "sh"),
                       tabs=(title, "api"), pages=(title, "Two"), window=title)
    screen: list[Strip] = []

    async def scenario(pilot: Pilot[str]) -> None:
        app = pilot.app
        assert isinstance(app, IdeaApp)
        await show(pilot, scene)
        app.query_one(StatusBar).show(f"notice: {title}")
        await settle(pilot)
        screen.extend(app.screen._compositor.render_strips())  # what is sent

    drive(make_app(FakeGateway()), scenario, (WIDTH, HEIGHT))
    return screen


@pytest.mark.parametrize("title", HOSTILE_TITLES, ids=lambda t: repr(t[:24]))
def test_hostile_names_are_drawn_clean_and_to_measure(title: str) -> None:
    screen = drawn(title)
    assert len(screen) == HEIGHT
    for y, strip in enumerate(screen):
        assert_clean_strip(strip, WIDTH, f"line {y}")


def test_a_wide_title_is_cut_by_cells_and_the_border_fills_the_rest() -> None:
    title = "漢字" * 40
    text, used = crop(f" 0 bash: {title} ", 20)
    assert used in (19, 20) and cells(text) == used == cell_len(text)
    assert text.startswith(" 0 bash: 漢字")


def test_combining_marks_take_no_cell() -> None:
    text, used = crop("e\u0301" * 10, 40)
    assert used == 10 == cell_len(text)


def test_controls_become_nothing_or_one_space() -> None:
    assert label("make\r\n\x1b[2J\u009b31mdone") == "make [2J31mdone"
