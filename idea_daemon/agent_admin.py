"""Agents and templates as files: create, rename, delete, templates, drift and sync
(FEATURES.md AGT-3, TPL-1..TPL-5, DECISIONS D24).

The pure rules live in `core.agents`; this module reads and writes through the stores and
tells the user about drift ("update available") when a project opens and after every
template update. Nothing here is lost: a sync over local edits backs the file up first, and
deleting an agent keeps its Markdown under `.ideai/run/trash/`.
"""

from __future__ import annotations

import re
import shutil
import time
import uuid
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adapters.agents.team_pack import load_team_pack
from adapters.store.ports import TemplateStorePort
from core.agents.agent import (
    Agent,
    create_agent,
    remove_agent,
    rename_agent,
    replace_agent,
    starter_persona,
)
from core.agents.errors import DuplicateTemplate
from core.agents.templates import (
    AgentTemplate,
    Drift,
    TemplateDraft,
    apply_sync,
    detect_drift,
    plan_sync,
    template_origin,
)
from core.errors import IdeaError, StoreError
from idea_daemon.errors import CommandError, ConfirmationNeeded
from idea_daemon.runtime import ProjectRuntime

if TYPE_CHECKING:
    from idea_daemon.agents import AgentRuntime

TRASH = Path(".ideai") / "run" / "trash"


def template_id_for(name: str, taken: set[str]) -> str:
    """A readable, unique template id from its name ("Backend Dev" → "backend-dev")."""
    base = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "template"
    candidate, number = base, 2
    while candidate in taken:
        candidate, number = f"{base}-{number}", number + 1
    return candidate


