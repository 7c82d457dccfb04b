"""Offering a running agent its refreshed context (issue 9, "Refreshing a running agent";
MEM-6, PRN-7: never a stream of updates).

At launch the knowledge sections of the agent's composed context — skills, project context,
memory, live state — are fingerprinted. When knowledge changes (live-state rows, a watched
file under `.ideai/`, or a `changed(root)` from another service), the project's running
agents are re-checked once after `RECHECK_DELAY` (a burst of changes is one check). An
agent whose sections differ *materially* gets `session.context_changed`: its cell title
shows a discreet marker. Material: the text of each section, except that the live state is
compared without its notes (a note changing alone is not worth an agent's attention).

A re-check composes every running agent's knowledge again (profiles, personas, skills,
memory, the project context: file reads). Under a stream of delegations the live state
changes all the time, so that runs about once a second: the reads go to a worker thread
(`Split`: the in-memory part, the live-state rows, is taken on the loop first), and the
loop only compares fingerprints. A PTY's echo never waits behind them.

Nothing reaches the agent until the user accepts (`refresh`): the sections that changed are
then delivered as one message through its FIFO (after its current task, like any line the
user sends), and that becomes its new baseline. The agent is never restarted.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.agents.agent import Agent
from core.agents.context import TITLES, ContextSections
from core.agents.profile import AgentProfile
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.session import TerminalSession

log = logging.getLogger(__name__)

KNOWLEDGE = ("skills", "project_context", "memory", "state", "skill_bodies")
"""The sections that change while an agent runs (its persona and orchestration do not)."""
RECHECK_DELAY = 1.0
POLL_EVERY = 3.0
"""How often the knowledge files are looked at (a stat each) while agents run."""
WATCHED = (".ideai/CONTEXT.md", ".ideai/memory", ".ideai/memory/MEMORY.md", ".ideai/skills",
           ".ideai/skills/index.json", ".ideai/skills/md")
"""What a `stat` tells changed: edits by the user or any tool, without other services
having to report them. The global skill store (`shared`) is looked at the same way, for
every project: its skills can be assigned to any project's agents."""
HEADER = (
    "[idea · context refresh] The project's shared knowledge changed since your context "
    "was composed. These sections replace the ones of the same name in your instructions; "
    "nothing to reply."
)

RESUME_HEADER = (
    "[idea · conversation resume] You were restarted on your earlier conversation, which "
    "keeps the instructions it started with. Your conversations' summaries and the project's "
    "shared knowledge as of now follow; they replace the sections of the same name in your "
    "instructions. Nothing to reply."
)
RESUME_KEEPS_INSTRUCTIONS = "resumeKeepsInstructions"
"""The profile's `session` key saying its CLI resumes a conversation on the instructions it
was started with, whatever the launch passes now (Codex replays its recorded developer
message): the fresh context then goes to it as a first message."""

Knowledge = dict[str, str]
"""Section name → text ("" when absent)."""


def knowledge_of(sections: ContextSections, material_state: str | None = None) -> Knowledge:
    """The knowledge sections of a composed context; `material_state` replaces `state`."""
    found = {name: (getattr(sections, name) or "").strip() for name in KNOWLEDGE}
    if material_state is not None:
        found["state"] = material_state.strip()
    return found


def fingerprint(knowledge: Mapping[str, str]) -> str:
    digest = hashlib.sha256()
    for name in KNOWLEDGE:
        digest.update(name.encode() + b"\0" + knowledge.get(name, "").encode() + b"\0")
    return digest.hexdigest()


def refresh_message(before: Mapping[str, str], now: Mapping[str, str]) -> tuple[str, list[str]]:
    """The message for the agent, and the names of the sections it carries."""
    titles = dict(TITLES)
    parts = [HEADER]
    changed = [name for name in KNOWLEDGE if before.get(name, "") != now.get(name, "")]
    for name in changed:
        body = now.get(name, "") or "(nothing any more)"
        parts.append(f"# {titles[name]}\n\n{body}")
    return "\n\n".join(parts), changed


def resume_keeps_instructions(profile: AgentProfile) -> bool:
    return profile.session is not None and \
        profile.session.extra.get(RESUME_KEEPS_INSTRUCTIONS) is True


def resume_message(sections: ContextSections) -> str | None:
    """The first message of a resumed agent whose CLI kept its old instructions: the
    conversation resume (the handoffs), then the knowledge sections as composed now. None
    when there is no handoff to carry (nothing was said since its instructions)."""
    resume = (sections.resume or "").strip()
    if not resume:
        return None
    titles = dict(TITLES)
    parts = [RESUME_HEADER, f"# {titles['resume']}\n\n{resume}"]
    for name, body in knowledge_of(sections).items():
        if body:
            parts.append(f"# {titles[name]}\n\n{body}")
    return "\n\n".join(parts)


@dataclass
class _Baseline:
    material: Knowledge
    full: Knowledge


Compose = Callable[[ProjectRuntime, Agent, bool], Knowledge]
"""(runtime, agent, material) → the agent's knowledge sections as they would be composed
now; material=True leaves the notes out of the live state."""
Split = Callable[[ProjectRuntime, Agent, bool], Callable[[], Knowledge]]
"""The same composition in two parts: called on the loop it reads what lives in memory
(the live state) and returns the file part, which runs in a worker thread."""
Sessions = Callable[[ProjectRuntime], list[tuple[Agent, TerminalSession]]]


