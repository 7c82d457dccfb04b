"""Where idea keeps its files (adapters.locations)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from adapters.locations import MAX_SOCKET_PATH, RuntimeDirError, ensure_private_dir, locate


def test_idea_home_puts_everything_under_one_folder(tmp_path: Path) -> None:
    where = locate({"IDEA_HOME": str(tmp_path), "HOME": "/home/x"})
    for folder in (where.data, where.state, where.config, where.runtime):
        assert tmp_path in folder.parents
    assert where.socket.parent == tmp_path / "run"


def test_xdg_variables_are_honoured() -> None:
    where = locate({"HOME": "/home/u", "XDG_DATA_HOME": "/d", "XDG_STATE_HOME": "/s",
                    "XDG_CONFIG_HOME": "/c", "XDG_RUNTIME_DIR": "/r"})
    assert (where.data, where.state, where.config, where.runtime) == (
        Path("/d/idea"), Path("/s/idea"), Path("/c/idea"), Path("/r/idea"))


def test_defaults_without_xdg() -> None:
    where = locate({"HOME": "/home/u"})
    assert where.data == Path("/home/u/.local/share/idea")
    assert where.runtime == Path(f"/tmp/idea-{os.getuid()}")


def test_long_socket_path_gets_a_short_stable_one(tmp_path: Path) -> None:
    deep = tmp_path / ("x" * 120)
    where = locate({"IDEA_HOME": str(deep)})
    assert len(os.fsencode(where.socket)) <= MAX_SOCKET_PATH
    assert where.socket == locate({"IDEA_HOME": str(deep)}).socket
    assert where.socket != locate({"IDEA_HOME": str(deep) + "y"}).socket


def test_private_dir_is_created_0700_and_repaired(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    ensure_private_dir(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    folder.chmod(0o755)
    ensure_private_dir(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_file_in_place_of_the_runtime_dir_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "run"
    target.write_text("")
    with pytest.raises((RuntimeDirError, FileExistsError)):
        ensure_private_dir(target)
