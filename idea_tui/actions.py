"""What each workspace action does in the client: mostly one daemon command each.

Actions that would end running programs are first sent without `force`; if the daemon
answers that confirmation is needed, the user is asked, then the command is sent again with
`force`. Errors become a message on the status line, never a crash.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any, TypeVar

from textual.screen import Screen

from idea_tui.control import CommandFailed, DaemonError
from idea_tui.delegation_actions import DelegationActions
from idea_tui.keymap import ACTIONS_BY_NAME
from idea_tui.ports import Answer, AppHost, call_as, call_list
from idea_tui.view_actions import ViewActions

T = TypeVar("T")


class ActionRunner:
    def __init__(self, app: AppHost) -> None:
        self.app = app
        self.view_actions = ViewActions(app, self)
        self.delegations = DelegationActions(self)

    # ─── plumbing ────────────────────────────────────────────────────────────────────

    async def call(self, method: str, **params: Any) -> Any:
        """Run a daemon command; report failures on the status line (returns None then)."""
        gateway = self.app.gateway
        if gateway is None:
            return None
        try:
            return await gateway.call(method, **params)
        except CommandFailed as exc:
            if exc.code == "confirm" and not params.get("force"):
                if await self.ask(_confirm_screen(str(exc))):
                    return await self.call(method, **{**params, "force": True})
                return None
            self.report(str(exc), "error")
        except DaemonError as exc:
            self.report(str(exc), "error")
        return None

    async def call_as(self, answer: type[T], method: str, /, **params: Any) -> T | None:
        """`call` for a command whose answer is the Struct `answer`; None on failure
        (reported)."""
        return await call_as(self, answer, method, **params)

    async def call_list(self, answer: type[T], method: str, /, **params: Any) -> list[T]:
        """`call` for a command whose answer is a list of the Struct `answer`; empty on
        failure (reported)."""
        return await call_list(self, answer, method, **params) or []

    async def attempt(self, method: str, **params: Any) -> Answer:
        """Like `call`, but a failure is returned, not reported, for the caller to word.

        A "confirm" answer still asks the user; declining gives an `Answer` with
        `declined` set and an empty error.
        """
        gateway = self.app.gateway
        if gateway is None:
            return Answer(error="not connected to the idea daemon", code="error")
        try:
            return Answer(result=await gateway.call(method, **params))
        except CommandFailed as exc:
            if exc.code == "confirm" and not params.get("force"):
                if await self.ask(_confirm_screen(str(exc))):
                    return await self.attempt(method, **{**params, "force": True})
                return Answer(error="", code="confirm", declined=True)
            return Answer(error=str(exc), code=exc.code)
        except DaemonError as exc:
            return Answer(error=str(exc), code="error")

    def report(self, message: str, level: str = "info") -> None:
        """A message on the status line, and in the message lines of the open panels (the
        status line is dimmed under them; the panel a dialog returns to shows it too)."""
        from idea_tui.widgets.message_line import MessageLine

        self.app.status.show(message, level)
        for screen in self.app.screen_stack:
            for line in screen.query(MessageLine):
                line.show(message, level)

    async def ask(self, screen: Screen[Any]) -> Any:
        """Show a modal screen and wait for what it is dismissed with.

        A future rather than `push_screen_wait`: this runs in the grid widget's key handler,
        not in a worker, and the modal screen has its own message loop to resolve it.
        """
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()

        def done(result: Any) -> None:
            if not future.done():
                future.set_result(result)

        self.app.push_screen(screen, callback=done)
        return await future

    def _focused(self) -> str | None:
        cell = self.app.view.focused_cell
        return f"%{cell.id}" if cell is not None else None

    def focused_target(self) -> str | None:
        """The focused cell as a command target (`%<cell id>`), None without one."""
        return self._focused()

    async def run(self, name: str, argument: str | None = None) -> None:
        """Run an action by name (from the key table or the palette)."""
        info = ACTIONS_BY_NAME.get(name)
        if info is not None and info.argument is not None and argument is None:
            await self._ask_then_run(name, info.argument)
            return
        if name.startswith("page_") and name[5:].isdigit():
            await self.call("layout_switch", page=name[5:])
            return
        method = getattr(self, f"do_{name}", None)
        if method is None:
            self.app.status.show(f"unknown action {name}", "error")
            return
        if argument is None:
            await method()
        else:
            await method(argument)

    async def _ask_then_run(self, name: str, question: str) -> None:
        from idea_tui.screens.prompt import PromptScreen

        answer = await self.ask(PromptScreen(question))
        if answer:
            await self.run(name, answer)

    async def run_directional(self, mode: str, direction: str) -> None:
        target = self._focused()
        if mode == "merge":
            await self.call("merge", target=target, direction=direction)
        elif mode == "swap":
            await self.call("swap", target=target, direction=direction)
        elif mode == "move":
            from adapters.ipc.commands import CellDescription

            neighbour = await self.call_as(CellDescription, "select", target=target,
                                           direction=direction)
            if neighbour is not None and target is not None:
                split = "right" if direction in ("left", "right") else "down"
                await self.call("move", target=target, dst=f"%{neighbour.id}", direction=split)

    # ─── cells ───────────────────────────────────────────────────────────────────────

    async def do_split_right(self) -> None:
        await self.call("split", target=self._focused(), direction="right")

    async def do_split_down(self) -> None:
        await self.call("split", target=self._focused(), direction="down")

    async def do_grid(self, size: str) -> None:
        try:
            rows, cols = (int(part) for part in size.lower().replace(" ", "").split("x"))
        except ValueError:
            self.app.status.show("a grid size looks like 2x3 (rows x columns)", "error")
            return
        await self.call("grid", target=self._focused(), rows=rows, cols=cols)

    async def do_close_cell(self) -> None:
        await self.call("close", target=self._focused())

    async def do_zoom(self) -> None:
        await self.call("zoom", target=self._focused())

    async def do_restart_cell(self) -> None:
        await self.call("restart", target=self._focused())

    async def _focus(self, direction: str) -> None:
        await self.call("select", target=self._focused(), direction=direction)

    async def do_focus_left(self) -> None:
        await self._focus("left")

    async def do_focus_right(self) -> None:
        await self._focus("right")

    async def do_focus_up(self) -> None:
        await self._focus("up")

    async def do_focus_down(self) -> None:
        await self._focus("down")

    async def do_focus_next(self) -> None:
        await self._focus("next")

    async def do_focus_last(self) -> None:
        await self._focus("last")

    async def _resize(self, side: str, cells: int) -> None:
        await self.call("resize", target=self._focused(), side=side, cells=cells)

    async def do_resize_left(self) -> None:
        await self._resize("left", 1)

    async def do_resize_right(self) -> None:
        await self._resize("right", 1)

    async def do_resize_up(self) -> None:
        await self._resize("up", 1)

    async def do_resize_down(self) -> None:
        await self._resize("down", 1)

    async def do_resize_left_5(self) -> None:
        await self._resize("left", 5)

    async def do_resize_right_5(self) -> None:
        await self._resize("right", 5)

    async def do_resize_up_5(self) -> None:
        await self._resize("up", 5)

    async def do_resize_down_5(self) -> None:
        await self._resize("down", 5)

    async def do_equalize(self) -> None:
        await self.call("equalize", target=self._focused())

    async def do_merge_mode(self) -> None:
        self.app.start_mode("merge", "MERGE with: ← ↑ → ↓")

    async def do_swap_mode(self) -> None:
        self.app.start_mode("swap", "SWAP with: ← ↑ → ↓")

    async def do_move_mode(self) -> None:
        self.app.start_mode("move", "MOVE beside: ← ↑ → ↓")

    async def do_swap_prev(self) -> None:
        await self.call("swap", target=self._focused(), direction="prev")

    async def do_swap_next(self) -> None:
        await self.call("swap", target=self._focused(), direction="next")

    async def do_undo(self) -> None:
        from adapters.ipc.commands import UndoAnswer

        result = await self.call_as(UndoAnswer, "undo", target=self._focused())
        if result is not None and not result.changed:
            self.app.status.show("nothing to undo")

    async def do_redo(self) -> None:
        from adapters.ipc.commands import UndoAnswer

        result = await self.call_as(UndoAnswer, "undo", target=self._focused(), redo=True)
        if result is not None and not result.changed:
            self.app.status.show("nothing to redo")

    # ─── pages, projects, windows ────────────────────────────────────────────────────

    async def do_new_page(self) -> None:
        await self.call("layout_new")

    async def do_next_page(self) -> None:
        await self.call("layout_switch", page="next")

    async def do_prev_page(self) -> None:
        await self.call("layout_switch", page="prev")

    async def do_rename_page(self, name: str) -> None:
        await self.call("layout_rename", name=name)

    async def do_close_page(self) -> None:
        await self.call("layout_close")

    async def do_next_project(self) -> None:
        await self.call("project_switch", which="next")

    async def do_prev_project(self) -> None:
        await self.call("project_switch", which="prev")

    async def do_new_project(self, path: str) -> None:
        await self.call("project_new", path=_absolute(path))

    async def do_open_project(self, path: str) -> None:
        await self.call("project_open", path=_absolute(path))

    async def open_here(self, path: str) -> None:
        """Open the folder as a project, creating it first when it is not one yet."""
        from adapters.ipc.answers_workspace import ProjectProbe

        probe = await self.call_as(ProjectProbe, "project_probe", path=path)
        if probe is not None:
            await self.call(probe.command(), path=path)

    async def offer_resume(self) -> None:
        """After a restart: ask about resumes missed at a usage limit (issue 10), then
        offer to resume the agents that were running (SWP-3)."""
        from adapters.ipc.answers_agents import AgentDescription, ResumableAgent
        from idea_tui.screens.limit_flows import ask_missed_resumes

        await ask_missed_resumes(self)
        resumable = await self.call_list(ResumableAgent, "agent_resumable", all=True)
        if not resumable:
            return
        lines = [
            f"  {entry.project}: {entry.agent}"
            + ("" if entry.resume_supported else " (fresh start: its CLI cannot resume)")
            for entry in resumable
        ]
        question = "These agents were running before idea stopped:\n" + "\n".join(lines)
        question += "\n\nResume them now?"
        if await self.ask(_confirm_screen(question)):
            resumed = await self.call_list(AgentDescription, "agent_resume", all=True)
            self.app.status.show(f"resumed {len(resumed)} agent(s)")
        else:
            self.app.status.show("not resumed: `idea agent resume` or Enter in their cells")

    async def do_close_project(self) -> None:
        await self.call("project_close")

    async def do_move_to_window(self, name: str) -> None:
        from adapters.ipc.answers_workspace import WindowDescription

        windows = await self.call_list(WindowDescription, "window_list")
        scene = self.app.view.scene
        project = next((tab.root for tab in scene.tabs if tab.active), None) if scene else None
        if project is None:
            self.app.status.show("no project to move", "error")
            return
        if any(window.name == name for window in windows):
            await self.call("project_move", project=project, window=name)
        else:
            await self.call("window_new", name=name, project=project)
        self.app.status.show(f"moved to window {name}: attach to it with `idea attach -w {name}`")

    async def do_rename_window(self, name: str) -> None:
        await self.call("window_rename", name=name)

    async def do_projects(self) -> None:
        from idea_tui.screens.projects import ProjectsScreen

        self.app.push_screen(ProjectsScreen(self))

    async def do_tree(self) -> None:
        from idea_tui.screens.tree import TreeScreen

        self.app.push_screen(TreeScreen(self))

    # ─── agents, templates, profiles ─────────────────────────────────────────────────

    async def first_run_screen(self) -> Screen[Any] | None:
        """The first-run wizard (FRW-1) when profiles.json does not exist yet, else None.

        Saving or skipping writes profiles.json, so it is never shown again. Quiet on
        failure: a daemon without agents simply has no wizard.
        """
        from adapters.ipc.answers_agents import ProfileList
        from idea_tui.ports import attempt_as

        _, info = await attempt_as(self, ProfileList, "profile_list")
        if info is None or info.configured:
            return None
        from idea_tui.screens.profiles import ProfilesScreen

        return ProfilesScreen(self, info.profiles, first_run=True)

    async def do_git(self) -> None:
        from idea_tui.screens.git_panel import GitScreen

        self.app.push_screen(GitScreen(self))

    async def do_git_graph(self) -> None:
        await self.call("layout_new", kind="gitGraph")

    async def do_work(self) -> None:
        from idea_tui.screens.work import WorkScreen

        self.app.push_screen(WorkScreen(self))

    # ─── delegations (issue 8): `idea_tui/delegation_actions.py` ──────────────────────────

    async def do_delegations(self) -> None:
        await self.delegations.show_view()

    async def do_enqueue_line(self, text: str) -> None:
        await self.delegations.enqueue_line(text)

    async def do_interrupt_agent(self) -> None:
        await self.delegations.interrupt_agent()

    async def do_refresh_context(self) -> None:
        from adapters.ipc.answers_orchestration import Refreshed

        result = await self.call_as(Refreshed, "agent_refresh",
                                    target=self.focused_target() or "")
        if result is not None:
            if result.ticket:
                self.report(f"{result.agent}: refreshed {', '.join(result.sections)}")
            else:
                self.report(f"{result.agent}: its context is up to date")

    async def do_agents(self) -> None:
        from idea_tui.screens.agents import AgentsScreen

        self.app.push_screen(AgentsScreen(self))

    async def do_memory(self) -> None:
        from idea_tui.screens.memory import MemoryScreen

        self.app.push_screen(MemoryScreen(self))

    async def do_project_context(self) -> None:
        from idea_tui.screens.context import ContextScreen

        self.app.push_screen(ContextScreen(self))

    async def do_templates(self) -> None:
        from idea_tui.screens.templates import TemplatesScreen

        self.app.push_screen(TemplatesScreen(self))

    async def do_skills(self) -> None:
        from idea_tui.screens.skills import SkillsScreen

        self.app.push_screen(SkillsScreen(self))

    async def do_profiles(self) -> None:
        from idea_tui.screens.profiles import ProfilesScreen

        self.app.push_screen(ProfilesScreen(self))

    async def do_new_agent(self) -> None:
        from idea_tui.screens import flows

        await flows.new_agent(self)

    # ─── usage limits (issue 10): the palette's versions of the panel's m/N/X/o/f ────

    async def do_limit_resume_at(self, text: str) -> None:
        name, _, at = text.strip().partition(" ")
        if not name or not at.strip():
            self.app.status.show("give the agent and the time: dev 17:05", "error")
            return
        from msgspec import UNSET

        from adapters.ipc.answers_limits import LimitAnswer

        result = await self.call_as(LimitAnswer, "set_resume_at", agent=name, at=at.strip())
        if result is not None:
            limit = result.limit
            text = limit.text if limit is not None else "armed"
            countdown = (limit.countdown if limit is not None and limit.countdown is not UNSET
                         else "a moment")
            self.app.status.show(f"{result.agent}: {text}, resumes in {countdown}")

    async def do_limit_resume_now(self, name: str) -> None:
        if await self.call("resume_now", agent=name.strip()) is not None:
            self.app.status.show(f"{name.strip()} resumed")

    async def do_limit_cancel(self, name: str) -> None:
        from adapters.ipc.answers_limits import LimitAnswer

        result = await self.call_as(LimitAnswer, "cancel_resume", agent=name.strip())
        if result is not None:
            self.app.status.show(f"{result.agent}: resume cancelled, still limited"
                                 if result.cancelled is True else
                                 f"{result.agent}: no resume was armed")

    async def do_limit_not_limited(self, name: str) -> None:
        from adapters.ipc.answers_limits import LimitAnswer

        result = await self.call_as(LimitAnswer, "not_limited", agent=name.strip())
        if result is not None:
            self.app.status.show(f"{result.agent}: not a limit, its task goes on"
                                 if result.was == "suspected" else
                                 f"{result.agent}: no longer limited, its queue moves")

    async def do_limit_continue_on(self, text: str) -> None:
        name, _, profile = text.strip().partition(" ")
        if not name or not profile.strip():
            self.app.status.show("give the agent and the profile: dev codex", "error")
            return
        from adapters.ipc.answers_limits import LimitAnswer

        result = await self.call_as(LimitAnswer, "limit_swap", agent=name,
                                    profile=profile.strip())
        if result is not None:
            self.app.status.show(f"{result.agent} continues on {result.profile}")

    async def do_install_team_pack(self) -> None:
        from idea_tui.screens import flows

        await flows.install_team_pack(self)

    # ─── client ──────────────────────────────────────────────────────────────────────

    async def do_detach(self) -> None:
        self.app.detach_reason = "detached"
        self.app.exit("detached")

    async def do_help(self) -> None:
        from idea_tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.app.prefix))

    async def do_palette(self) -> None:
        from idea_tui.screens.palette import PaletteScreen

        choice = await self.ask(PaletteScreen())
        if choice:
            await self.run(choice)

    async def do_send_prefix(self) -> None:
        cell = self.app.view.focused_cell
        if cell is not None and self.app.gateway is not None:
            self.app.gateway.key(cell.id, self.app.prefix, None)

    async def do_copy_mode(self) -> None:
        cell = self.app.view.focused_cell
        if cell is not None:
            await self.view_actions.enter_copy_mode(cell.id)


def _absolute(path: str) -> str:

    return os.path.abspath(os.path.expanduser(path))


def _confirm_screen(question: str) -> Any:
    from idea_tui.screens.confirm import ConfirmScreen

    return ConfirmScreen(question)
