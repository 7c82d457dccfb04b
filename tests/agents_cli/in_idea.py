"""Real Claude Code and Codex agents launched by `idea` (its daemon, its built-in profiles,
its cells) against the scripted model server.

`RealTeam` prepares the `idea` test environment before its daemon starts: the CLIs' folder
on PATH, the variables that point both CLIs at the model server, and the scratch HOME (the
`IdeaEnv`'s user home, which the daemon passes to the agents it spawns) with the settings
of `homes.py`, the project folders trusted. Agents are created and launched with the
`idea agent` CLI, exactly as a user would, on the built-in `claude-code` and `codex`
profiles.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from tests.agents_cli.clis import require_cli
from tests.agents_cli.homes import CODEX_KEY_VAR, prepare_claude, prepare_codex
from tests.agents_cli.model_server import ModelServer
from tests.e2e_agents.helpers import Agents
from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

CLIS = ("claude", "codex")
WAIT = 150.0
"""Seconds a wait on a real CLI allows (the machine is shared; a passing test waits less)."""
PROFILES = {"claude": "claude-code", "codex": "codex"}
PROMPTS = {"claude": "(?m)^❯(?: |$)", "codex": "(?m)^›(?: |$)"}


class RealTeam:
    def __init__(self, idea: IdeaEnv, server: ModelServer, mcp_servers: tuple[str, ...] = (),
                 *, subscription: bool = False) -> None:
        """`subscription`: Claude Code logs in as a subscriber (homes.prepare_claude), as it
        must to print and record its usage-limit message with the reset time."""
        folders = {str(require_cli(name).parent) for name in CLIS}
        self.idea = idea
        self.server = server
        self.mcp_servers = mcp_servers
        self.trusted: list[Path] = [idea.root]
        idea.env["PATH"] = os.pathsep.join([*sorted(folders), idea.env["PATH"]])
        # No tool allowed in the user's settings: idea's launch flags must be enough.
        for variable in ("ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"):
            idea.env.pop(variable, None)
        idea.env.update(prepare_claude(idea.user_home, server.url, self.trusted,
                                       [f"mcp__{name}" for name in mcp_servers],
                                       subscription=subscription))
        idea.env.update(prepare_codex(idea.user_home / ".codex", server.url, self.trusted,
                                      mcp_servers))
        idea.env[CODEX_KEY_VAR] = "sk-idea-test"
        self.agents: Agents | None = None

    def project(self, name: str = "proj") -> Agents:
        """A new project (trusted by both CLIs: its folder is under the trusted root)."""
        self.agents = Agents(self.idea, self.idea.new_project(name))
        return self.agents

    @property
    def team(self) -> Agents:
        assert self.agents is not None, "call project() first"
        return self.agents

    def new(self, name: str, cli: str, persona: str | None = None) -> dict[str, Any]:
        return self.team.new(name, PROFILES[cli], persona)

    def launch(self, name: str, cli: str, *args: str) -> dict[str, Any]:
        """Launch agent `name` (in a new cell unless `args` say otherwise) and wait for its
        CLI's prompt."""
        launched = self.team.launch(name, *args)
        if "target" in launched:
            self.wait_screen(launched["target"], PROMPTS[cli])
        return launched

    def wait_screen(self, target: str, pattern: str, timeout: float = WAIT) -> str:
        regex = re.compile(pattern)

        def seen() -> str | None:
            text = self.idea.capture(target)
            return text if regex.search(text) else None

        return retry_until(seen, timeout, interval=0.2,
                           describe=lambda: self.idea.capture(target) + "\nmodel requests:\n"
                           + self.server.describe())

    def wait_marker(self, target: str, marker: str, timeout: float = WAIT) -> str:
        """Wait until `marker` (no blanks in it) is on the cell's screen, wherever the
        CLI wrapped it: agent cells are narrow and the CLIs indent continuation lines."""
        assert not re.search(r"\s", marker), marker

        def seen() -> str | None:
            text = self.idea.capture(target)
            return text if marker in re.sub(r"\s+", "", text) else None

        return retry_until(seen, timeout, interval=0.2,
                           describe=lambda: self.idea.capture(target) + "\nmodel requests:\n"
                           + self.server.describe())

    def type_line(self, target: str, text: str, attempts: int = 3) -> None:
        """What a user does: type the text, then Enter as a separate key press (Codex takes
        keys that arrive together as a paste, where Enter is a newline); until the model
        server has the line, press Enter again while the line still sits in the composer
        (a loaded machine can deliver both in one burst, and the Enter is lost)."""
        self.idea.run("send-keys", "-t", target, "-l", "--", text)
        self.idea.send_keys(target, "Enter")

        def sent() -> bool:
            return any(text in r.latest for r in self.server.turns())

        for _ in range(attempts - 1):
            try:
                retry_until(sent, 20.0, interval=0.2)
                return
            except AssertionError:
                if text not in self.idea.capture(target):
                    break
                self.idea.send_keys(target, "Enter")
        retry_until(sent, WAIT, interval=0.2, describe=lambda: self.idea.capture(target))
