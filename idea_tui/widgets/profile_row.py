"""One AI profile in the wizard and settings screens: tick box, detection, command, args;
and the small helpers those screens share."""

from __future__ import annotations

import re
import shlex
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Checkbox, Input, Static

Profile = dict[str, Any]
Detection = dict[str, Any]

# Injection strategy → the key of its value (FEATURES.md §3.3); stdin has none.
STRATEGIES: dict[str, str | None] = {
    "conventionFile": "target",
    "flag": "flag",
    "stdin": None,
    "env": "var",
}
STRATEGY_LABELS = {
    "conventionFile": "a file in the agent's run folder",
    "flag": "a command-line flag",
    "stdin": "typed in on standard input",
    "env": "an environment variable (the file's path)",
}
VALUE_HINTS = {
    "conventionFile": "file name, e.g. AGENTS.md",
    "flag": "flag, e.g. --system-prompt-file {path} or --prompt {content}",
    "stdin": "(nothing to set)",
    "env": "variable name, e.g. AGENT_CONTEXT_FILE",
}


def injection_label(profile: Profile) -> str:
    injection = profile.get("contextInjection") or {}
    strategy = str(injection.get("strategy", "?"))
    key = STRATEGIES.get(strategy)
    value = injection.get(key) if key else None
    if value and len(str(value)) > 30:
        value = str(value)[:29] + "…"
    return f"context by {strategy}" + (f" {value}" if value else "")


def detection_text(result: Detection | None, *, custom: bool = False) -> Text:
    """What detection found, for one profile."""
    if result is None:
        if custom:
            return Text("checked once saved", style="dim italic")
        return Text("detecting…", style="dim italic")
    found = result.get("found")
    detail = str(result.get("detail") or "")
    if found is True:
        return Text("✓ found" + (f": {detail}" if detail else ""), style="green")
    if found is False:
        return Text("✗ not found" + (f": {detail}" if detail else ""), style="yellow")
    return Text(detail or "no detect command", style="dim")


def clean_error(message: str, names: list[str]) -> str:
    """The daemon's validation message for a list of profiles, naming the profile instead
    of its index and without the advice meant for a corrupt file."""
    text = message
    if "cannot be read: " in text:
        text = text.split("cannot be read: ", 1)[1]
    text = text.split(" idea left the file untouched", 1)[0]

    def name(match: re.Match[str]) -> str:
        index = int(match.group(1))
        return f"{names[index]}: " if index < len(names) else match.group(0)

    return re.sub(r"^\[(\d+)\]\.?", name, text)


def slug(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "profile"
    candidate, number = base, 2
    while candidate in taken:
        candidate, number = f"{base}-{number}", number + 1
    return candidate


def without_source(profile: Profile) -> Profile:
    return {key: value for key, value in profile.items() if key != "source"}


class TickBox(Checkbox):
    """A compact tick box drawn as [x] / [ ], clearer than a coloured X."""

    @property
    def _button(self) -> Content:
        if self.value:
            return Content.styled("[x] ", "bold $success")
        return Content.styled("[ ] ", "$text-muted")


class ProfileRow(Vertical):
    """One profile: (tick box and) name, detection result, command and args inputs."""

    DEFAULT_CSS = """
    ProfileRow { height: auto; margin-bottom: 1; }
    ProfileRow > Horizontal { height: 1; }
    ProfileRow .name { width: 26; }
    ProfileRow TickBox { width: 26; }
    ProfileRow .detect { width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    ProfileRow .label { width: 12; padding-left: 4; color: $text-muted; }
    ProfileRow .command { width: 1fr; background: $boost; }
    ProfileRow .args { width: 2fr; background: $boost; }
    ProfileRow .args-label { width: 7; padding-left: 2; color: $text-muted; }
    """

    def __init__(self, profile: Profile, *, tickable: bool, ticked: bool = False,
                 detection: Detection | None = None, custom: bool = False) -> None:
        super().__init__()
        self.profile = profile
        self.tickable = tickable
        self.initially_ticked = ticked
        self.detection = detection
        self.custom = custom

    def compose(self) -> ComposeResult:
        profile = self.profile
        with Horizontal():
            if self.tickable:
                yield TickBox(profile["name"], self.initially_ticked, compact=True)
            else:
                label = Text(profile["name"], style="bold")
                if profile.get("source") == "built-in":
                    label.append(" (built-in)", style="dim")
                yield Static(label, classes="name")
            yield Static(self._detect_line(), classes="detect")
        with Horizontal():
            yield Static("command", classes="label")
            yield Input(profile.get("command", ""), compact=True, classes="command",
                        placeholder="program")
            yield Static("args", classes="args-label")
            yield Input(shlex.join(profile.get("args") or []), compact=True, classes="args",
                        placeholder="arguments, as typed in a shell")

    def _detect_line(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        text.append_text(detection_text(self.detection, custom=self.custom))
        text.append(f"  · {injection_label(self.profile)}", style="dim")
        return text

    def set_detection(self, detection: Detection | None) -> None:
        self.detection = detection
        self.query_one(".detect", Static).update(self._detect_line())

    @property
    def ticked(self) -> bool:
        if not self.tickable:
            return True
        return self.query_one(Checkbox).value

    def current(self) -> Profile:
        """The profile with the command and args as edited (raises ValueError for args
        that do not parse, e.g. an unclosed quote)."""
        command = self.query_one(".command", Input).value.strip()
        args = shlex.split(self.query_one(".args", Input).value)
        return {**without_source(self.profile), "command": command, "args": args}

    @property
    def changed(self) -> bool:
        try:
            current = self.current()
        except ValueError:
            return True
        return bool(current["command"] != self.profile.get("command")
                    or current["args"] != list(self.profile.get("args") or []))
