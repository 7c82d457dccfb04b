"""Conversations in the daemon: what launches, resumes and the viewer ask of them.

The recorder (`recorder.py`) does the file work in its worker; this module ties it to the
daemon: the pair's log gets every delegated task and reply (through the orchestration
service), rotation runs when a project opens and when agents resume (LOG-5), a launch gets
`# Conversation resume` (LOG-2, SWP-2), each profile's resumable session id is kept in the
agent's user↔agent conversation (LOG-4: one CLI process per agent, CNV-6, so its session
belongs to the thread the user sees in its cell), and the viewer reads pages and searches
(LOG-6, LOG-7) in an executor. Problems reach the project's problems and the status line.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from adapters.conversations.store import LOG
from adapters.ipc import answers_knowledge as kn
from core.agents.agent import Agent
from core.agents.profile import AgentProfile
from core.conversations.ids import USER, conversation_id, party_uuid
from core.conversations.resume import Thread, resume_section
from core.conversations.turns import Role, Turn
from idea_daemon.conversations.recorder import ConversationRecorder
from idea_daemon.runtime import ProjectRuntime

if TYPE_CHECKING:
    from idea_daemon.agents import AgentRuntime
    from idea_daemon.service import WorkspaceService

log = logging.getLogger(__name__)

USER_LABEL = "the user"


class Conversations:
    def __init__(
        self,
        service: WorkspaceService,
        agents: AgentRuntime,
        recorder: ConversationRecorder | None = None,
    ) -> None:
        self.service = service
        self.agents = agents
        self.recorder = recorder or ConversationRecorder()
        self.recorder.report = self._report
        self.notify: Callable[[str | None, str, str], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        service.hooks.open_handlers.append(self._on_open)

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        for runtime in list(self.service.projects.values()):
            self._on_open(runtime)

    async def stop(self) -> None:
        await asyncio.get_running_loop().run_in_executor(None, self.recorder.close)

    # ─── recording ───────────────────────────────────────────────────────────────────

    def record(self, root: str, a: str, b: str, source: str, role: Role, text: str) -> Turn | None:
        return self.recorder.record(root, a, b, source, role, text)

    def _on_open(self, runtime: ProjectRuntime) -> None:
        """Rotation at project open (LOG-5): in the worker, best-effort."""
        self.recorder.rotate(runtime.root)

    def _report(self, root: str, message: str) -> None:
        """From the worker thread: hop to the loop before touching the daemon's state."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._report_now, root, message)

    def _report_now(self, root: str, message: str) -> None:
        runtime = self.service.projects.get(root)
        if runtime is None:
            return
        if message not in runtime.problems:
            runtime.problems.append(message)
        if self.notify is not None:
            window = self.service.lookups.window_of_project(runtime)
            self.notify(window.id if window else None, message, "error")

    # ─── launches (the hooks of idea_daemon.agents) ──────────────────────────────────

    def parties(self, runtime: ProjectRuntime, agent_id: str) -> list[tuple[str, str]]:
        """(party id, label) of everyone `agent_id` may have talked to: the user first."""
        found = [(USER, USER_LABEL)]
        for other in self.agents.manifest(runtime).agents:
            if other.id != agent_id:
                found.append((other.id, other.name))
        return found

    def resume_section(self, runtime: ProjectRuntime, agent: Agent) -> str | None:
        """`# Conversation resume`: the agent's most recent handoffs, bounded (LOG-2)."""
        try:
            on_disk = set(self.recorder.files(runtime.root).conversations())
            threads = []
            for party, label in self.parties(runtime, agent.id):
                cid = conversation_id(agent.id, party)
                if cid not in on_disk and not self.recorder.known(runtime.root, cid):
                    continue
                handoff, at_ms = self.recorder.handoff(runtime.root, cid)
                if handoff is not None:
                    threads.append(Thread(label, handoff, at_ms))
            return resume_section(threads)
        except Exception:  # a launch goes on without the section rather than fail
            log.exception("resume section of %s not built", agent.name)
            return None

    def resumable_id(
        self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile
    ) -> str | None:
        """The session id this profile last had for the agent (LOG-4), if any."""
        return self.recorder.providers(runtime.root, agent.id, USER).get(profile.id)

    def conversation_started(
        self, runtime: ProjectRuntime, agent: Agent, profile: AgentProfile, resumable: str
    ) -> None:
        self.recorder.set_provider(runtime.root, agent.id, USER, profile.id, resumable)

    def resuming(self, runtime: ProjectRuntime) -> None:
        """Rotation at resume (LOG-5)."""
        self.recorder.rotate(runtime.root)

    # ─── reading (the viewer, `idea conversation show`) ──────────────────────────────

    def resolve_party(self, runtime: ProjectRuntime, name: str) -> tuple[str, str]:
        """(party id, label) of `user` or an agent's name or id."""
        if name.strip().lower() in (USER, "me"):
            return USER, USER_LABEL
        agent = self.agents.agent(runtime, name)
        return agent.id, agent.name

    async def page(self, runtime: ProjectRuntime, a: str, b: str, segment: int | None,
                   ) -> kn.ConversationPage:
        """One log file of the pair {a, b}: the active one, or archived `segment`."""
        (left, left_label), (right, right_label) = (self.resolve_party(runtime, a),
                                                    self.resolve_party(runtime, b))
        cid = conversation_id(left, right)
        labels = {left: left_label, right: right_label}
        files = self.recorder.files(runtime.root)
        await asyncio.get_running_loop().run_in_executor(None, self.recorder.drain)

        def read() -> kn.ConversationPage:
            segments = files.segments(cid)
            if segment is not None and segment not in segments:
                raise LookupError(segment)
            got = files.read(cid, segment)
            return kn.ConversationPage(
                conversation=cid,
                parties=[left_label, right_label],
                segments=segments,
                segment=segment,
                turns=[_turn_info(turn, labels) for turn in got.turns],
                problems=got.problems,
            )

        return await asyncio.get_running_loop().run_in_executor(None, read)

    async def listing(self, runtime: ProjectRuntime,
                      agent: str | None) -> list[kn.ConversationSummary]:
        """The project's conversations on disk, with both sides named, most recent first."""
        names = {str(party_uuid(USER)): USER_LABEL}
        ids = {str(party_uuid(USER)): USER}
        for other in self.agents.manifest(runtime).agents:
            names[str(party_uuid(other.id))] = other.name
            ids[str(party_uuid(other.id))] = other.id
        only = self.resolve_party(runtime, agent)[0] if agent else None
        files = self.recorder.files(runtime.root)
        await asyncio.get_running_loop().run_in_executor(None, self.recorder.drain)

        def scan() -> list[kn.ConversationSummary]:
            found = []
            for cid in files.conversations():
                sides = _sides(cid, names)
                if only is not None and (sides is None or only not in (ids[sides[0]],
                                                                        ids[sides[1]])):
                    continue
                try:
                    changed = (files.folder(cid) / LOG).stat().st_mtime_ns // 1_000_000
                except OSError:
                    changed = 0
                found.append(kn.ConversationSummary(
                    conversation=cid,
                    parties=[names[s] for s in sides] if sides else None,
                    party_ids=[ids[s] for s in sides] if sides else None,
                    segments=len(files.segments(cid)),
                    changed_at_ms=changed,
                ))
            return sorted(found, key=lambda entry: -entry.changed_at_ms)

        return await asyncio.get_running_loop().run_in_executor(None, scan)

    async def search(self, runtime: ProjectRuntime, a: str, b: str, query: str,
                     limit: int = 200) -> kn.ConversationSearch:
        """Turns of every segment of {a, b} whose text holds `query` (case-insensitive)."""
        (left, left_label), (right, right_label) = (self.resolve_party(runtime, a),
                                                    self.resolve_party(runtime, b))
        cid = conversation_id(left, right)
        labels = {left: left_label, right: right_label}
        files = self.recorder.files(runtime.root)
        needle = query.casefold()

        def scan() -> kn.ConversationSearch:
            hits: list[kn.SearchHit] = []
            for segment in [*files.segments(cid), None]:
                for index, turn in enumerate(files.read(cid, segment).turns):
                    if needle in turn.text.casefold() and len(hits) < limit:
                        hits.append(kn.SearchHit(
                            segment=segment, index=index, id=turn.id, at_ms=turn.at_ms,
                            source=labels.get(turn.source, turn.source), role=turn.role,
                            text=turn.text))
            return kn.ConversationSearch(conversation=cid, query=query, hits=hits)

        return await asyncio.get_running_loop().run_in_executor(None, scan)


def _sides(cid: str, names: dict[str, str]) -> tuple[str, str] | None:
    """The two known parties (their UUIDs as strings) whose XOR is `cid`, if any."""
    target = uuid.UUID(cid).int
    for known in names:
        other = str(uuid.UUID(int=target ^ uuid.UUID(known).int))
        if other in names and other != known:
            return (known, other) if known < other else (other, known)
    return None


def _turn_info(turn: Turn, labels: dict[str, str]) -> kn.Turn:
    return kn.Turn(id=turn.id, at_ms=turn.at_ms, source=labels.get(turn.source, turn.source),
                   role=turn.role, text=turn.text)
