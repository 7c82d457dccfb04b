"""The pure git helpers: graph lanes, hunks and their application, messages, paths."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.git.errors import HunkOutOfDate
from core.git.graph import glyphs, layout
from core.git.model import LogEntry, Person, display_path
from core.git.patch import apply_hunk, make_hunks

WHO = Person("a", "a@example.com", 0)


@st.composite
def histories(draw: st.DrawFn) -> list[LogEntry]:
    """A random DAG, children first: commit i's parents are among commits > i."""
    count = draw(st.integers(1, 30))
    entries = []
    for index in range(count):
        later = list(range(index + 1, count))
        parents = draw(st.lists(st.sampled_from(later), max_size=3, unique=True)) if later else []
        entries.append(LogEntry(f"c{index}", tuple(f"c{p}" for p in parents), WHO, f"{index}"))
    return entries


@given(histories(), st.integers(0, 30))
def test_lanes_carry_every_parent_and_page_like_the_whole(
    entries: list[LogEntry], cut: int
) -> None:
    rows, left = layout(entries)
    for entry, row in zip(entries, rows, strict=True):
        assert row.column < max(len(row.before), len(row.after), row.column + 1)
        for parent, column in zip(entry.parents, row.parents, strict=True):
            assert row.after[column] == parent  # the line to each parent is open below
        if row.oid in row.before:
            assert row.before[row.column] == row.oid  # a commit sits on a lane waiting for it
        commit_line, _ = glyphs(row)
        assert commit_line[2 * row.column] == "●"
    assert left == ()  # every lane ends at a commit that was shown
    top, lanes = layout(entries[:cut])
    rest, _ = layout(entries[cut:], lanes)
    assert top + rest == rows


def test_a_fork_and_its_merge_are_drawn() -> None:
    log = [
        LogEntry("m", ("b", "s"), WHO, "merge"),
        LogEntry("s", ("a",), WHO, "side"),
        LogEntry("b", ("a",), WHO, "main"),
        LogEntry("a", (), WHO, "root"),
    ]
    rows, _ = layout(log)
    assert [glyphs(r) for r in rows] == [
        ("●", "├─╮"),
        ("│ ●", ""),
        ("● │", "├─╯"),
        ("●", ""),
    ]


lines = st.lists(st.sampled_from(["a", "b", "c", "", "x y"]), max_size=12)


@given(lines, lines, st.booleans())
def test_hunks_applied_one_by_one_rebuild_the_new_text(
    old: list[str], new: list[str], end: bool
) -> None:
    before = "\n".join(old).encode() + (b"\n" if end and old else b"")
    after = "\n".join(new).encode()
    hunks = make_hunks(before, after)
    content = before
    for hunk in reversed(hunks):  # bottom up: earlier line numbers stay valid
        content = apply_hunk(content, hunk, "f")
    assert content == after
    for hunk in hunks:
        content = apply_hunk(content, hunk, "f", reverse=True) if len(hunks) == 1 else content
    if len(hunks) == 1:
        assert content == before


def test_a_hunk_that_no_longer_matches_is_refused() -> None:
    (hunk,) = make_hunks(b"a\nb\nc\n", b"a\nB\nc\n")
    try:
        apply_hunk(b"a\nchanged\nc\n", hunk, "f")
    except HunkOutOfDate as error:
        assert "f" in error.message
    else:
        raise AssertionError("applied a stale hunk")


def test_undecodable_bytes_round_trip_and_print_escaped() -> None:
    raw = "caf\udce9\n".encode("utf-8", "surrogateescape")
    (hunk,) = make_hunks(b"", raw)
    assert apply_hunk(b"", hunk, "f") == raw
    assert display_path("caf\udce9\nx") == "caf\\xe9\\nx"


def test_a_worktree_path_from_a_committed_file_is_confined() -> None:
    from core.git.worktrees import refusal

    root, mine = "/home/u/web", "/srv/trees"
    for fine in ("/home/u/web-worktrees/qa", "/home/u/web-worktrees/x/../qa",
                 "/srv/trees/qa", "/srv/trees/deep/qa"):
        assert refusal(fine, root, mine) is None, fine
    for bad in ("/home/u/.ssh", "/home/u/web/../.ssh", "/home/u/web-worktrees/../.ssh",
                "/home/u/web-worktrees", "/home/u/web-worktrees/a/b", "/home/u/web/sub",
                "/home/u/web", "/srv/trees", "/srv/trees-evil/qa", "relative/qa", "/"):
        assert refusal(bad, root, mine) is not None, bad
    assert refusal("/srv/trees/qa", root, None) is not None  # no root configured
