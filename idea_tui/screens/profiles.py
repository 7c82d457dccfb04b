"""AI profiles: the first-run wizard (FRW-1/2) and, later, the profiles settings screen.

Both list the profiles with what `profile_detect` found (it runs in a worker: "detecting…"
until it answers, the screen stays usable meanwhile) and let the user edit each profile's
command and arguments, and add a custom profile.

- First run (`first_run=True`, shown by the attached client when no profiles.json exists):
  tick the profiles to keep; Save writes them with `profile_save`, Skip saves an empty list.
  Either way profiles.json then exists and the wizard never appears again.
- Settings (palette "Profiles", prefix + S): Save sends each changed profile with
  `profile_edit` (a built-in one is copied into profiles.json); a custom profile is added
  with `profile_add` as soon as its form is filled in.

The daemon validates profiles; its message is shown as is (with the profile's name).
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Select, Static

from idea_tui.screens.confirm import ConfirmScreen
from idea_tui.widgets.message_line import MessageLine

if TYPE_CHECKING:
    from idea_tui.actions import ActionRunner

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


class ProfilesScreen(ModalScreen[str | None]):
    """Dismissed with "saved", "skipped" (first run) or None (closed).

    `profiles` (profile_list's profiles) and `detection` (profile_detect's answer) may be
    passed in (snapshot tests); missing ones are fetched when the screen opens.
    """

    BINDINGS = [
        Binding("ctrl+s", "save", "Save", priority=True),
        Binding("ctrl+n", "add_custom", "Add custom profile", priority=True),
        Binding("ctrl+r", "detect", "Detect again", priority=True),
        Binding("escape", "leave", "Skip or close", priority=True),
    ]

    DEFAULT_CSS = """
    ProfilesScreen { align: center middle; }
    ProfilesScreen > Vertical {
        width: 96%; max-width: 110; height: auto; max-height: 96%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    ProfilesScreen .intro { margin-bottom: 1; }
    ProfilesScreen #profile-rows { height: auto; max-height: 16; }
    ProfilesScreen .buttons { height: 1; margin-top: 1; }
    ProfilesScreen .buttons Button { margin-right: 2; }
    """

    def __init__(self, runner: ActionRunner | None, profiles: list[Profile] | None = None,
                 detection: list[Detection] | None = None, *, first_run: bool = False) -> None:
        super().__init__()
        self.runner = runner
        self.profiles = profiles
        self.detection = detection
        self.first_run = first_run
        self.busy = False

    # ─── layout ──────────────────────────────────────────────────────────────────────

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            if self.first_run:
                box.border_title = " Welcome to idea: which AI coding CLIs do you use? "
                intro = ("idea's agents run AI coding CLIs. Tick the ones to use (Space), "
                         "adjust a command or its arguments if needed, or add your own. "
                         "Nothing is assumed: you can also skip and set them up later "
                         "(Profiles, prefix S).")
            else:
                box.border_title = " Profiles "
                intro = ("The CLIs agents run. Edit a command or its arguments and save; a "
                         "built-in profile you change is copied into profiles.json.")
            yield Static(intro, classes="intro")
            with VerticalScroll(id="profile-rows"):
                yield from self._rows()
            yield MessageLine()
            with Horizontal(classes="buttons"):
                yield Button("Save ^S", id="save", variant="primary", compact=True)
                yield Button("Add custom profile ^N", id="add-custom-profile", compact=True)
                yield Button("Detect again ^R", id="detect", compact=True)
                if self.first_run:
                    yield Button("Skip Esc", id="skip", compact=True)
                else:
                    yield Button("Close Esc", id="close", compact=True)

    def _rows(self) -> list[ProfileRow]:
        found = {item["id"]: item for item in self.detection or []}
        return [ProfileRow(profile, tickable=self.first_run, detection=found.get(profile["id"]))
                for profile in self.profiles or []]

    def on_mount(self) -> None:
        if self.profiles is None and self.runner is not None:
            self.run_worker(self._load(), group="load")
            return
        self._focus_first()
        if self.detection is None and self.runner is not None:
            self.action_detect()

    async def _load(self) -> None:
        assert self.runner is not None
        info = await self.runner.call("profile_list")
        self.profiles = list((info or {}).get("profiles", []))
        await self._refill()
        self._focus_first()
        if self.detection is None:
            self.action_detect()

    def _focus_first(self) -> None:
        rows = self.query(ProfileRow)
        if rows:
            rows.first().query(Checkbox if self.first_run else Input).first().focus()

    async def _refill(self) -> None:
        container = self.query_one("#profile-rows", VerticalScroll)
        await container.remove_children()
        await container.mount_all(self._rows())

    @property
    def rows(self) -> list[ProfileRow]:
        return list(self.query(ProfileRow))

    # ─── detection ───────────────────────────────────────────────────────────────────

    def action_detect(self) -> None:
        if self.runner is None:
            return
        for row in self.rows:
            row.set_detection(None)
        self.run_worker(self._detect(), group="detect", exclusive=True)

    async def _detect(self) -> None:
        assert self.runner is not None
        answer = await self.runner.attempt("profile_detect")
        if not answer.ok:
            failed = {"found": None, "detail": f"detection failed: {answer.error}"}
            for row in self.rows:
                row.set_detection(failed)
            return
        self.detection = list(answer.result or [])
        found = {item["id"]: item for item in self.detection}
        for row in self.rows:
            if row.profile["id"] in found:
                row.set_detection(found[row.profile["id"]])

    # ─── buttons and keys ────────────────────────────────────────────────────────────

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        event.stop()
        actions = {"save": self.action_save, "add-custom-profile": self.action_add_custom,
                   "detect": self.action_detect, "close": self.action_leave}
        if event.button.id == "skip":
            self._start(self._skip())
        elif event.button.id in actions:
            actions[event.button.id]()

    def _start(self, work: Any) -> None:
        self.run_worker(work, group="profiles", exclusive=False)

    def action_save(self) -> None:
        # After the keys still queued for the focused input (Ctrl+S is a priority binding).
        if self.focused is not None:
            self.focused.call_next(self._save_now)
        else:
            self._save_now()

    def _save_now(self) -> None:
        if not self.busy and self.is_attached:
            self._start(self._save_wizard() if self.first_run else self._save_settings())

    def action_add_custom(self) -> None:
        if not self.busy:
            self._start(self._add_custom())

    def action_leave(self) -> None:
        if self.busy:
            return
        if self.first_run:
            self._start(self._ask_skip())
        elif any(row.changed for row in self.rows):
            self._start(self._ask_discard())
        else:
            self.dismiss(None)

    def _report(self, message: str, level: str = "info") -> None:
        if self.runner is not None:
            self.runner.report(message, level)
        else:
            self.query_one(MessageLine).show(message, level)

    def _edited(self, rows: list[ProfileRow]) -> list[Profile] | None:
        profiles = []
        for row in rows:
            try:
                profiles.append(row.current())
            except ValueError as exc:
                self._report(f"{row.profile['name']}: arguments: {exc}", "error")
                return None
        return profiles

    # ─── first run ───────────────────────────────────────────────────────────────────

    async def _save_wizard(self) -> None:
        chosen_rows = [row for row in self.rows if row.ticked]
        if not chosen_rows:
            self._report("tick the profiles to keep (Space), or skip (Esc) to set them up "
                         "later", "error")
            return
        chosen = self._edited(chosen_rows)
        if chosen is None or self.runner is None:
            return
        self.busy = True
        try:
            answer = await self.runner.attempt("profile_save", profiles=chosen)
        finally:
            self.busy = False
        if not answer.ok:
            self._report(clean_error(answer.error or "", [p["name"] for p in chosen]), "error")
            return
        names = ", ".join(profile["name"] for profile in chosen)
        self.runner.report(f"profiles saved: {names} (Profiles, prefix S, edits them; "
                           "prefix A opens the Agents panel)")
        self.dismiss("saved")

    async def _ask_skip(self) -> None:
        question = ("Skip the setup? This wizard will not appear again; the built-in "
                    "profiles stay usable and Profiles (prefix S) sets them up later.")
        if self.runner is not None and await self.runner.ask(ConfirmScreen(question)):
            await self._skip()

    async def _skip(self) -> None:
        if self.runner is None:
            return
        answer = await self.runner.attempt("profile_save", profiles=[])
        if not answer.ok:
            self._report(answer.error or "profiles.json could not be written", "error")
            return
        self.runner.report("setup skipped: Profiles (prefix S) configures the AI CLIs later")
        self.dismiss("skipped")

    # ─── settings ────────────────────────────────────────────────────────────────────

    async def _save_settings(self) -> None:
        changed_rows = [row for row in self.rows if row.changed]
        if not changed_rows:
            self._report("nothing changed")
            return
        edited = self._edited(changed_rows)
        if edited is None or self.runner is None:
            return
        self.busy = True
        try:
            for profile in edited:
                answer = await self.runner.attempt("profile_edit", profile=profile)
                if not answer.ok:
                    self._report(f"{profile['name']}: {clean_error(answer.error or '', [])}",
                                 "error")
                    return
        finally:
            self.busy = False
        names = ", ".join(profile["name"] for profile in edited)
        self.runner.report(f"saved: {names}")
        self.dismiss("saved")

    async def _ask_discard(self) -> None:
        if self.runner is not None and await self.runner.ask(
                ConfirmScreen("Discard your changes to the profiles?")):
            self.dismiss(None)

    # ─── custom profile ──────────────────────────────────────────────────────────────

    async def _add_custom(self) -> None:
        if self.runner is None:
            return
        taken = {row.profile["id"] for row in self.rows}
        if self.first_run:
            profile = await self.runner.ask(CustomProfileScreen(taken))
            if profile is None:
                return
            row = ProfileRow(profile, tickable=True, ticked=True, custom=True)
            container = self.query_one("#profile-rows", VerticalScroll)
            await container.mount(row)
            container.scroll_end(animate=False)
            self._report(f"{profile['name']} added and ticked: Save writes it")
            return
        runner = self.runner

        async def add(profile: Profile) -> bool:
            answer = await runner.attempt("profile_add", profile=profile)
            if not answer.ok:
                runner.report(f"{profile['name']}: {clean_error(answer.error or '', [])}",
                              "error")
            return answer.ok

        profile = await runner.ask(CustomProfileScreen(taken, submit=add))
        if profile is None:
            return
        info = await runner.call("profile_list")
        self.profiles = list((info or {}).get("profiles", []))
        await self._refill()
        runner.report(f"profile {profile['name']} added")
        self.action_detect()


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
