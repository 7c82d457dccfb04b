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

from typing import TYPE_CHECKING, Any

import msgspec
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Static

from adapters.ipc.answers_agents import ProfileDetection, ProfileList, ProfileMap, ProfilesSaved
from idea_tui.ports import attempt_as, attempt_list, call_as
from idea_tui.screens.confirm import ConfirmScreen
from idea_tui.screens.custom_profile import CustomProfileScreen
from idea_tui.widgets.message_line import MessageLine
from idea_tui.widgets.profile_row import (
    ProfileRow,
    clean_error,
)

if TYPE_CHECKING:
    from idea_tui.ports import Runner

Profile = dict[str, Any]
Detection = dict[str, Any]

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

    def __init__(self, runner: Runner | None, profiles: list[Profile] | None = None,
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
        info = await call_as(self.runner, ProfileList, "profile_list")
        self.profiles = info.profiles if info is not None else []
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
        answer, detected = await attempt_list(self.runner, ProfileDetection, "profile_detect")
        if detected is None:
            failed = {"found": None, "detail": f"detection failed: {answer.error}"}
            for row in self.rows:
                row.set_detection(failed)
            return
        # Maps, as the profile rows read them: the daemon's own, from the Structs.
        self.detection = msgspec.to_builtins(detected)
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
            answer, saved = await attempt_as(self.runner, ProfilesSaved, "profile_save",
                                             profiles=chosen)
        finally:
            self.busy = False
        if saved is None:
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
        answer, saved = await attempt_as(self.runner, ProfilesSaved, "profile_save", profiles=[])
        if saved is None:
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
                answer, edited_one = await attempt_as(self.runner, ProfileMap, "profile_edit",
                                                      profile=profile)
                if edited_one is None:
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
            answer, added = await attempt_as(runner, ProfileMap, "profile_add", profile=profile)
            if added is None:
                runner.report(f"{profile['name']}: {clean_error(answer.error or '', [])}",
                              "error")
            return added is not None

        profile = await runner.ask(CustomProfileScreen(taken, submit=add))
        if profile is None:
            return
        info = await call_as(runner, ProfileList, "profile_list")
        self.profiles = info.profiles if info is not None else []
        await self._refill()
        runner.report(f"profile {profile['name']} added")
        self.action_detect()
