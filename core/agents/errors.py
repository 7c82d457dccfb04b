"""Errors of agents, profiles and templates (FEATURES.md AGT, PRF, TPL), worded for users."""

from __future__ import annotations

from core.errors import IdeaError


class AgentError(IdeaError):
    """An agent, an AI profile or a template breaks a rule, or an operation cannot apply."""


class InvalidProfile(AgentError):
    """A profile value breaks a rule (FEATURES.md PRF-1, PRF-5).

    `key` uses the JSON spelling of `profiles.json` (e.g. `contextInjection.target`), so the
    codec can point at the exact spot of the file the user wrote.
    """

    def __init__(self, profile_id: str, key: str, detail: str) -> None:
        super().__init__(f"Profile {profile_id.strip() or '(no id)'}: {key}: {detail}.")
        self.profile_id = profile_id
        self.key = key
        self.detail = detail


class PlaceholderError(AgentError):
    """A placeholder of a profile template cannot be filled in (no value, or a bad one)."""

    def __init__(self, name: str, detail: str) -> None:
        super().__init__(f"Cannot fill in {{{name}}}: {detail}.")
        self.name = name
        self.detail = detail


class ProfileNotFound(AgentError):
    """No configured profile has that id (nor is it an alias of one)."""

    def __init__(self, profile_id: str) -> None:
        super().__init__(
            f"There is no AI profile {profile_id!r}; add it with `idea profile add` or pick "
            "another profile for this agent."
        )
        self.profile_id = profile_id


class DuplicateProfile(AgentError):
    """Two profiles would share an id."""

    def __init__(self, profile_id: str) -> None:
        super().__init__(f"A profile with id {profile_id!r} already exists; edit it instead.")
        self.profile_id = profile_id


class UnsafePath(AgentError):
    """A path that must stay inside a folder (`.ideai/`, the run dir) could leave it."""

    def __init__(self, path: str, what: str, detail: str) -> None:
        super().__init__(f"The {what} {path!r} is refused: {detail}.")
        self.path = path
        self.what = what
        self.detail = detail


class EmptyName(AgentError):
    """An agent or a template needs a non-blank name."""

    def __init__(self, what: str) -> None:
        super().__init__(f"A {what} needs a name.")
        self.what = what


class AgentNotFound(AgentError):
    """No agent matches an id, a name or an id prefix."""

    def __init__(self, query: str) -> None:
        super().__init__(f"There is no agent {query!r} in this project.")
        self.query = query


class AmbiguousAgent(AgentError):
    """An id prefix (or a name used twice) matches several agents."""

    def __init__(self, query: str, names: list[str]) -> None:
        super().__init__(f"{query!r} matches several agents ({', '.join(names)}); be more precise.")
        self.query = query
        self.names = names


class DuplicateAgent(AgentError):
    """Two agents of one manifest would share an id, a name or a Markdown file.

    Attributes:
        field: `id`, `name` or `mdPath`.
        value: The shared value.
    """

    def __init__(self, field: str, value: str) -> None:
        wording = {"id": "id", "name": "name", "mdPath": "Markdown file"}.get(field, field)
        super().__init__(f"Another agent already has the {wording} {value!r}.")
        self.field = field
        self.value = value


class SynchronizedWithoutTemplate(AgentError):
    """Only an agent made from a template can be kept in sync with it (AGT-1)."""

    def __init__(self, agent: str) -> None:
        super().__init__(
            f"Agent {agent} cannot be kept in sync: it was not created from a template."
        )
        self.agent = agent


class NotFromTemplate(AgentError):
    """A sync of an agent with a template it was not created from (or a scratch agent)."""

    def __init__(self, agent: str, template_id: str) -> None:
        super().__init__(f"Agent {agent} was not created from template {template_id!r}.")
        self.agent = agent
        self.template_id = template_id


class NotSynchronized(AgentError):
    """An automatic sync of an agent whose owner turned sync off (TPL-5)."""

    def __init__(self, agent: str) -> None:
        super().__init__(
            f"Agent {agent} is not kept in sync with its template; turn sync on or run a "
            "one-shot sync."
        )
        self.agent = agent


class MissingPersona(AgentError):
    """The Markdown persona of an agent is not on disk (at launch, or when read)."""

    def __init__(self, agent: str, path: str) -> None:
        super().__init__(
            f"The persona of agent {agent} is missing: {path} does not exist. Restore the file "
            "or recreate the agent."
        )
        self.agent = agent
        self.path = path


class TemplateNotFound(AgentError):
    """No template has that id (it may have been deleted)."""

    def __init__(self, template_id: str) -> None:
        super().__init__(f"There is no template {template_id!r}.")
        self.template_id = template_id


class DuplicateTemplate(AgentError):
    """A template with that id already exists."""

    def __init__(self, template_id: str) -> None:
        super().__init__(f"A template with id {template_id!r} already exists.")
        self.template_id = template_id


class AgentAlreadyRunning(AgentError):
    """A fresh launch of an agent that is live elsewhere (AGT-6, code AGENT_ALREADY_RUNNING).

    Attributes:
        cell_id: The cell showing the live session, or None when it runs in the background.
    """

    code = "AGENT_ALREADY_RUNNING"

    def __init__(self, agent: str, cell_id: str | None) -> None:
        where = f"in cell {cell_id}" if cell_id is not None else "in the background"
        super().__init__(f"Agent {agent} is already running {where}; go to it, or move it here.")
        self.agent = agent
        self.cell_id = cell_id


class InvalidSkill(AgentError):
    """A skill's name or body breaks a rule (SKL-1): empty, too long (the limit is in the
    message), not one line."""

    def __init__(self, field: str, detail: str) -> None:
        super().__init__(f"The skill's {field} {detail}.")
        self.field = field
        self.detail = detail


class SkillNotFound(AgentError):
    """No skill has that id or name (in that scope)."""

    def __init__(self, query: str, scope: str | None = None) -> None:
        where = f" {scope}" if scope else ""
        super().__init__(
            f"There is no{where} skill {query!r}; `idea skill list` shows the skills."
        )
        self.query = query
        self.scope = scope


class AmbiguousSkill(AgentError):
    """Several skills of one scope share a name (possible only in a hand-edited index)."""

    def __init__(self, query: str, ids: list[str]) -> None:
        super().__init__(
            f"Several skills are called {query!r} ({', '.join(ids)}); name one by its id."
        )
        self.query = query
        self.ids = ids


class DuplicateSkill(AgentError):
    """A skill of that scope already has that name."""

    def __init__(self, name: str, scope: str) -> None:
        super().__init__(
            f"A {scope} skill called {name!r} already exists; edit it, or pick another name."
        )
        self.name = name
        self.scope = scope
