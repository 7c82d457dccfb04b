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
"""

from __future__ import annotations

import time

from textual.dom import NoScreen
from textual.widget import Widget

WRITER_HANDOFF = 0.0001
"""Seconds the loop sleeps after drawing an echo, for the output thread to write it."""


def paint_now(widget: Widget) -> bool:
    """Repaint `widget`'s dirty regions (and any other dirty widget's) now, as the screen's
    update timer would. Returns whether it did; when not, the refresh stays Textual's."""
    if not widget._repaint_required or not widget.is_mounted:
        return False
    try:
        app = widget.app
        screen = widget.screen
    except (NoScreen, RuntimeError):  # no app or screen (closing): leave it to Textual
        return False
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
        return False
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
