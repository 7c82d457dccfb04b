"""Parsers of git's machine-readable output (porcelain v2 `-z`, `--raw -z` with patches,
NUL-separated log and ref formats). Pure functions on bytes, unit-tested on captured output.

Paths arrive NUL-terminated, never quoted, and are decoded with `surrogateescape` so a
non-UTF-8 name survives the round trip back to git.
"""

from __future__ import annotations

import re

from core.git.model import (
    Branch,
    Change,
    DiffLine,
    EntryKind,
    FileDiff,
    Hunk,
    LineKind,
    LogEntry,
    Person,
    StashEntry,
    StatusEntry,
    Worktree,
)


def fs(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


_CHANGES = {"A": Change.ADDED, "M": Change.MODIFIED, "D": Change.DELETED, "T": Change.TYPE_CHANGED,
            "R": Change.ADDED, "C": Change.ADDED}


def _change(letter: str) -> Change | None:
    return _CHANGES.get(letter)


class BranchHeader:
    def __init__(self) -> None:
        self.oid: str | None = None
        self.branch: str | None = None
        self.upstream: str | None = None
        self.ahead = 0
        self.behind = 0


def status_v2(out: bytes) -> tuple[BranchHeader, tuple[StatusEntry, ...]]:
    """`git status --porcelain=v2 -z --branch --no-renames`."""
    header = BranchHeader()
    entries = []
    records = out.split(b"\0")
    i = 0
    while i < len(records):
        record = records[i]
        i += 1
        if not record:
            continue
        kind = record[:1]
        if kind == b"#":
            words = fs(record[2:]).split(" ")
            key, values = words[0], words[1:]
            if key == "branch.oid" and values[0] != "(initial)":
                header.oid = values[0]
            elif key == "branch.head" and values[0] != "(detached)":
                header.branch = " ".join(values)
            elif key == "branch.upstream":
                header.upstream = " ".join(values)
            elif key == "branch.ab":
                header.ahead, header.behind = int(values[0][1:]), int(values[1][1:])
        elif kind == b"1":
            fields = record.split(b" ", 8)
            xy = fields[1].decode()
            entries.append(
                StatusEntry(fs(fields[8]), EntryKind.TRACKED, _change(xy[0]), _change(xy[1]))
            )
        elif kind == b"2":  # only without --no-renames; the original path follows
            fields = record.split(b" ", 9)
            xy = fields[1].decode()
            entries.append(
                StatusEntry(fs(fields[9]), EntryKind.TRACKED, _change(xy[0]), _change(xy[1]))
            )
            i += 1
        elif kind == b"u":
            fields = record.split(b" ", 10)
            entries.append(
                StatusEntry(fs(fields[10]), EntryKind.CONFLICTED, conflict=fields[1].decode())
            )
        elif kind == b"?":
            entries.append(StatusEntry(fs(record[2:]), EntryKind.UNTRACKED))
    entries.sort(key=lambda e: e.path)
    return header, tuple(entries)


_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_RAW_STATUS = {"A": Change.ADDED, "D": Change.DELETED, "M": Change.MODIFIED,
               "T": Change.TYPE_CHANGED, "U": Change.MODIFIED}


def raw_and_patch(out: bytes, truncated: bool = False) -> tuple[FileDiff, ...]:
    """`git diff --raw -p -z --no-renames`: the raw records (`:mode mode oid oid S\\0path\\0`)
    name the files exactly; the patches that follow, in the same order, give the hunks."""
    raws: list[tuple[str, Change]] = []
    pos = 0
    while out.startswith(b":", pos):
        meta_end = out.index(b"\0", pos)
        path_end = out.find(b"\0", meta_end + 1)
        if path_end < 0:
            path_end = len(out)
        meta = out[pos + 1 : meta_end].split(b" ")
        letter = meta[4][:1].decode()
        raws.append((fs(out[meta_end + 1 : path_end]), _RAW_STATUS.get(letter, Change.MODIFIED)))
        pos = path_end + 1
    patch = out[pos:]
    if patch.startswith(b"\0"):
        patch = patch[1:]
    per_file = _split_patches(patch)
    diffs = []
    for index, (path, change) in enumerate(raws):
        if index < len(per_file):
            binary, hunks, complete = _hunks(per_file[index])
            cut = truncated and (index == len(per_file) - 1) and not complete
        else:
            binary, hunks, cut = False, (), truncated
        diffs.append(FileDiff(path, change, binary=binary, hunks=hunks, truncated=cut))
    return tuple(diffs)


def _split_patches(patch: bytes) -> list[list[bytes]]:
    """The patch text cut at each `diff --git` header, counting hunk lines so that a
    content line can never be mistaken for a header."""
    files: list[list[bytes]] = []
    lines = patch.split(b"\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(b"diff --git ") or line.startswith(b"diff --cc "):
            files.append([line])
            i += 1
            continue
        match = _HUNK.match(line)
        if match and files:
            files[-1].append(line)
            old = int(match.group(2) or b"1")
            new = int(match.group(4) or b"1")
            i += 1
            while i < len(lines) and (old > 0 or new > 0 or lines[i].startswith(b"\\")):
                body = lines[i]
                files[-1].append(body)
                tag = body[:1]
                if tag == b" ":
                    old, new = old - 1, new - 1
                elif tag == b"-":
                    old -= 1
                elif tag == b"+":
                    new -= 1
                elif tag != b"\\":
                    break
                i += 1
            continue
        if files:
            files[-1].append(line)
        i += 1
    return files


def _hunks(lines: list[bytes]) -> tuple[bool, tuple[Hunk, ...], bool]:
    """(binary, hunks, complete) of one file's patch."""
    hunks: list[Hunk] = []
    binary = any(ln.startswith(b"Binary files ") or ln == b"GIT binary patch" for ln in lines)
    current: list[DiffLine] | None = None
    numbers: tuple[int, int, int, int, str] = (0, 0, 0, 0, "")
    complete = True

    def close() -> None:
        if current is not None:
            old_start, old_count, new_start, new_count, section = numbers
            hunks.append(Hunk(old_start, old_count, new_start, new_count, tuple(current), section))

    remaining = [0, 0]
    for line in lines:
        match = _HUNK.match(line)
        if match:
            close()
            old_count = int(match.group(2)) if match.group(2) is not None else 1
            new_count = int(match.group(4)) if match.group(4) is not None else 1
            numbers = (int(match.group(1)), old_count, int(match.group(3)), new_count,
                       text(match.group(5)))
            remaining = [old_count, new_count]
            current = []
            continue
        if current is None:
            continue
        tag = line[:1]
        if tag == b"\\" and current:
            last = current[-1]
            current[-1] = DiffLine(last.kind, last.text, True)
        elif tag in (b" ", b"+", b"-") and (remaining[0] > 0 or remaining[1] > 0):
            kind = LineKind(tag.decode())
            current.append(DiffLine(kind, fs(line[1:])))
            if kind is not LineKind.ADDED:
                remaining[0] -= 1
            if kind is not LineKind.REMOVED:
                remaining[1] -= 1
    if current is not None and (remaining[0] > 0 or remaining[1] > 0):
        complete = False
        old_start, _, new_start, _, section = numbers
        olds = sum(1 for ln in current if ln.kind is not LineKind.ADDED)
        news = sum(1 for ln in current if ln.kind is not LineKind.REMOVED)
        numbers = (old_start, olds, new_start, news, section)
    close()
    return binary, tuple(hunks), complete


LOG_FORMAT = "%H%x00%P%x00%an%x00%ae%x00%at%x00%ai%x00%D%x00%s"
_LOG_FIELDS = 8


def log_records(out: bytes) -> tuple[LogEntry, ...]:
    """`git log -z --format=LOG_FORMAT`: fields and records both NUL-separated."""
    fields = out.split(b"\0")
    entries = []
    for start in range(0, len(fields) - _LOG_FIELDS + 1, _LOG_FIELDS):
        oid, parents, name, email, when, iso, refs, subject = fields[start : start + _LOG_FIELDS]
        oid = oid.strip(b"\n")
        entries.append(
            LogEntry(
                oid=oid.decode(),
                parents=tuple(parents.decode().split()),
                author=Person(text(name), text(email), int(when or b"0"), _offset(iso)),
                subject=text(subject),
                refs=tuple(r.strip() for r in text(refs).split(",") if r.strip()),
            )
        )
    return tuple(entries)


def _offset(iso: bytes) -> int:
    zone = iso.decode(errors="replace").rsplit(" ", 1)[-1]
    if len(zone) != 5 or zone[0] not in "+-" or not zone[1:].isdigit():
        return 0
    minutes = int(zone[1:3]) * 60 + int(zone[3:5])
    return -minutes if zone[0] == "-" else minutes


REF_FORMAT = "%(refname)%00%(objectname)%00%(HEAD)%00%(upstream:short)"


def refs(out: bytes) -> tuple[Branch, ...]:
    branches = []
    for line in out.split(b"\n"):
        if not line:
            continue
        name, oid, head, upstream = fs(line).split("\0")
        if name.endswith("/HEAD") and name.startswith("refs/remotes/"):
            continue
        remote = name.startswith("refs/remotes/")
        short = name.removeprefix("refs/remotes/" if remote else "refs/heads/")
        branches.append(Branch(short, oid, head == "*", remote, upstream or None))
    return tuple(sorted(branches, key=lambda b: (b.remote, b.name)))


def stash(out: bytes) -> tuple[StashEntry, ...]:
    fields = out.split(b"\0")
    return tuple(
        StashEntry(index // 2, fields[index].decode().strip("\n"), text(fields[index + 1]))
        for index in range(0, len(fields) - 1, 2)
    )


def worktrees(out: bytes) -> tuple[Worktree, ...]:
    """`git worktree list --porcelain -z`."""
    found = []
    current: dict[str, str] = {}
    for field in [*out.split(b"\x00"), b""]:
        if not field:
            if current:
                branch = current.get("branch")
                found.append(
                    Worktree(
                        path=current["worktree"],
                        head=current.get("HEAD"),
                        branch=branch.removeprefix("refs/heads/") if branch else None,
                        bare="bare" in current,
                        locked="locked" in current,
                        prunable="prunable" in current,
                    )
                )
            current = {}
            continue
        key, _, value = fs(field).partition(" ")
        current[key] = value
    return tuple(found)
