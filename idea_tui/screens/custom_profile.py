"""The form for a custom AI profile: any CLI, with its context-injection strategy."""

from __future__ import annotations

import shlex
from typing import Any

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Select, Static

from idea_tui.widgets.message_line import MessageLine
from idea_tui.widgets.profile_row import STRATEGIES, STRATEGY_LABELS, VALUE_HINTS, Profile, slug


class CustomProfileScreen(ModalScreen[Profile | None]):
    """A profile of one's own: name, command, args, how the context reaches it, and an
    optional detect command. Dismissed with the profile (profiles.json shape) or None.

    With `submit`, the profile is handed to it first and the form stays open (showing the
    daemon's message) until it accepts.
    """

    BINDINGS = [
        Binding("ctrl+s", "submit", "Add", priority=True),
        Binding("escape", "cancel", "Cancel", priority=True),
        # A binding, not Input.Submitted: the focus moves before the next key is read, so
        # fast typing (a paste, a script) lands in the right field.
        Binding("enter", "next_field", "Next field", priority=True, show=False),
    ]

    DEFAULT_CSS = """
    CustomProfileScreen { align: center middle; }
    CustomProfileScreen > Vertical {
        width: 90; height: auto; border: round $accent; background: $surface; padding: 0 1;
    }
    CustomProfileScreen .field { height: 1; margin-top: 1; }
    CustomProfileScreen .label { width: 12; color: $text-muted; }
    CustomProfileScreen Input { width: 1fr; background: $boost; }
    CustomProfileScreen Select { width: 1fr; }
    CustomProfileScreen .hint { color: $text-muted; margin-top: 1; }
    CustomProfileScreen MessageLine { margin-top: 1; }
    """

    def __init__(self, taken: set[str], *, submit: Any = None) -> None:
        super().__init__()
        self.taken = taken
        self.submit = submit
        self.busy = False

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = " Add a custom profile "
            for label, field, placeholder in (
                ("name", "custom-name", "e.g. My CLI"),
                ("command", "custom-command", "the program, e.g. mycli"),
                ("args", "custom-args", "arguments, as typed in a shell (optional)"),
            ):
                with Horizontal(classes="field"):
                    yield Static(label, classes="label")
                    yield Input(id=field, placeholder=placeholder, compact=True)
            with Horizontal(classes="field"):
                yield Static("context", classes="label")
                yield Select([(f"{STRATEGY_LABELS[key]} ({key})", key) for key in STRATEGIES],
                             value="conventionFile", allow_blank=False, compact=True,
                             id="custom-strategy")
            with Horizontal(classes="field"):
                yield Static("target", classes="label", id="custom-value-label")
                yield Input(id="custom-value", placeholder=VALUE_HINTS["conventionFile"],
                            compact=True)
            with Horizontal(classes="field"):
                yield Static("detect", classes="label")
                yield Input(id="custom-detect", compact=True,
                            placeholder="a command that succeeds when installed (optional), "
                                        "e.g. mycli --version")
            yield Static("The context is the agent's composed Markdown; in a flag, {path} "
                         "is its file and {content} its text.", classes="hint")
            yield MessageLine()
            yield Static("Enter: next field · Ctrl+S: add · Escape: cancel", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#custom-name", Input).focus()

    @on(Select.Changed, "#custom-strategy")
    def _strategy_changed(self, event: Select.Changed) -> None:
        strategy = str(event.value)
        key = STRATEGIES.get(strategy)
        value = self.query_one("#custom-value", Input)
        value.placeholder = VALUE_HINTS.get(strategy, "")
        value.disabled = key is None
        self.query_one("#custom-value-label", Static).update(key or "(none)")

    def action_next_field(self) -> None:
        focused = self.focused
        if not isinstance(focused, Input):
            raise SkipAction()  # the Select opens its list
        if focused.id == "custom-detect":
            self.action_submit()
        else:
            self.focus_next()

    def profile(self) -> Profile | None:
        """The profile from the form, or None after showing what is missing."""
        line = self.query_one(MessageLine)

        def value(field: str) -> str:
            return self.query_one(f"#{field}", Input).value.strip()

        name, command = value("custom-name"), value("custom-command")
        strategy = str(self.query_one("#custom-strategy", Select).value)
        key = STRATEGIES.get(strategy)
        if not name or not command:
            line.show("a name and a command are needed", "error")
            return None
        try:
            args = shlex.split(self.query_one("#custom-args", Input).value)
        except ValueError as exc:
            line.show(f"args: {exc}", "error")
            return None
        injection: dict[str, Any] = {"strategy": strategy}
        if key is not None:
            if not value("custom-value"):
                line.show(f"the context {key} is needed for {strategy}", "error")
                return None
            injection[key] = value("custom-value")
        profile: Profile = {"id": slug(name, self.taken), "name": name, "command": command,
                            "args": args, "contextInjection": injection,
                            "cwd": "{projectRoot}"}
        if value("custom-detect"):
            profile["detect"] = value("custom-detect")
        return profile

    def action_submit(self) -> None:
        # After the keys still queued for the focused input (Ctrl+S is a priority binding).
        if self.focused is not None:
            self.focused.call_next(self._submit_now)
        else:
            self._submit_now()

    def _submit_now(self) -> None:
        if self.busy or not self.is_attached:
            return
        profile = self.profile()
        if profile is None:
            return
        if self.submit is None:
            self.dismiss(profile)
            return
        self.busy = True
        self.run_worker(self._submit(profile), group="custom-profile")

    async def _submit(self, profile: Profile) -> None:
        try:
            accepted = await self.submit(profile)
        finally:
            self.busy = False
        if accepted:
            self.dismiss(profile)

    def action_cancel(self) -> None:
        self.dismiss(None)