class AgentAdmin:
    def __init__(self, agents: AgentRuntime, templates: TemplateStorePort) -> None:
        self.agents = agents
        self.templates = templates

    # ─── agents ──────────────────────────────────────────────────────────────────────

    def create(
        self,
        runtime: ProjectRuntime,
        name: str,
        profile_id: str | None,
        template_id: str | None,
        synchronized: bool,
    ) -> Agent:
        """A new agent, from scratch or from a template (TPL-3)."""
        manifest = self.agents.manifest(runtime)
        root = Path(runtime.root)
        taken = (
            {
                p.relative_to(root / ".ideai").as_posix()
                for p in (root / ".ideai" / "agents").glob("*.md")
            }
            if (root / ".ideai" / "agents").is_dir()
            else set()
        )
        if template_id is not None:
            template = self._template(template_id)
            profile = profile_id or template.default_profile_id or "claude-code"
            self.agents.profile(profile)
            manifest, agent = create_agent(
                manifest,
                str(uuid.uuid4()),
                name,
                profile,
                origin=template_origin(template),
                synchronized=synchronized,
                also_taken=taken,
            )
            content = template.content_md
        else:
            if synchronized:
                raise CommandError("only an agent made from a template can stay in sync")
            profile = profile_id or "claude-code"
            self.agents.profile(profile)
            manifest, agent = create_agent(
                manifest, str(uuid.uuid4()), name, profile, also_taken=taken
            )
            content = starter_persona(name)
        self.agents.persona_store.write(root, agent.md_path, content, overwrite=False)
        self.agents.save_manifest(runtime, manifest)
        return agent

    def rename(self, runtime: ProjectRuntime, name: str, new_name: str) -> Agent:
        agent = self.agents.agent(runtime, name)
        manifest = rename_agent(self.agents.manifest(runtime), agent.id, new_name)
        self.agents.save_manifest(runtime, manifest)
        renamed = manifest.get(agent.id)
        assert renamed is not None
        return renamed

    def delete(self, runtime: ProjectRuntime, name: str, force: bool) -> Agent:
        agent = self.agents.agent(runtime, name)
        session = self.agents.session_of_agent(runtime, agent.id)
        if not force:
            running = " It is running and will be stopped." if session else ""
            raise ConfirmationNeeded(
                f"Delete agent {agent.name}?{running} Its Markdown is kept in {TRASH}/."
            )
        if session is not None:
            self.agents.stop(runtime, agent.id)
        root = Path(runtime.root)
        persona = self.agents.persona_store.path(root, agent.md_path)
        if persona.exists():
            trash = root / TRASH
            trash.mkdir(parents=True, exist_ok=True)
            shutil.move(str(persona), str(trash / f"{persona.stem}-{int(time.time())}.md"))
        self.agents.save_manifest(runtime, remove_agent(self.agents.manifest(runtime), agent.id))
        self._forget_cells(runtime, agent.id)
        return agent

    def _forget_cells(self, runtime: ProjectRuntime, agent_id: str) -> None:
        from core.layout import ops
        from core.layout.model import iter_leaves

        for layout in runtime.layouts.layouts:
            tree = layout.tree
            for leaf in iter_leaves(tree.root):
                if leaf.agent == agent_id:
                    tree = ops.replace_leaf(
                        tree,
                        leaf.id,
                        replace(leaf, agent=None, agent_was_running=False, conversation_id=None),
                    )
            runtime.set_tree(layout.id, tree)
        self.agents.service.persistence.save_layouts(runtime)
        for layout in runtime.terminal_layouts():
            self.agents.service.programs.resync_page(runtime, layout.id)

    def persona_path(self, runtime: ProjectRuntime, name: str) -> str:
        agent = self.agents.agent(runtime, name)
        return str(self.agents.persona_store.path(Path(runtime.root), agent.md_path))

    # ─── templates ───────────────────────────────────────────────────────────────────

    def _template(self, template_id: str) -> AgentTemplate:
        snapshot = self.templates.load()
        by_id = snapshot.by_id()
        if template_id in by_id:
            return by_id[template_id]
        matches = [t for t in snapshot.templates if t.name.lower() == template_id.lower()]
        if len(matches) == 1:
            return matches[0]
        return self.templates.get(template_id)  # raises TemplateNotFound

    def template_list(self) -> dict[str, Any]:
        snapshot = self.templates.load()
        return {
            "templates": [_describe_template(t) for t in snapshot.templates],
            "editedOutside": [edit.template_id for edit in snapshot.edited_outside],
            "problems": [problem.message for problem in snapshot.problems],
        }

    def template_new(self, name: str, content: str, profile_id: str | None) -> AgentTemplate:
        taken = {t.id for t in self.templates.load().templates}
        draft = TemplateDraft(name, content, profile_id or "claude-code")
        return self.templates.create(template_id_for(name, taken), draft)

    def template_update(
        self, template_id: str, content: str | None, name: str | None
    ) -> AgentTemplate:
        template = self._template(template_id)
        self.templates.reconcile()
        kwargs: dict[str, Any] = {}
        if content is not None:
            kwargs["content_md"] = content
        if name is not None:
            kwargs["name"] = name
        return self.templates.update(template.id, **kwargs)

    def template_delete(self, template_id: str) -> AgentTemplate:
        template = self._template(template_id)
        self.templates.delete(template.id)
        return template

    def install_team_pack(self) -> list[AgentTemplate]:
        """The "software team" pack: created, or refreshed when already installed."""
        installed = []
        existing = {t.name: t for t in self.templates.load().templates}
        for draft in load_team_pack():
            if draft.name in existing:
                installed.append(
                    self.templates.update(existing[draft.name].id, content_md=draft.content_md)
                )
                continue
            taken = {t.id for t in self.templates.load().templates}
            try:
                installed.append(self.templates.create(template_id_for(draft.name, taken), draft))
            except DuplicateTemplate:
                continue
        return installed

    # ─── drift and sync ──────────────────────────────────────────────────────────────

    def drift(self, runtime: ProjectRuntime) -> list[Drift]:
        try:
            templates = self.templates.load().by_id()
            manifest = self.agents.manifest(runtime)
        except (StoreError, CommandError):
            return []
        return detect_drift(manifest, templates)

    def sync(self, runtime: ProjectRuntime, name: str, force: bool) -> dict[str, Any]:
        """Bring an agent's Markdown to its template's content (TPL-5, D24)."""
        agent = self.agents.agent(runtime, name)
        self.templates.reconcile()
        origin_id = getattr(agent.origin, "template_id", None)
        if origin_id is None:
            raise CommandError(f"{agent.name} was not made from a template")
        template = self.templates.get(origin_id)
        root = Path(runtime.root)
        current = self.agents.persona_store.load(root, agent.md_path)
        # The backup is named after the local file's last change, not the clock: the name
        # shown when asking is then the name written when the user confirms.
        persona = self.agents.persona_store.path(root, agent.md_path)
        try:
            stamp = int(persona.stat().st_mtime * 1000)
        except OSError:
            stamp = int(time.time() * 1000)
        plan = plan_sync(agent, template, current, now_ms=stamp, one_shot=True)
        if plan.conflict and not force:
            raise ConfirmationNeeded(
                f"{agent.md_path} was edited since its last sync: syncing replaces it with "
                f"template {template.name} v{template.version}; your version is kept in "
                f"{plan.backup_path}. Continue?"
            )
        if plan.backup_path is not None and current is not None:
            self.agents.persona_store.write(root, plan.backup_path, current, overwrite=False)
        if plan.write:
            self.agents.persona_store.write(root, plan.md_path, plan.content)
        manifest = apply_sync(self.agents.manifest(runtime), plan)
        self.agents.save_manifest(runtime, manifest)
        return {
            "agent": agent.name,
            "template": template.name,
            "version": plan.to_version,
            "status": plan.status.name.lower(),
            "backup": plan.backup_path,
        }

    def set_synchronized(self, runtime: ProjectRuntime, name: str, on: bool) -> Agent:
        agent = self.agents.agent(runtime, name)
        if on and getattr(agent.origin, "template_id", None) is None:
            raise CommandError(f"{agent.name} was not made from a template")
        updated = replace(agent, synchronized=on)
        self.agents.save_manifest(runtime, replace_agent(self.agents.manifest(runtime), updated))
        return updated

    def drift_messages(self, runtime: ProjectRuntime) -> list[str]:
        manifest = None
        try:
            manifest = self.agents.manifest(runtime)
        except (CommandError, IdeaError):
            return []
        names = {agent.id: agent.name for agent in manifest.agents}
        return [
            f"agent {names.get(d.agent_id, d.agent_id)}: template update available "
            f"(v{d.from_version} → v{d.to_version}); `idea agent sync "
            f"{names.get(d.agent_id, d.agent_id)}`"
            for d in self.drift(runtime)
        ]


def _describe_template(template: AgentTemplate) -> dict[str, Any]:
    return {
        "id": template.id,
        "name": template.name,
        "version": template.version,
        "contentHash": template.content_hash,
        "defaultProfileId": template.default_profile_id,
        "lines": template.content_md.count("\n") + 1,
    }
