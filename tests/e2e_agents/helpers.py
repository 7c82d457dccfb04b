"""Driving agents end to end: fake-agent profiles, one project, the fake agent's reports.

Every test here runs the real daemon (its own IDEA_HOME, from the `idea` fixture) with real
PTYs; agents are the fake agent CLI (`fake_agent/fake_agent.py`) started through custom
profiles. Each profile makes the fake agent write its JSON report to
`{runDir}/report.json`, i.e. `.ideai/run/<agent-id>/report.json`: what it was given (argv,
cwd, env, the context by each strategy, the session) is read from there.

Waits are generous (`WAIT`): the machine is shared; a passing test does not wait longer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.helpers.idea import IdeaEnv
from tests.helpers.retry import retry_until

ROOT = Path(__file__).resolve().parents[2]
FAKE_AGENT = ROOT / "fake_agent" / "fake_agent.py"
WAIT = 45.0
"""Seconds any wait here allows (a passing test returns as soon as the condition holds)."""
REPORT = "report.json"
PROMPT_READY = r"(?m)^fake-agent>(?: |$)"
"""The fake agent's prompt; trailing blanks may be stripped from the screen text."""
CONTEXT_VAR = "FAKE_AGENT_CONTEXT_FILE"
SESSIONS = {
    "startArgs": ["--session-id", "{conversationId}"],
    "resumeArgs": ["--resume", "{conversationId}"],
    "idKnownAtLaunch": True,
}
"""Claude-style session templates the fake agent understands (D20)."""


def fake_profile(profile_id: str, strategy: str, *, session: bool = True,
                 command: str | None = None) -> dict[str, Any]:
    """A profile (profiles.json format) running the fake agent with one injection strategy.

    Strategies: `conventionFile` (CLAUDE.md written in the run dir, which is the cwd),
    `flag` (`--append-system-prompt {content}`), `flag-path` (`--context-path {path}`),
    `stdin` (typed as a bracketed paste once the prompt shows) and `env`
    (`--context-env FAKE_AGENT_CONTEXT_FILE`). Only the conventionFile profile lets the fake
    agent look for a convention file, so the user's own CLAUDE.md in the project root (the
    cwd of the others) is not mistaken for a delivered context.
    """
    args = ["--report", "{runDir}/" + REPORT]
    profile: dict[str, Any] = {"id": profile_id, "name": f"Fake {strategy}",
                               "command": command or str(FAKE_AGENT)}
    if strategy == "conventionFile":
        injection: dict[str, Any] = {"strategy": "conventionFile", "target": "CLAUDE.md"}
        args += ["--context-file", "CLAUDE.md"]
        profile["cwd"] = "{runDir}"
    else:
        args += ["--context-file", ""]
        if strategy == "flag":
            injection = {"strategy": "flag", "flag": "--append-system-prompt {content}"}
        elif strategy == "flag-path":
            injection = {"strategy": "flag", "flag": "--context-path {path}"}
        elif strategy == "stdin":
            injection = {"strategy": "stdin"}
        elif strategy == "env":
            injection = {"strategy": "env", "var": CONTEXT_VAR}
            args += ["--context-env", CONTEXT_VAR]
        else:
            raise ValueError(strategy)
    profile["args"] = args
    profile["contextInjection"] = injection
    if session:
        profile["session"] = dict(SESSIONS)
    profile["promptReadyPattern"] = PROMPT_READY
    return profile


class Agents:
    """The agents of one project of `idea`, driven through the `idea agent …` CLI."""

    def __init__(self, idea: IdeaEnv, project: Path) -> None:
        self.idea = idea
        self.project = project
        self.ideai = project / ".ideai"

    # ─── profiles ────────────────────────────────────────────────────────────────────

    def add_profile(self, profile: dict[str, Any]) -> None:
        """`idea profile add FILE.json` with the profile in a file of its own."""
        folder = self.idea.root / "profiles-in"
        folder.mkdir(exist_ok=True)
        path = folder / f"{profile['id']}.json"
        path.write_text(json.dumps(profile, indent=2))
        self.idea.run("profile", "add", str(path))

    @property
    def profiles_json(self) -> Path:
        return self.idea.locations.data / "profiles.json"

    # ─── agents ──────────────────────────────────────────────────────────────────────

    def new(self, name: str, profile: str, persona: str | None = None,
            *args: str) -> dict[str, Any]:
        """`idea agent new NAME --profile P`; `persona` replaces its starter Markdown."""
        created: dict[str, Any] = self.idea.json("agent", "new", name, "--profile", profile,
                                                 *args)
        if persona is not None:
            Path(created["path"]).write_text(persona, encoding="utf-8")
        return created

    def list(self) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = self.idea.json("agent", "list")
        return listed

    def info(self, name: str) -> dict[str, Any]:
        found = [agent for agent in self.list() if agent["name"] == name]
        assert len(found) == 1, f"agent {name!r} in {self.list()}"
        return found[0]

    def launch(self, name: str, *args: str) -> dict[str, Any]:
        launched: dict[str, Any] = self.idea.json("agent", "launch", name, *args)
        return launched

    def run_dir(self, agent_id: str) -> Path:
        return self.ideai / "run" / agent_id

    # ─── what the fake agent reports ─────────────────────────────────────────────────

    def report(self, agent_id: str,
               until: Callable[[dict[str, Any]], bool] = lambda report: True,
               timeout: float = WAIT) -> dict[str, Any]:
        """The agent's latest report, once `until(report)` holds."""
        path = self.run_dir(agent_id) / REPORT

        def read() -> dict[str, Any] | None:
            try:
                report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            return report if until(report) else None

        def describe() -> str:
            try:
                return path.read_text(encoding="utf-8")
            except OSError as exc:
                return f"{path}: {exc.strerror}"

        return retry_until(read, timeout, describe=describe)

    def contexts(self, agent_id: str, strategy: str,
                 not_pid: int | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """(report, the context received by `strategy`) once the agent has one; with
        `not_pid`, from a process other than that one (a relaunch)."""
        def has_it(report: dict[str, Any]) -> bool:
            return (report.get("pid") != not_pid
                    and any(c["strategy"] == strategy for c in report["contexts"]))

        report = self.report(agent_id, has_it)
        received = [c for c in report["contexts"] if c["strategy"] == strategy]
        assert len(received) == 1, report["contexts"]
        return report, received[0]

    def capture(self, target: str, wait: str) -> str:
        """The cell's screen once `wait` (a regex) shows on it."""
        return self.idea.capture(target, wait=wait, timeout=WAIT)

    def wait_text(self, target: str, pattern: str) -> str:
        """The cell's screen, rows joined, once `pattern` shows in it: long lines (ids)
        wrap in a narrow cell, so this matches across the wraps. A space in `pattern` may
        be missing on screen (a row's trailing blank is dropped where a line wraps)."""
        regex = re.compile(pattern.replace(" ", " ?"))

        def joined() -> str | None:
            text = self.idea.capture(target).replace("\n", "")
            return text if regex.search(text) else None

        return retry_until(joined, WAIT, describe=lambda: self.idea.capture(target))


def cells_by_id(idea: IdeaEnv) -> dict[str, dict[str, Any]]:
    return {cell["id"]: cell for cell in idea.cells()}


def snapshot(paths: list[Path]) -> dict[Path, bytes | None]:
    """The bytes of each file (None when absent), to prove a command left them alone."""
    return {path: path.read_bytes() if path.exists() else None for path in paths}
