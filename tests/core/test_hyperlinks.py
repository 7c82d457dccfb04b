"""Which link targets may leave a cell, and rows that carry links."""

from __future__ import annotations

import operator

import pytest

from core.hyperlinks import MAX_URI, SCHEMES, attach_links, safe_uri
from core.terminal import LinkedRow, Row, row_links, with_links

RUNS: Row = (("see ", -1, -1, 0), ("docs", 4, -1, 8))


@pytest.mark.parametrize("uri", [
    "https://example.com/a?b=1#c", "HTTP://EXAMPLE.COM", "file:///home/me/a%20b.txt",
    "file://host/etc/hosts", "mailto:me@example.com", "ftp://x/y", "man:systemd.unit(5)",
    "https://例え.jp/パス",
])
def test_ordinary_uris_are_kept(uri: str) -> None:
    assert safe_uri(uri) == uri


@pytest.mark.parametrize("uri", [
    "", "no-scheme", ":empty-scheme", "javascript:alert(1)", "data:text/html,x",
    "vbscript:x", "vscode://file/x", "ms-msdt:/id", "https://a/\x1b]8;;\x1b\\",
    "https://a/\x07", "https://a/\x00", "https://a/\x7f", "https://a/\x9b31m", "https://a/\x9c",
    "https://a/\u202etxt", "https://a/\u2066x", "https://a/\u2028", "https://a b",
    "https://a/\t", "https://a/\n",
])
def test_hostile_or_unknown_uris_are_refused(uri: str) -> None:
    assert safe_uri(uri) is None


def test_the_length_is_capped() -> None:
    base = "https://x/"
    assert safe_uri(base + "a" * (MAX_URI - len(base))) is not None
    assert safe_uri(base + "a" * (MAX_URI - len(base) + 1)) is None
    assert safe_uri(base + "a" * 100_000) is None


def test_every_allowed_scheme_is_a_plain_lowercase_name() -> None:
    assert all(scheme.isalpha() and scheme.islower() for scheme in SCHEMES)


def test_a_linked_row_is_a_row_to_everything_that_reads_runs() -> None:
    row = LinkedRow(RUNS, ((1, "https://x"),))
    assert [text for text, _fg, _bg, _attrs in row] == ["see ", "docs"]
    assert row[1] == RUNS[1] and len(row) == 2 and tuple(row) == RUNS


def test_links_take_part_in_equality_and_hashing() -> None:
    one = LinkedRow(RUNS, ((1, "https://x"),))
    assert one == LinkedRow(RUNS, ((1, "https://x"),))
    assert hash(one) == hash(LinkedRow(RUNS, ((1, "https://x"),)))
    assert one != LinkedRow(RUNS, ((1, "https://y"),))
    # Both operand orders: the plain tuple's comparison must give way to the subclass's.
    for left, right in ((one, RUNS), (RUNS, one)):
        assert operator.ne(left, right) and not operator.eq(left, right)
    assert len({one, RUNS}) == 2


def test_with_links_makes_a_linked_row_only_when_there_are_links() -> None:
    assert type(with_links(list(RUNS), ())) is tuple
    assert row_links(with_links(RUNS, ((0, "https://x"),))) == ((0, "https://x"),)


def test_attach_links_drops_what_it_cannot_trust() -> None:
    row = attach_links(RUNS, [(1, "https://x"), (2, "https://y"), (-1, "https://z"),
                              (0, "javascript:x")])
    assert row_links(row) == ((1, "https://x"),)
    assert type(attach_links(RUNS, [(0, "data:x")])) is tuple
