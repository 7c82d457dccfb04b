"""Parameters of the commands on agents, their personas, templates and profiles, as msgspec
Structs (see `adapters.ipc.params`); their answers are in `answers_agents.py`.

A command that acts on one agent (or template, or profile) requires it by name or id, and a
blank one is refused at the boundary naming the field, before the daemon looks anything up.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from adapters.ipc.params import NoParams, Params
from adapters.ipc.params_workspace import ProjectParams

Text = Annotated[str, msgspec.Meta(pattern=r"\S")]
"""Text with something in it besides blanks."""


class AgentParams(ProjectParams, kw_only=True):
    agent: str | None = None
    """An agent by name or id, when the command may go without one."""


class RefreshParams(AgentParams, kw_only=True):
    target: str | None = None
    """Without `agent`: the agent of this cell (a target string; "" for the focused one)."""


class NamedAgentParams(ProjectParams, kw_only=True):
    agent: Text
    """The agent's name or id."""


class AgentNewParams(ProjectParams, kw_only=True):
    name: Text
    profile: str | None = None
    template: str | None = None
    sync: bool = False


class AgentRenameParams(NamedAgentParams, kw_only=True):
    name: Text


class AgentForceParams(NamedAgentParams, kw_only=True):
    force: bool = False


class AgentLaunchParams(NamedAgentParams, kw_only=True):
    target: str | None = None
    background: bool = False
    split: bool = False
    direction: str | None = None
    resume: bool = False
    force: bool = False
    move: bool = False
    worktree: bool | str | None = None
    """Run in the agent's own git worktree: true, or a branch name (D28)."""


class AgentRestartParams(NamedAgentParams, kw_only=True):
    resume: bool = False


class AgentProfileParams(NamedAgentParams, kw_only=True):
    profile: Text
    force: bool = False


class AgentsParams(ProjectParams, kw_only=True):
    all: bool = False
    agents: list[str] | None = None


class AgentSetSyncParams(NamedAgentParams, kw_only=True):
    on: bool = False


class PersonaWriteParams(NamedAgentParams, kw_only=True):
    content: str | None = None
    """The Markdown (required; refused above the persona limit)."""
    revision: str | None = None
    """The revision the edit started from (agent_persona_read): a change since asks first."""
    force: bool = False


class TemplateNewParams(Params, kw_only=True):
    name: Text
    content: str = ""
    profile: str | None = None


class TemplateParams(Params, kw_only=True):
    template: Text
    """A template by id."""


class TemplateUpdateParams(TemplateParams, kw_only=True):
    content: str | None = None
    name: str | None = None


class ProfileSaveParams(Params, kw_only=True):
    profiles: list[Any] | None = None
    """Profiles in the profiles.json format (checked by the profiles codec)."""


class ProfileFileParams(Params, kw_only=True):
    file: str | None = None
    profile: Any = None
    """A profile in the profiles.json format, when no file is named."""


class ProfileIdParams(Params, kw_only=True):
    profile: Text


AGENT_PARAMS: dict[str, type[Params]] = {
    "agent_list": ProjectParams,
    "agent_new": AgentNewParams,
    "agent_rename": AgentRenameParams,
    "agent_rm": AgentForceParams,
    "agent_path": NamedAgentParams,
    "agent_launch": AgentLaunchParams,
    "agent_stop": NamedAgentParams,
    "agent_restart": AgentRestartParams,
    "agent_set_profile": AgentProfileParams,
    "agent_resumable": AgentsParams,
    "agent_resume": AgentsParams,
    "agent_sync": AgentForceParams,
    "agent_set_sync": AgentSetSyncParams,
    "agent_persona_read": NamedAgentParams,
    "agent_persona_write": PersonaWriteParams,
    "agent_refresh": RefreshParams,
    "template_list": NoParams,
    "template_new": TemplateNewParams,
    "template_show": TemplateParams,
    "template_update": TemplateUpdateParams,
    "template_rm": TemplateParams,
    "template_install_pack": NoParams,
    "profile_list": NoParams,
    "profile_save": ProfileSaveParams,
    "profile_add": ProfileFileParams,
    "profile_edit": ProfileFileParams,
    "profile_rm": ProfileIdParams,
    "profile_detect": NoParams,
}
