"""config.toml: typed settings, clear errors, defaults when unusable."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.config import Config, ConfigError, load_config, parse_config


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    assert load_config(tmp_path / "config.toml") == (Config(), None)


def test_settings_are_read() -> None:
    config = parse_config('prefix = "ctrl+a"\nscrollback_lines = 500\nrefresh_env = ["X"]\n')
    assert config == Config(prefix="ctrl+a", scrollback_lines=500, refresh_env=["X"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("prefix = ", "not valid TOML"),
        ("prefx = 'ctrl+a'", "prefx"),
        ("scrollback_lines = 'many'", "scrollback_lines"),
        ("scrollback_lines = -1", "scrollback_lines must be from 0"),
        ("prefix = '  '", "prefix must name a key"),
        ("worktree_root = 'trees'", "worktree_root must be an absolute folder"),
        ("agent_nice = 20", "agent_nice must be from 0 to 19"),
        ("agent_nice = -1", "agent_nice must be from 0 to 19"),
    ],
)
def test_bad_settings_are_explained(text: str, expected: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "/home/u/.config/idea/config.toml")
    assert expected in info.value.message
    assert "/home/u/.config/idea/config.toml" in info.value.message


def test_bad_file_falls_back_to_defaults_and_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("prefix = 3\n")
    config, problem = load_config(path)
    assert config == Config()
    assert problem is not None and str(path) in problem and "defaults" in problem
    assert path.read_text() == "prefix = 3\n"


def test_worktree_root_is_read() -> None:
    assert parse_config("worktree_root = '~/trees'\n").worktree_root == "~/trees"


def test_agents_yield_the_cpu_by_default_and_the_setting_is_read() -> None:
    assert Config().agent_nice == 5
    assert parse_config("agent_nice = 0\n").agent_nice == 0
