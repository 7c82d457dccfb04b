"""What the daemon records about agents between runs, beside the layouts.

Leaves of `layouts.json` say which agent a cell hosts, whether it was running and its
conversation id (SWP-4); agents running with no cell are recorded in
`.ideai/run/background.json`. These records are what a restarted daemon offers to resume.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adapters.store.atomic import read_json, write_json_atomic
from core.agents.agent import Agent
from core.errors import IdeaError
from core.layout import ops
from core.layout.model import iter_leaves
from idea_daemon.runtime import ProjectRuntime

if TYPE_CHECKING:
    from idea_daemon.service import WorkspaceService

RUN_DIR = Path(".ideai") / "run"
BACKGROUND_FILE = "background.json"


class AgentRecords:
    """Reads and writes the agent records of open projects."""

    def __init__(self, service: WorkspaceService) -> None:
        self.service = service

    def _agent_leaf(self, runtime: ProjectRuntime, agent_id: str) -> str | None:
        for layout in runtime.layouts.layouts:
            for leaf in iter_leaves(layout.tree.root):
                if leaf.agent == agent_id:
                    return leaf.id
        return None

    def _was_running(self, runtime: ProjectRuntime, agent_id: str,
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
        entry = self._load_background(runtime).get(agent_id)
        conversation = entry.get("conversationId") if entry else None
        return conversation if isinstance(conversation, str) else None

    def _record_conversation(self, runtime: ProjectRuntime, agent_id: str,
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
            self.service.save_layouts(runtime)
        entries = self._load_background(runtime)
        if agent_id in entries:
            entries[agent_id]["conversationId"] = conversation_id
            self._write_background(runtime, entries)

    def _mark_stopped(self, runtime: ProjectRuntime, agent_id: str) -> None:
        self._set_running_flag(runtime, agent_id, False)
        self._forget_background(runtime, agent_id)

    def _set_running_flag(self, runtime: ProjectRuntime, agent_id: str, running: bool) -> None:
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
            self.service.save_layouts(runtime)

    def _forget_conversation(self, runtime: ProjectRuntime, agent_id: str) -> None:
        for layout in runtime.layouts.layouts:
            tree = layout.tree
            for leaf in iter_leaves(tree.root):
                if leaf.agent == agent_id and leaf.conversation_id:
                    tree = ops.replace_leaf(tree, leaf.id, replace(leaf, conversation_id=None))
            runtime.set_tree(layout.id, tree)
        self.service.save_layouts(runtime)

    def _background_path(self, runtime: ProjectRuntime) -> Path:
        return Path(runtime.root) / RUN_DIR / BACKGROUND_FILE

    def _load_background(self, runtime: ProjectRuntime) -> dict[str, dict[str, Any]]:
        try:
            data = read_json(self._background_path(runtime))
        except (FileNotFoundError, IdeaError):
            return {}
        agents = data.get("agents", {}) if isinstance(data, dict) else {}
        return {k: v for k, v in agents.items() if isinstance(v, dict)}

    def _record_background(self, runtime: ProjectRuntime, agent: Agent,
                           conversation_id: str | None, running: bool) -> None:
        entries = self._load_background(runtime)
        entries[agent.id] = {"conversationId": conversation_id, "running": running}
        self._write_background(runtime, entries)

    def _forget_background(self, runtime: ProjectRuntime, agent_id: str) -> None:
        entries = self._load_background(runtime)
        if entries.pop(agent_id, None) is not None:
            self._write_background(runtime, entries)

    def _write_background(self, runtime: ProjectRuntime, entries: dict[str, Any]) -> None:
        path = self._background_path(runtime)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(path, {"version": 1, "agents": entries})
