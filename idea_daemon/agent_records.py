"""What the daemon records about agents between runs, beside the layouts.

Leaves of `layouts.json` say which agent a cell hosts, whether it was running and its
conversation id (SWP-4); agents running with no cell are recorded in
`.ideai/run/background.json`. These records are what a restarted daemon offers to resume.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from adapters.store.background_store import BackgroundRecord
from adapters.store.ports import BackgroundStorePort
from core.agents.agent import Agent
from core.errors import StoreError
from core.layout import ops
from core.layout.model import iter_leaves
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.runtime_files import recover

if TYPE_CHECKING:
    from idea_daemon.service import WorkspaceService


class AgentRecords:
    """Reads and writes the agent records of open projects (a collaborator of the agent
    runtime, `idea_daemon.agents.AgentRuntime.records`); `background.json` only through
    its store."""

    def __init__(self, service: WorkspaceService, background: BackgroundStorePort) -> None:
        self.service = service
        self.background = background

    def agent_leaf(self, runtime: ProjectRuntime, agent_id: str) -> str | None:
        for layout in runtime.layouts.layouts:
            for leaf in iter_leaves(layout.tree.root):
                if leaf.agent == agent_id:
                    return leaf.id
        return None

    def was_running(self, runtime: ProjectRuntime, agent_id: str,
                     background: dict[str, BackgroundRecord]) -> bool:
        if agent_id in background:
            return True
        return any(
            leaf.agent == agent_id and leaf.agent_was_running
            for layout in runtime.layouts.layouts
            for leaf in iter_leaves(layout.tree.root)
        )

    def recorded_conversation(self, runtime: ProjectRuntime, agent_id: str) -> str | None:
        for layout in runtime.layouts.layouts:
            for leaf in iter_leaves(layout.tree.root):
                if leaf.agent == agent_id and leaf.conversation_id:
                    return leaf.conversation_id
        entry = self.load_background(runtime).get(agent_id)
        return entry.conversation_id if entry else None

    def record_conversation(self, runtime: ProjectRuntime, agent_id: str,
                             conversation_id: str) -> None:
        changed = False
        for layout in runtime.layouts.layouts:
            tree = layout.tree
            for leaf in iter_leaves(tree.root):
                if leaf.agent == agent_id and leaf.session is not None:
                    tree = ops.replace_leaf(tree, leaf.id,
                                            replace(leaf, conversation_id=conversation_id))
                    changed = True
            runtime.set_tree(layout.id, tree)
        if changed:
            self.service.persistence.save_layouts(runtime)
        entries = self.load_background(runtime)
        if agent_id in entries:
            entries[agent_id] = replace(entries[agent_id], conversation_id=conversation_id)
            self.write_background(runtime, entries)

    def mark_stopped(self, runtime: ProjectRuntime, agent_id: str) -> None:
        self.set_running_flag(runtime, agent_id, False)
        self.forget_background(runtime, agent_id)

    def set_running_flag(self, runtime: ProjectRuntime, agent_id: str, running: bool) -> None:
        changed = False
        for layout in runtime.layouts.layouts:
            tree = layout.tree
            for leaf in iter_leaves(tree.root):
                if leaf.agent == agent_id and leaf.agent_was_running != running:
                    tree = ops.replace_leaf(tree, leaf.id,
                                            replace(leaf, agent_was_running=running))
                    changed = True
            runtime.set_tree(layout.id, tree)
        if changed:
            self.service.persistence.save_layouts(runtime)

    def forget_conversation(self, runtime: ProjectRuntime, agent_id: str) -> None:
        for layout in runtime.layouts.layouts:
            tree = layout.tree
            for leaf in iter_leaves(tree.root):
                if leaf.agent == agent_id and leaf.conversation_id:
                    tree = ops.replace_leaf(tree, leaf.id, replace(leaf, conversation_id=None))
            runtime.set_tree(layout.id, tree)
        self.service.persistence.save_layouts(runtime)

    def background_path(self, runtime: ProjectRuntime) -> Path:
        return self.background.path(Path(runtime.root))

    def load_background(self, runtime: ProjectRuntime) -> dict[str, BackgroundRecord]:
        """The background agents recorded as running. The file is idea's own runtime state:
        one it cannot read is set aside (and reported) so that recording starts afresh."""
        try:
            return self.background.load(Path(runtime.root))
        except StoreError as exc:
            message, _ = recover(exc, self.background_path(runtime),
                                 "no background agent is offered for resuming")
            runtime.problems.append(message)
            self.service.persistence.notify_problem(runtime, message)
            return {}

    def record_background(self, runtime: ProjectRuntime, agent: Agent,
                           conversation_id: str | None, running: bool) -> None:
        entries = self.load_background(runtime)
        entries[agent.id] = BackgroundRecord(conversation_id, running)
        self.write_background(runtime, entries)

    def forget_background(self, runtime: ProjectRuntime, agent_id: str) -> None:
        entries = self.load_background(runtime)
        if entries.pop(agent_id, None) is not None:
            self.write_background(runtime, entries)

    def write_background(self, runtime: ProjectRuntime,
                         entries: dict[str, BackgroundRecord]) -> None:
        """Save the records; a failure is said on the status line and logged (this runs
        when an agent exits by itself too, where no command could report it)."""
        try:
            self.background.save(Path(runtime.root), entries)
        except StoreError as exc:
            self.service.persistence.store_failed(f"background {runtime.root}", runtime, exc)
        else:
            self.service.persistence.store_saved(f"background {runtime.root}")
