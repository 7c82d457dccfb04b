"""Resuming an agent after a usage limit, or continuing it on another profile (issue 10).

At the reset (plus the margin) a limited agent is resumed:

- its CLI still runs and the profile can resume a conversation whose id is known: it is
  restarted in place with the profile's resume template (D20: `--resume {conversationId}`),
  which also clears any menu the CLI shows at a limit;
- its CLI still runs but cannot be resumed that way: the same CLI goes on (it still holds
  the conversation; a fresh launch would lose it); a dialog the CLI opened at its limit
  (the profile's `limitDialog`: Codex's "Switch to <model>?") is closed first, never typed
  into;
- it no longer runs (it exited, the daemon restarted): it is launched where it was, with
  its conversation when the profile can resume it, else afresh with the handoff.

Then `RESUME_PROMPT` goes first through its FIFO, and the held queue follows in order (the
task the limit interrupted was put back at its head). With a fallback profile (the project's
policy, or the user's choice) the agent is instead hot-swapped to it at once, keeping its
persona, memory recall and handoff (SWP-1/2); at the reset it swaps back.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import TYPE_CHECKING

from core.errors import IdeaError
from core.orchestration.tickets import USER
from core.session_limits.book import Limit, LimitState
from core.session_limits.dialog import limit_dialog
from core.session_limits.prompts import FALLBACK_PROMPT, RESUME_PROMPT
from idea_daemon.errors import CommandError
from idea_daemon.runtime import ProjectRuntime

if TYPE_CHECKING:
    from idea_daemon.session_limits.service import SessionLimitService
    from idea_daemon.session_limits.watcher import LimitWatcher

log = logging.getLogger(__name__)

BUSY_RETRY = timedelta(seconds=30)
"""A swap back waits this long again while the agent is in the middle of a task."""


class Resumer:
    def __init__(self, limits: SessionLimitService, watcher: LimitWatcher) -> None:
        self.limits = limits
        self.watcher = watcher
        limits.on_due = self.due
        limits.on_limited = self.on_limited

    # ─── a resume whose time came ────────────────────────────────────────────────────

    def due(self, runtime: ProjectRuntime, limit: Limit) -> None:
        try:
            self._resume(runtime, limit)
        except (IdeaError, CommandError) as exc:
            message = getattr(exc, "message", str(exc))
            log.error("resuming %s failed: %s", limit.agent_name, message)
            self.limits.tell(runtime, f"{limit.agent_name} could not be resumed: {message} "
                                      f"(`idea agent resume {limit.agent_name} --now` retries)",
                             "error")
            self.limits.save(runtime)
            self.limits.service.programs.notify_scene()

    def _resume(self, runtime: ProjectRuntime, limit: Limit) -> None:
        limits = self.limits
        agents = limits.agents
        try:
            agent = agents.agent(runtime, limit.agent_id)
        except (IdeaError, CommandError):
            limits.clear(runtime, limit.agent_id, "the agent no longer exists")
            return
        session = agents.session_of_agent(runtime, agent.id)
        if limit.swapped_from:
            orchestration = limits.orchestration
            if session is not None and orchestration is not None and (
                    orchestration.box(runtime).current(agent.id) is not None):
                limit.fire_at = limits.now() + BUSY_RETRY  # not in the middle of a task
                limits.save(runtime)
                return
            back = limit.swapped_from
            self._switch(runtime, agent.id, back)
            limits.book(runtime).clear(agent.id)
            self._prompt_first(runtime, agent.id, FALLBACK_PROMPT)
            limits.tell(runtime, f"{agent.name}'s usage limit reset: back on its profile {back}")
            return
        profile = agents.profile(agent.profile_id)
        resumable = bool(profile.session and profile.session.resume_supported)
        if session is not None:
            if resumable and session.conversation_id:
                agents.restart(runtime, agent.id, resume=True)
                how = "its conversation resumed"
            else:
                how = "in the same session"
                dialog = limit_dialog(profile.extra)
                shown = dialog.shown(session.screen_text()) if dialog is not None else None
                if dialog is not None and shown is not None:
                    # Never typed into: Enter would pick its highlighted choice (Codex:
                    # "Switch to <model>"). Closed with its keys; until the screen shows it
                    # gone, the profile's blocked rule holds the resume prompt back.
                    session.write(dialog.dismiss.encode())
                    how += f", its limit dialog closed ({shown!r})"
                self.watcher.acknowledge(session)
        else:
            agents.restart(runtime, agent.id, resume=True)
            recorded = agents.records.recorded_conversation(runtime, agent.id)
            how = "its conversation resumed" if resumable and recorded else "relaunched"
        limits.book(runtime).clear(agent.id)
        self._prompt_first(runtime, agent.id, RESUME_PROMPT)
        limits.tell(runtime, f"{agent.name} resumed after its usage limit ({how})")

    def _prompt_first(self, runtime: ProjectRuntime, agent_id: str, prompt: str) -> None:
        """The resume prompt ahead of the held queue, then the FIFO moves again."""
        limits = self.limits
        orchestration = limits.orchestration
        if orchestration is not None:
            agent = limits.agents.agent(runtime, agent_id)
            box = orchestration.box(runtime)
            box.release(agent_id, orchestration.clock())
            orchestration.submit(runtime, (USER, "user"), agent, prompt, expects_reply=False,
                                 first=True)
        limits.save(runtime)
        limits.service.programs.notify_scene()

    def _switch(self, runtime: ProjectRuntime, agent_id: str, profile_id: str) -> None:
        """Hot-swap (SWP-1): the manifest's profile changes, persona and memory stay, the
        new CLI gets a fresh context with the handoff; launched where it was."""
        agents = self.limits.agents
        running = agents.session_of_agent(runtime, agent_id) is not None
        agents.set_profile(runtime, agent_id, profile_id, force=True)
        if not running:
            agents.restart(runtime, agent_id, resume=False)

    # ─── fallback ────────────────────────────────────────────────────────────────────

    def on_limited(self, runtime: ProjectRuntime, limit: Limit) -> None:
        """A new limit: continue on the fallback profile when the policy says so."""
        if limit.state is not LimitState.LIMITED or limit.swapped_to:
            return
        try:
            agent = self.limits.agents.agent(runtime, limit.agent_id)
            policy = self.limits.policy(runtime)
        except (IdeaError, CommandError) as exc:
            log.warning("fallback policy not read: %s", getattr(exc, "message", exc))
            return
        target = policy.fallback_for(agent.id, agent.profile_id)
        if target is None:
            return
        try:
            self.swap(runtime, agent.id, target, swap_back=policy.swap_back)
        except (IdeaError, CommandError) as exc:
            message = getattr(exc, "message", str(exc))
            self.limits.tell(runtime, f"{agent.name} could not continue on {target}: {message}",
                             "error")

    def swap(self, runtime: ProjectRuntime, name: str, profile_id: str,
             *, swap_back: bool = True) -> Limit | None:
        """Continue a limited agent on `profile_id` now; with `swap_back`, its armed
        resume brings it back to its own profile at the reset."""
        limits = self.limits
        agents = limits.agents
        agent = agents.agent(runtime, name)
        agents.profile(profile_id)  # an unknown profile is refused before anything changes
        if profile_id == agent.profile_id:
            raise CommandError(f"{agent.name} already runs on {profile_id}")
        book = limits.book(runtime)
        limit = book.get(agent.id)
        if limit is None:
            raise CommandError(f"{agent.name} is not at a usage limit "
                               f"(`idea agent set-profile {agent.name} {profile_id}` swaps)",
                               "not_limited")
        original = limit.swapped_from or agent.profile_id
        self._switch(runtime, agent.id, profile_id)
        if swap_back and profile_id != original:
            book.swapped(agent.id, agent.profile_id, profile_id)
            limit.swapped_from = original
        else:
            book.clear(agent.id)
        self._prompt_first(runtime, agent.id, FALLBACK_PROMPT)
        limits.tell(runtime, f"{agent.name} continues on {profile_id} while its limit lasts"
                    + (" (back at the reset)" if swap_back and limit.fire_at else ""))
        return book.get(agent.id)