class ContextRefresh:
    def __init__(
        self,
        projects: Mapping[str, ProjectRuntime],
        running: Sessions,
        compose: Compose,
        notify_scene: Callable[[], None],
        shared: Callable[[], Sequence[Path]] = tuple,
        *,
        split: Split | None = None,
    ) -> None:
        """`shared`: paths outside any project whose change may change any project's
        composed contexts (the global skill store's folder, index and Markdown folder)."""
        self.projects = projects
        self.running = running
        self.compose = compose
        self.split = split or (lambda runtime, agent, material: (
            lambda: compose(runtime, agent, material)))
        self.notify_scene = notify_scene
        self.shared = shared
        self._baselines: dict[str, _Baseline] = {}
        """session id → what its knowledge was at launch (or at its last refresh)."""
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._stamps: dict[str, tuple[tuple[int, int], ...]] = {}
        self._poller: asyncio.Task[None] | None = None
        self._checking: dict[str, asyncio.Task[None]] = {}
        """root → the re-check under way (its reads in a worker thread)."""
        self._again: set[str] = set()
        """Roots that changed while their re-check ran: checked once more after it."""
        self.checks = 0
        """Re-checks run so far (tests: a burst is one)."""

    # ─── baseline ────────────────────────────────────────────────────────────────────

    def launched(self, runtime: ProjectRuntime, agent: Agent, session: TerminalSession,
                 sections: ContextSections, material_state: str | None) -> None:
        self._baselines[session.id] = _Baseline(
            knowledge_of(sections, material_state or ""), knowledge_of(sections)
        )
        session.context_changed = False
        self._stamps.setdefault(runtime.root, self._stat(runtime.root))

    def forget(self, session: TerminalSession) -> None:
        self._baselines.pop(session.id, None)

    # ─── noticing changes ────────────────────────────────────────────────────────────

    def changed(self, root: str) -> None:
        """Knowledge of this project may have changed: re-check once, a little later."""
        if root in self._timers:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timers[root] = loop.call_later(RECHECK_DELAY, self._recheck, root)

    def _recheck(self, root: str) -> None:
        self._timers.pop(root, None)
        if root in self._checking:
            self._again.add(root)  # one re-check at a time per project
            return
        task = asyncio.get_running_loop().create_task(self._recheck_off_loop(root))
        self._checking[root] = task
        task.add_done_callback(lambda _t: self._rechecked(root))

    def _rechecked(self, root: str) -> None:
        self._checking.pop(root, None)
        if root in self._again:
            self._again.discard(root)
            self.changed(root)

    async def _recheck_off_loop(self, root: str) -> None:
        runtime = self.projects.get(root)
        if runtime is None:
            return
        self.checks += 1
        work: list[tuple[Agent, TerminalSession, Callable[[], Knowledge]]] = []
        for agent, session in self.running(runtime):
            if session.id not in self._baselines:
                continue
            try:
                work.append((agent, session, self.split(runtime, agent, True)))
            except Exception:
                log.exception("context of %s not re-composed", agent.name)
        if not work:
            return
        loop = asyncio.get_running_loop()
        found = await loop.run_in_executor(None, _compose_all, [w[2] for w in work])
        moved = False
        for (_agent, session, _files), now in zip(work, found, strict=True):
            # Compared with the baseline as it is now (a refresh may have moved it meanwhile).
            baseline = self._baselines.get(session.id)
            if now is None or baseline is None or session.exit_code is not None:
                continue
            stale = fingerprint(now) != fingerprint(baseline.material)
            if stale != session.context_changed:
                session.context_changed = stale
                moved = True
        if moved:
            self.notify_scene()

    def _stat(self, root: str) -> tuple[tuple[int, int], ...]:
        stamps = []
        for path in [*(Path(root) / relative for relative in WATCHED), *self.shared()]:
            try:
                info = os.stat(path)
                stamps.append((info.st_mtime_ns, info.st_size))
            except OSError:
                stamps.append((0, -1))
        return tuple(stamps)

    def poll_once(self) -> None:
        for root, runtime in list(self.projects.items()):
            if not any(s.id in self._baselines for _, s in self.running(runtime)):
                continue
            stamp = self._stat(root)
            if self._stamps.get(root) != stamp:
                self._stamps[root] = stamp
                self.changed(root)

    async def _poll_loop(self) -> None:
        while True:
            await asyncio.sleep(POLL_EVERY)
            try:
                self.poll_once()
            except Exception:
                log.exception("knowledge poll failed")

    def start(self) -> None:
        self._poller = asyncio.get_running_loop().create_task(self._poll_loop())

    def stop(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
        for task in self._checking.values():
            task.cancel()
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    # ─── the user accepts ────────────────────────────────────────────────────────────

    def message_for(self, runtime: ProjectRuntime, agent: Agent,
                    session: TerminalSession) -> tuple[str, list[str]] | None:
        """The refresh message and the sections it carries, taken as the new baseline;
        None when nothing changed."""
        baseline = self._baselines.get(session.id)
        full = self.compose(runtime, agent, False)
        material = self.compose(runtime, agent, True)
        if baseline is not None and fingerprint(material) == fingerprint(baseline.material):
            session.context_changed = False
            return None
        before = baseline.full if baseline is not None else {}
        self._baselines[session.id] = _Baseline(material, full)
        session.context_changed = False
        text, names = refresh_message(before, full)
        with contextlib.suppress(Exception):
            self.notify_scene()
        return (text, names) if names else None


def _compose_all(parts: list[Callable[[], Knowledge]]) -> list[Knowledge | None]:
    """In a worker thread: each agent's file part (None for one that failed)."""
    found: list[Knowledge | None] = []
    for part in parts:
        try:
            found.append(part())
        except Exception:
            log.exception("an agent's knowledge was not re-composed")
            found.append(None)
    return found
