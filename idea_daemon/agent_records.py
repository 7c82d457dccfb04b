"""What the daemon records about agents between runs, beside the layouts.

Leaves of `layouts.json` say which agent a cell hosts, whether it was running and its
conversation id (SWP-4); agents running with no cell are recorded in
`.ideai/run/background.json`. These records are what a restarted daemon offers to resume.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adapters.store._reader import JsonReader, key_at
from adapters.store.atomic import ensure_directory, read_json, replace_json
from core.agents.agent import Agent
from core.errors import StoreError
from core.layout import ops
from core.layout.model import iter_leaves
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.runtime_files import recover

if TYPE_CHECKING:
    from idea_daemon.service import WorkspaceService

RUN_DIR = Path(".ideai") / "run"
BACKGROUND_FILE = "background.json"


class AgentRecords:
    """Reads and writes the agent records of open projects (a collaborator of the agent
    runtime, `idea_daemon.agents.AgentRuntime.records`)."""

    def __init__(self, service: WorkspaceService) -> None:
        self.service = service

    def agent_leaf(self, runtime: ProjectRuntime, agent_id: str) -> str | None:
        for layout in runtime.layouts.layouts:
            for leaf in iter_leaves(layout.tree.root):
                if leaf.agent == agent_id:
                    return leaf.id
        return None

    def was_running(self, runtime: ProjectRuntime, agent_id: str,
                     background: dict[str, dict[str, Any]]) -> bool:
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
        conversation = entry.get("conversationId") if entry else None
        return conversation if isinstance(conversation, str) else None

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
            entries[agent_id]["conversationId"] = conversation_id
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
        return Path(runtime.root) / RUN_DIR / BACKGROUND_FILE

    def load_background(self, runtime: ProjectRuntime) -> dict[str, dict[str, Any]]:
        """The background agents recorded as running. The file is idea's own runtime state:
        one it cannot read is set aside (and reported) so that recording starts afresh."""
        path = self.background_path(runtime)
        try:
            return decode_background(read_json(path), str(path))
        except FileNotFoundError:
            return {}
        except StoreError as exc:
            message, _ = recover(exc, path, "no background agent is offered for resuming")
            runtime.problems.append(message)
            self.service.persistence.notify_problem(runtime, message)
            return {}

    def record_background(self, runtime: ProjectRuntime, agent: Agent,
                           conversation_id: str | None, running: bool) -> None:
        entries = self.load_background(runtime)
        entries[agent.id] = {"conversationId": conversation_id, "running": running}
        self.write_background(runtime, entries)

    def forget_background(self, runtime: ProjectRuntime, agent_id: str) -> None:
        entries = self.load_background(runtime)
        if entries.pop(agent_id, None) is not None:
            self.write_background(runtime, entries)

    def write_background(self, runtime: ProjectRuntime, entries: dict[str, Any]) -> None:
        """Save the records; a failure is said on the status line and logged (this runs
        when an agent exits by itself too, where no command could report it)."""
        path = self.background_path(runtime)
        try:
            ensure_directory(path.parent)
            replace_json(path, {"version": 1, "agents": entries},
                         lambda data: decode_background(data, str(path)))
        except StoreError as exc:
            self.service.persistence.store_failed(f"background {runtime.root}", runtime, exc)
        else:
            self.service.persistence.store_saved(f"background {runtime.root}")


def decode_background(data: object, source: str) -> dict[str, dict[str, Any]]:
    """`{"version": 1, "agents": {agentId: {"conversationId", "running"}}}`.

    Raises:
        CorruptFile: Another shape; NewerVersion: a newer idea wrote it.
    """
    read = JsonReader(source)
    top = read.mapping(data, "")
    read.version(top, 1)
    agents = read.mapping(top.get("agents", {}), "agents")
    for agent_id, entry in agents.items():
        at = key_at("agents", agent_id)
        read.mapping(entry, at)
        read.optional_text(entry, "conversationId", at)
        read.flag(entry, "running", at)
    return dict(agents)
