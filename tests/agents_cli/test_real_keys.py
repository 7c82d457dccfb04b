"""Keys a user presses in a real agent CLI's cell, through idea's client path (a key named
by the client, encoded by the daemon with the program's modes).

Claude Code and Codex ask the terminal whether it speaks the kitty keyboard protocol
(`CSI ? u`) and turn it on when it does — libghostty-vt answers. Seen here: Claude Code
2.1.332 pushes flags 5 (disambiguate, alternate keys), Codex 0.171.0 flags 7 (and event
types). So Shift+Enter reaches them as itself (`CSI 13;2u`, no longer idea's ESC CR stand-in
for legacy terminals): it must still be a new line in the prompt, not a submit.
"""

from __future__ import annotations

import pytest

from adapters.ipc.messages import KeyInput
from idea_tui.control import ControlClient
from tests.agents_cli.in_idea import RealTeam
from tests.agents_cli.model_server import ModelServer, Script, Text
from tests.helpers.emulators import require_backend
from tests.helpers.idea import IdeaEnv
from tests.helpers.raw_client import RawClient

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]


@pytest.mark.parametrize("cli", ["claude", "codex"])
def test_shift_enter_is_a_new_line_in_the_prompt_of_a_real_cli(
        idea: IdeaEnv, team: RealTeam, server: ModelServer, script: Script, cli: str) -> None:
    require_backend("ghostty")
    team.project()
    team.new("Rev", cli)
    script.add("SECOND-PART", [Text(f"TWO-LINES-ANSWERED-{cli}")])
    target = team.launch("Rev", cli)["target"]
    with ControlClient.connect(idea.locations) as control:
        [cell] = [c["id"] for c in control.call("list_cells") if c["target"] == target]
    with RawClient(str(idea.locations.socket), kind="control") as client:
        idea.run("send-keys", "-t", target, "-l", "--", "FIRST-PART")
        client.send(KeyInput(cell=cell, key="shift+enter"))
        team.wait_screen(target, "FIRST-PART")
        idea.run("send-keys", "-t", target, "-l", "--", "SECOND-PART")
        team.wait_screen(target, "SECOND-PART")
        assert not server.turns(), "Shift+Enter submitted the prompt"
        client.send(KeyInput(cell=cell, key="enter"))
    team.wait_marker(target, f"TWO-LINES-ANSWERED-{cli}")
    [turn] = [t for t in server.turns() if "SECOND-PART" in t.latest]
    assert "FIRST-PART\nSECOND-PART" in turn.latest
