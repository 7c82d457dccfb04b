"""Which hyperlink targets (OSC 8) a program in a cell may hand to the user's terminal.

A program chooses the URI of every link it prints; the client passes the URI on to the
user's own terminal inside an `OSC 8` sequence (Textual writes `ESC ] 8 ; id=… ; URI ESC \\`),
and the user's terminal opens it on a click. So a URI from a cell is someone else's text,
trusted even less than a title: `safe_uri` keeps it only if it is short, contains nothing that
could end or change the sequence it travels in, and names a scheme whose opening is harmless.
Anything else is refused whole (the linked text stays, without its link): a URI cut or
cleaned would point somewhere its program did not mean.

Called by both emulator backends (where links enter idea) and again by the client (where
they leave it), so neither side relies on the other.
"""

from __future__ import annotations

from collections.abc import Iterable

from core.terminal import Links, Row, with_links

MAX_URI = 2048
"""Characters a link target may have; longer ones are refused (browsers and terminals
commonly cap URLs around 2 KB; a hostile program could otherwise send megabytes)."""

SCHEMES = frozenset({"http", "https", "ftp", "ftps", "sftp", "ssh", "file", "mailto", "man"})
"""Schemes a link may use: web and file-transfer addresses, local files (`ls --hyperlink`),
mail and manual pages (systemd). Not `javascript:`, `data:` or an application's own scheme,
which would let a program run something by way of the user's click."""


def safe_uri(uri: str) -> str | None:
    """`uri` if a cell's link may carry it to the user's terminal, else None.

    Refused: empty or longer than `MAX_URI`; any character that is not printable (C0 and C1
    controls, ESC, DEL, the bidirectional controls, line separators) or is a space (a URI
    has none; a space also hides what follows); a scheme not in `SCHEMES`.

    >>> safe_uri("https://example.com/a?b=1")
    'https://example.com/a?b=1'
    >>> safe_uri("javascript:alert(1)") is None
    True
    >>> safe_uri("https://x/\\x1b]8;;evil") is None
    True
    """
    if not uri or len(uri) > MAX_URI or not uri.isprintable() or " " in uri:
        return None
    scheme, colon, _ = uri.partition(":")
    if not colon or scheme.lower() not in SCHEMES:
        return None
    return uri


def attach_links(row: Row, links: Iterable[tuple[int, str]]) -> Row:
    """`row` with the links that came beside it from elsewhere (the daemon), each kept only
    if it names one of the row's runs and `safe_uri` accepts its URI.

    >>> attach_links((("see ", -1, -1, 0), ("docs", -1, -1, 0)), [(1, "https://x"), (7, "https://y")])
    LinkedRow((('see ', -1, -1, 0), ('docs', -1, -1, 0)), links=((1, 'https://x'),))
    """
    kept: Links = tuple(
        (index, uri) for index, uri in links
        if 0 <= index < len(row) and safe_uri(uri) is not None
    )
    return with_links(row, kept)
