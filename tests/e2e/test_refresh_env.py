"""`refresh_env` in config.toml works end to end (DECISIONS D22, issue 7).

The daemon starts without the variable; the user's terminal has it and the config names it;
after attaching, a new cell's shell sees the terminal's value. Before issue 7 the client sent
only tmux's built-in list, so a configured name never reached a cell.
"""

from __future__ import annotations

import pytest

from tests.helpers.idea import IdeaEnv
from tests.helpers.tui import TuiFactory

pytestmark = pytest.mark.e2e

NAME = "IDEA_TEST_REFRESHED"


def test_a_configured_variable_of_the_attaching_terminal_reaches_a_new_cell(
        idea: IdeaEnv, tui: TuiFactory) -> None:
    config = idea.locations.config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'refresh_env = ["{NAME}"]\n')
    idea.new_project("proj")  # starts the daemon without the variable
    idea.env[NAME] = "from-the-terminal"
    client = tui()
    client.wait_cells(1)
    client.prefix("%")
    client.wait_cells(2)
    text = idea.shell("1", f'echo "got=${{{NAME}:-unset}}="', r"got=\S+=")
    assert "got=from-the-terminal=" in text
