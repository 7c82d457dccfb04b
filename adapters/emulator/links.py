"""Hyperlinks (OSC 8) on emulated rows: both backends end with a `core.terminal.LinkedRow`.

- pyte's screen keeps the current link as an id in the high bits of its style's attributes
  (`LINK_SHIFT`), so a linked cell has a style id of its own: drawing, scrolling, scrollback
  and reflow carry the link with no work of their own, and a linked stretch is always a run
  of its own. `LinkTable` maps those ids to URIs and `LinkTable.resolve` turns the bits back
  into `links` when a row is rendered.
- libghostty-vt keeps links in its pages and marks linked cells with a bit; its backend asks
  the URI of each marked cell and `cut_at_links` cuts the row's runs where the link changes.

Both refuse a URI that `core.hyperlinks.safe_uri` refuses: the text stays, unlinked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from wcwidth import wcwidth

from core.terminal import LinkedRow, Row, Run, with_links

LINK_SHIFT = 16
"""Attribute bits below this are SGR attributes (`core.terminal.Attr`), those above it the
link id (pyte backend only; never in a rendered row)."""
ATTR_MASK = (1 << LINK_SHIFT) - 1
MAX_LINKS = 1024
"""Distinct links alive at once on one pyte screen (on screen and in scrollback), bounding
memory to about `MAX_LINKS * MAX_URI` characters; past it, new links are dropped (text kept)
until a collection frees ids no cell uses any more."""


OSC_URI_LIMIT = 2046
"""The longest URI (UTF-8 bytes) libghostty-vt keeps: with a longer one it drops the whole
OSC 8, so the link before it stays open. pyte's backend does the same, so both show the
same rows (a test pins the number against libghostty-vt). Below `core.hyperlinks.MAX_URI`."""


def too_long(uri: str) -> bool:
    """A URI libghostty-vt would not take (see `OSC_URI_LIMIT`)."""
    if len(uri) > OSC_URI_LIMIT:
        return True
    return not uri.isascii() and len(uri.encode("utf-8", "replace")) > OSC_URI_LIMIT


class LinkTable:
    """Two-way map between link URIs and the small ids pyte's cells carry (id 0: no link)."""

    def __init__(self) -> None:
        self.uris: list[str | None] = [None]
        self.ids: dict[str, int] = {}
        self._free: list[int] = []

    def __len__(self) -> int:
        """Links alive (ids given and not freed)."""
        return len(self.ids)

    def full(self) -> bool:
        return not self._free and len(self.uris) >= MAX_LINKS

    def id_of(self, uri: str) -> int:
        """The id of `uri`, given one if new; 0 when the table is full."""
        link = self.ids.get(uri)
        if link is not None:
            return link
        if self._free:
            link = self._free.pop()
        elif len(self.uris) < MAX_LINKS:
            link = len(self.uris)
            self.uris.append(None)
        else:
            return 0
        self.uris[link] = uri
        self.ids[uri] = link
        return link

    def collect(self, live: set[int]) -> None:
        """Free every id not in `live`."""
        for link in range(1, len(self.uris)):
            uri = self.uris[link]
            if uri is not None and link not in live:
                del self.ids[uri]
                self.uris[link] = None
                self._free.append(link)

    def resolve(self, row: Row) -> Row:
        """The row with link ids moved out of its runs' attributes into `links`."""
        if all(run[3] <= ATTR_MASK for run in row):
            return row
        runs: list[Run] = []
        links: list[tuple[int, str]] = []
        uris = self.uris
        for index, (text, fg, bg, attrs) in enumerate(row):
            link = attrs >> LINK_SHIFT
            if link:
                uri = uris[link] if link < len(uris) else None
                if uri is not None:
                    links.append((index, uri))
                attrs &= ATTR_MASK
            runs.append((text, fg, bg, attrs))
        return with_links(runs, tuple(links))


def cut_at_links(row: Row, linked: Sequence[int], uri_at: Callable[[int], str | None]) -> Row:
    """`row` cut into runs where the link changes, with its `links`.

    Args:
        row: The row's runs, whose cells are counted with wcwidth per code point (a wide
            character takes two, a zero-width one stays with the character before it).
        linked: The columns of the cells that carry a link (right halves of wide
            characters left out: a character's link is its first cell's).
        uri_at: The URI of the link at a column, or None if refused.
    """
    uri_of: dict[int, str] = {}
    for x in linked:
        uri = uri_at(x)
        if uri is not None:
            uri_of[x] = uri
    if not uri_of:
        return tuple(row)
    runs: list[Run] = []
    links: list[tuple[int, str]] = []
    x = 0
    for text, fg, bg, attrs in row:
        start = 0
        current = uri_of.get(x)
        for index, char in enumerate(text):
            width = wcwidth(char)
            if width <= 0:
                if width == 0 and index:
                    continue  # a mark belongs to the character before it
                width = 1  # a lone mark or a control character: a cell of its own
            uri = uri_of.get(x)
            if uri != current:
                if index > start:
                    _add(runs, links, (text[start:index], fg, bg, attrs), current)
                start, current = index, uri
            x += width
        if start < len(text):
            _add(runs, links, (text[start:], fg, bg, attrs), current)
    return LinkedRow(runs, tuple(links)) if links else tuple(runs)


def _add(runs: list[Run], links: list[tuple[int, str]], run: Run, uri: str | None) -> None:
    if uri is not None:
        links.append((len(runs), uri))
    runs.append(run)

