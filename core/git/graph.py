"""Commit graph lanes, computed page by page (GIT-3): a pure function of the log entries.

The graph page shows history as `git log --graph` does: each commit on a lane (a column),
lines carrying each branch down to its parent. History is read one page at a time, so the
layout is incremental: `layout(entries, lanes)` places one page given the lanes left open by
the page before and returns the lanes it leaves open, so paging on never recomputes (or
loads) what is above.

Lanes are a tuple of the commit id each column waits for (None: a free column). Entries
must come children first (git's `--date-order` or `--topo-order`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core.git.model import LogEntry

Lanes = tuple[str | None, ...]


@dataclass(frozen=True, slots=True)
class GraphRow:
    """Where one commit sits and which lines pass its row.

    Attributes:
        oid: The commit.
        column: Its lane.
        before: The lanes open above the commit (what each column waits for).
        after: The lanes open below it (its parents now waited for).
        merged: Columns whose lines end in the joint below, turning into the commit's lane:
            lanes that also waited for this commit (a branch forked from it), or a lane
            waiting for the commit's first parent (one lane is enough for it).
        parents: For each parent, the column it continues on below.
    """

    oid: str
    column: int
    before: Lanes
    after: Lanes
    merged: tuple[int, ...]
    parents: tuple[int, ...]


def _free(lanes: list[str | None], avoid: int = -1) -> int:
    for index, lane in enumerate(lanes):
        if lane is None and index != avoid:
            return index
    lanes.append(None)
    return len(lanes) - 1


def layout(entries: Sequence[LogEntry], lanes: Lanes = ()) -> tuple[tuple[GraphRow, ...], Lanes]:
    """Place `entries` below `lanes`; returns the rows and the lanes left open.

    >>> from core.git.model import LogEntry, Person
    >>> p = Person("a", "a@b", 0)
    >>> log = [LogEntry("m", ("a", "b"), p, "merge"), LogEntry("b", ("a",), p, "b"),
    ...        LogEntry("a", (), p, "root")]
    >>> rows, open_ = layout(log)
    >>> [(r.oid, r.column, r.parents) for r in rows], open_
    ([('m', 0, (0, 1)), ('b', 1, (0,)), ('a', 0, ())], ())
    """
    current = list(lanes)
    rows = []
    for entry in entries:
        before = tuple(current)
        waiting = [i for i, lane in enumerate(current) if lane == entry.oid]
        column = waiting[0] if waiting else _free(current)
        merged = tuple(waiting[1:])
        for index in merged:
            current[index] = None
        current[column] = entry.parents[0] if entry.parents else None
        placed = [column] if entry.parents else []
        for parent in entry.parents[1:]:
            if parent in current:
                placed.append(current.index(parent))
            else:
                slot = _free(current, column)
                current[slot] = parent
                placed.append(slot)
        # A first parent another lane already waits for: keep the leftmost lane for it
        # (the mainline stays straight); the other turns into it in the joint below.
        if entry.parents and current.count(entry.parents[0]) > 1:
            first = current.index(entry.parents[0])
            other = column if first != column else current.index(entry.parents[0], column + 1)
            if first != column:
                current[column] = None
                placed[0] = first
            else:
                current[other] = None
                merged = (*merged, other)
        while current and current[-1] is None:
            current.pop()
        rows.append(
            GraphRow(entry.oid, column, before, tuple(current), merged, tuple(placed))
        )
    return tuple(rows), tuple(current)


def glyphs(row: GraphRow) -> tuple[str, str]:
    """Two text lines drawing `row`: the commit's (`●` on its lane, `│` for lanes passing
    by) and the joint below it (how lines fork to parents or merge), blank when straight.

    Each column is two characters wide (the glyph, then a space or a horizontal line).

    >>> from core.git.model import LogEntry, Person
    >>> p = Person("a", "a@b", 0)
    >>> rows, _ = layout([LogEntry("m", ("a", "b"), p, "m"), LogEntry("b", ("a",), p, "b"),
    ...                   LogEntry("a", (), p, "a")])
    >>> [glyphs(r) for r in rows]
    [('●', '├─╮'), ('│ ●', '├─╯'), ('●', '')]
    """
    width = max(len(row.before), len(row.after), row.column + 1)
    top = []
    for index in range(width):
        if index == row.column:
            top.append("●")
        elif index < len(row.before) and row.before[index] is not None:
            top.append("│")
        else:
            top.append(" ")
    commit_line = " ".join(top).rstrip()

    # The joint: every lane open below, plus lines from the commit to parents on other
    # columns and from ended lanes into the commit's.
    targets = {c for c in row.parents if c != row.column}
    ends = set(row.merged)
    if not targets and not ends and _straight(row):
        return commit_line, ""
    cells = [" "] * (2 * width - 1)
    for index in range(width):
        if index < len(row.after) and row.after[index] is not None:
            cells[2 * index] = "│"
    lo = min([row.column, *targets, *ends])
    hi = max([row.column, *targets, *ends])
    for pos in range(2 * lo, 2 * hi + 1):
        if cells[pos] == " ":
            cells[pos] = "─"
    for index in targets | ends:
        right = index > row.column
        fork = index in targets and not (index < len(row.before) and row.before[index])
        if index in ends and index not in targets:
            cells[2 * index] = "╯" if right else "╰"
        elif fork:
            cells[2 * index] = "╮" if right else "╭"
        else:
            cells[2 * index] = "┤" if right else "├"
    left = any(c < row.column for c in targets | ends)
    right = any(c > row.column for c in targets | ends)
    if cells[2 * row.column] == "│":  # the commit's lane goes on below
        cells[2 * row.column] = "┼" if left and right else "├" if right else "┤"
    else:  # it ends here, turning into another lane
        cells[2 * row.column] = "┴" if left and right else "╰" if right else "╯"
    return commit_line, "".join(cells).rstrip()


def _straight(row: GraphRow) -> bool:
    """No line changes column between the commit's row and the next."""
    before = [lane is not None for lane in row.before]
    after = [lane is not None for lane in row.after]
    width = max(len(before), len(after))
    before += [False] * (width - len(before))
    after += [False] * (width - len(after))
    if row.column < len(before):
        before[row.column] = True
    pairs = enumerate(zip(before, after, strict=True))
    return all(b == a or i == row.column for i, (b, a) in pairs)
