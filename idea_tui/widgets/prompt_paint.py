"""Draw a widget's refreshed rows now, not on the screen's next update tick.

Textual repaints in hops: `refresh` marks the widget, its idle handler tells the screen,
the screen's idle handler resumes a 60 Hz update timer, whose tick renders the dirty regions
through the compositor and hands the text to the output thread. Each hop is a task switch,
and a tick that just ran makes the next one wait for its slot: a typed key's echo spent
0.5–2 ms there when idle and up to a whole frame (16 ms) beside a flooding cell.

`paint_now` runs that tick's work at once, for the one case where it matters (the focused
cell's echo, see `WorkspaceView.apply_frame`). It is the screen's own update (Textual's
compositor renders the dirty regions with every layer and screen above the widget), so
overlays and Textual's idea of the screen stay right; whenever the screen has other work
pending (a layout, a scroll, a full repaint, a screen on top, a batch) it does nothing and
Textual draws the rows on its next tick as usual. It reaches into Textual's private screen
state (pinned exactly, see pyproject.toml); tests/tui/test_echo_paint.py holds it to that.

`paint_lines_now` goes further for a few whole lines of one widget: it draws them straight,
without the compositor, when no other widget covers them. The compositor would walk every
line of every widget under the update (the screen, the containers, the grid, Textual's line
filters on each) to keep one: most of an echo's drawing time (1.2 of 1.4 ms on a slow
machine). The lines drawn are the ones the compositor would draw (the widget's own styles
cache renders them, CSS and filters included) at the widget's place on screen; whatever
else was waiting to be drawn stays for Textual's tick.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from textual._compositor import CompositorUpdate
from textual.dom import NoScreen
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

WRITER_HANDOFF = 0.0001
"""Seconds the loop sleeps after drawing an echo, for the output thread to write it."""


MAX_STRAIGHT_LINES = 8
"""More lines than this go through the compositor (a scroll, a redraw): its walk matters
less there, and one update is fewer bytes than a cursor move per line."""


def _drawable(widget: Widget) -> tuple[Any, Any] | None:
    """The app and screen when `widget` may be drawn now: on the screen shown, with nothing
    of the screen's own pending (layout, scroll, full repaint, batch)."""
    if not widget.is_mounted:
        return None
    try:
        app = widget.app
        screen = widget.screen
    except (NoScreen, RuntimeError):  # no app or screen (closing): leave it to Textual
        return None
    if (
        app._batch_count
        or app.is_inline
        or not app._running
        or screen is not app.screen
        or screen._layout_required
        or screen._scroll_required
        or screen._repaint_required
        or screen._recompose_required
    ):
        return None
    return app, screen


def paint_now(widget: Widget) -> bool:
    """Repaint `widget`'s dirty regions (and any other dirty widget's) now, as the screen's
    update timer would. Returns whether it did; when not, the refresh stays Textual's."""
    if not widget._repaint_required:
        return False
    drawable = _drawable(widget)
    if drawable is None:
        return False
    app, screen = drawable
    # What the widget's idle handler would post (`Update`), done here: it is not posted
    # again, and the screen's tick finds nothing left to draw.
    widget._repaint_required = False
    screen._dirty_widgets.add(widget)
    # The caller may run outside the app's context (the gateway's reader task).
    with app._context():
        screen._on_timer_update()
    # The update is queued for Textual's output thread, which needs the GIL to write it:
    # this thread would keep it until its loop next waits (0.2–0.4 ms of idle handlers).
    # Sleeping hands it over at once, for a moment that the write then fills.
    time.sleep(WRITER_HANDOFF)
    return True


class _Lines(CompositorUpdate):
    """Whole lines of one widget, each at its place on the screen."""

    def __init__(self, x: int, lines: list[tuple[int, Strip]]) -> None:
        self._x = x
        self._lines = lines

    def render_segments(self, console: Console) -> str:
        parts: list[str] = []
        for y, strip in self._lines:
            parts.append(f"\x1b[{y + 1};{self._x + 1}H")  # CUP, as Textual's own moves
            parts.append(strip.render(console))
        return "".join(parts)


_covers: weakref.WeakKeyDictionary[Widget, tuple[object, Region, list[Region]]] = (
    weakref.WeakKeyDictionary()
)
"""Per widget, for the compositor's current map: its region and what other widgets show
over it (a bar, a toast, a tooltip). Worked out again when the map changes."""


def _place(widget: Widget, screen: Any) -> tuple[Region, list[Region]] | None:
    """Where `widget` is on screen and what covers parts of it; None if it is not wholly
    shown (scrolled, clipped) or draws a gutter its lines do not start at."""
    visible = screen._compositor.visible_widgets
    cached = _covers.get(widget)
    if cached is not None and cached[0] is visible:
        return cached[1], cached[2]
    placed = visible.get(widget)
    if placed is None:
        return None
    region, clip = placed
    if not clip.contains_region(region) or widget.content_offset != (0, 0):
        return None
    mine = set(widget.ancestors_with_self)
    covers = []
    for other, (other_region, other_clip) in visible.items():
        if other not in mine:
            shown = other_region.intersection(other_clip).intersection(region)
            if shown.area:
                covers.append(shown)
    _covers[widget] = (visible, region, covers)
    return region, covers


def paint_lines_now(widget: Widget, regions: Sequence[Region], *, echo: bool = True) -> bool:
    """Draw the lines of `regions` (the widget's own coordinates) straight to the terminal,
    now, when nothing but the widget's containers lies under them. Returns whether it did;
    when not, nothing was changed and the caller refreshes them as usual. An `echo` is
    handed to the output thread at once (see `WRITER_HANDOFF`)."""
    lines = sorted({y for region in regions for y in region.line_range})
    if not lines or len(lines) > MAX_STRAIGHT_LINES:
        return False
    drawable = _drawable(widget)
    if drawable is None:
        return False
    app, screen = drawable
    place = _place(widget, screen)
    if place is None:
        return False
    region, covers = place
    if lines[0] < 0 or lines[-1] >= region.height:
        return False
    spans = [Region(region.x, region.y + y, region.width, 1) for y in lines]
    if any(cover.overlaps(span) for cover in covers for span in spans):
        return False  # a widget drawn over these lines: the compositor does it
    cache = widget._styles_cache
    cache.set_dirty(*regions)
    drawn: list[tuple[int, Strip]] = []
    for first, count in _runs(lines):  # one render per run of adjacent lines
        strips = cache.render_widget(widget, Region(0, first, region.width, count))
        drawn.extend((region.y + first + n, strip) for n, strip in enumerate(strips))
    # Earlier refreshes of these lines are drawn too: Textual's tick keeps the rest.
    wanted = set(lines)
    pending = widget._repaint_regions
    for done in [r for r in pending if wanted.issuperset(r.line_range)]:
        pending.discard(done)
    with app._context():
        app._display(screen, _Lines(region.x, drawn))
        if screen._callbacks:  # what waits for "after the next refresh" may go on
            screen.call_next(screen._invoke_and_clear_callbacks)
    if echo:
        time.sleep(WRITER_HANDOFF)
    return True


def _runs(lines: list[int]) -> list[tuple[int, int]]:
    """Sorted line numbers as (first, count) runs of adjacent lines."""
    runs: list[tuple[int, int]] = []
    for y in lines:
        if runs and runs[-1][0] + runs[-1][1] == y:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((y, 1))
    return runs
