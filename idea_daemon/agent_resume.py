"""Resuming agents after a restart or a reopen (FEATURES.md SWP-3, LAY-7, DECISIONS D20).

What was running is read from the records (`idea_daemon.agent_records`); each agent is
relaunched once, where it was, with its profile's resume arguments and recorded
conversation when the profile can resume, else afresh.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from core.agents.profile import AgentProfile
from core.errors import IdeaError
from idea_daemon.agent_launch import LaunchKnowledge
from idea_daemon.agent_status import AgentStatus
from idea_daemon.lookups import CellRef
from idea_daemon.runtime import ProjectRuntime


class CellFinder(Protocol):
    def find_cell(self, cell_id: str) -> CellRef: ...


class Workspace(Protocol):
    @property
    def lookups(self) -> CellFinder: ...


class ConversationRecords(Protocol):
    def recorded_conversation(self, runtime: ProjectRuntime, agent_id: str) -> str | None: ...


class ResumeHost(Protocol):
    """What resuming needs of the agent runtime (`idea_daemon.agents.AgentRuntime`)."""

    @property
    def service(self) -> Workspace: ...

    def live(self, runtime: ProjectRuntime) -> Mapping[str, object]: ...

    def status(self, runtime: ProjectRuntime) -> list[AgentStatus]: ...

    def profile(self, profile_id: str) -> AgentProfile: ...

    @property
    def records(self) -> ConversationRecords: ...

    def resumable(self, runtime: ProjectRuntime) -> list[dict[str, Any]]: ...

    def launch(self, runtime: ProjectRuntime, name: str, *, where: str,
               cell: CellRef | None = None, resume: bool = False,
               force: bool = False, knowledge: LaunchKnowledge | None = None) -> AgentStatus: ...


def resumable(agents: ResumeHost, runtime: ProjectRuntime) -> list[dict[str, Any]]:
    """Agents that were running when the daemon (or the project) last stopped."""
    live = agents.live(runtime)
    found = []
    for status in agents.status(runtime):
        if status.state != "resumable" or status.agent.id in live:
            continue
        try:
            profile = agents.profile(status.agent.profile_id)
            supported = bool(profile.session and profile.session.resume_supported)
        except IdeaError:
            supported = False
        found.append(
            {
                "agent": status.agent.name,
                "agentId": status.agent.id,
                "cell": status.cell,
                "background": status.cell is None,
                "conversationId": agents.records.recorded_conversation(runtime, status.agent.id),
                "resumeSupported": supported,
            }
        )
    return found


def resume(
    agents: ResumeHost, runtime: ProjectRuntime, names: list[str] | None,
    knowledge: Mapping[str, LaunchKnowledge] | None = None,
) -> list[AgentStatus]:
    """Relaunch resumable agents where they were (each once, LAY-7). `knowledge`: agent id →
    its launch's file reads, already done off the loop (the others are read now)."""
    read = knowledge or {}
    done = []
    for entry in agents.resumable(runtime):
        wanted = names is None or entry["agent"] in names or entry["agentId"] in names
        if not wanted:
            continue
        if entry["cell"] is not None:
            cell = agents.service.lookups.find_cell(entry["cell"])
            done.append(
                agents.launch(
                    runtime, entry["agentId"], where="cell", cell=cell, resume=True, force=True,
                    knowledge=read.get(entry["agentId"]),
                )
            )
        else:
            done.append(agents.launch(runtime, entry["agentId"], where="background", resume=True,
                                      knowledge=read.get(entry["agentId"])))
    return done
