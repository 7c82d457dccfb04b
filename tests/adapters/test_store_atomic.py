"""Atomic JSON writes, strict reads, and never overwriting a file that could not be read."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from adapters.store.atomic import read_json, replace_json, write_json_atomic, write_text_atomic
from core.errors import CorruptFile, FileAccessError, NewerVersion


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_write_json_uses_two_space_indent_and_a_trailing_newline(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    write_json_atomic(path, {"version": 1, "name": "Café", "list": [1.5]})
    assert path.read_text(encoding="utf-8") == (
        '{\n  "version": 1,\n  "name": "Café",\n  "list": [\n    1.5\n  ]\n}\n'
    )
    assert leftovers(tmp_path) == []


def test_a_new_file_gets_the_default_mode_and_an_existing_one_keeps_its_own(
    tmp_path: Path,
) -> None:
    path = tmp_path / "data.json"
    write_json_atomic(path, {})
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    path.chmod(0o600)
    write_json_atomic(path, {"a": 1})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"a": 1}


def test_a_failed_rename_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "data.json"
    write_json_atomic(path, {"old": True})

    def refuse(src: Any, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(FileAccessError, match="No space left"):
        write_json_atomic(path, {"new": True})
    assert json.loads(path.read_text()) == {"old": True}
    assert leftovers(tmp_path) == []


def test_writing_into_a_missing_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileAccessError) as caught:
        write_json_atomic(tmp_path / "missing" / "data.json", {})
    assert "missing/data.json" in caught.value.message


def test_no_overwrite_keeps_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "notes"
    assert write_text_atomic(path, "first\n", overwrite=False)
    assert not write_text_atomic(path, "second\n", overwrite=False)
    assert path.read_text() == "first\n"
    assert leftovers(tmp_path) == []


def test_read_json_accepts_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}')
    assert read_json(path) == {"a": 1}


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        (b"", "empty"),
        (b'{"a": 1,}', "line 1, column 9"),
        (b'{"a": NaN}', "NaN is not a JSON number"),
        (b'{"a": "\xff"}', "not UTF-8"),
        (b"[" * 100_000, "nested too deeply"),
    ],
)
def test_read_json_reports_corruption_with_the_path(
    tmp_path: Path, content: bytes, detail: str
) -> None:
    path = tmp_path / "data.json"
    path.write_bytes(content)
    with pytest.raises(CorruptFile) as caught:
        read_json(path)
    assert detail in caught.value.message
    assert str(path) in caught.value.message
    assert caught.value.path == str(path)


def test_read_json_lets_a_missing_file_be_told_apart(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_json(tmp_path / "absent.json")
    with pytest.raises(FileAccessError):
        read_json(tmp_path)  # a directory


def refuse_newer(data: Any) -> None:
    if data.get("version", 1) > 1:
        raise NewerVersion("data.json", data["version"], 1)


@pytest.mark.parametrize("content", [b"{not json", b'{"version": 2}'])
def test_replace_json_never_overwrites_what_it_cannot_read(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "data.json"
    path.write_bytes(content)
    with pytest.raises((CorruptFile, NewerVersion)):
        replace_json(path, {"version": 1}, refuse_newer)
    assert path.read_bytes() == content


def test_replace_json_writes_over_a_readable_file_or_none(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    replace_json(path, {"version": 1, "n": 1}, refuse_newer)
    replace_json(path, {"version": 1, "n": 2}, refuse_newer)
    assert json.loads(path.read_text()) == {"version": 1, "n": 2}


def test_messages_name_the_file_and_say_what_to_do() -> None:
    corrupt = CorruptFile("/p/.ideai/layouts.json", "layouts[0]: missing")
    assert corrupt.message.startswith("/p/.ideai/layouts.json cannot be read: layouts[0]: missing")
    assert "untouched" in corrupt.message and "fix or remove" in corrupt.message
    newer = NewerVersion(Path("/p/x.json"), 3, 1)
    assert "version 3" in newer.message and "upgrade idea" in newer.message
    assert newer.path == os.fspath("/p/x.json")


def test_temp_files_a_killed_writer_left_go_at_the_next_write(tmp_path: Path) -> None:
    # What kill -9 between the temp file and the rename leaves behind (issue 7): in .ideai/
    # it would show in `git status` forever.
    target = tmp_path / "layouts.json"
    left = [tmp_path / ".layouts.json.ab_cd123.tmp", tmp_path / ".layouts.json.zz9zz9zz.tmp"]
    recent = tmp_path / ".layouts.json.recent01.tmp"
    others = [tmp_path / ".project.json.ab_cd123.tmp", tmp_path / "layouts.json.bak.tmp",
              tmp_path / ".layouts.json.short.tmp"]
    for path in [*left, recent, *others]:
        path.write_text("{")
    old = os.stat(left[0]).st_mtime - 3600
    for path in [*left, *others]:
        os.utime(path, (old, old))
    write_json_atomic(target, {"version": 1})
    assert json.loads(target.read_text()) == {"version": 1}
    assert not any(path.exists() for path in left)
    # A write that may be in progress (recent), and files of other names, are left alone.
    assert recent.exists() and all(path.exists() for path in others)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [target.name, recent.name, *(p.name for p in others)])
