"""Preparing an agent's invocation: run dir, composed context, argv, cwd and environment
(FEATURES.md PRF-6..PRF-8, DECISIONS D7, D19, D22).

The composed context is written to `.ideai/run/<agent-id>/context.md` (and, for the
conventionFile strategy, to the file the CLI looks for, in the run dir): the user's own
CLAUDE.md or AGENTS.md in the project are never touched. Every strategy gets the same text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from adapters.store.background_store import RUN_DIR
from core.agents.agent import Agent
from core.agents.argv import command_line, render_cwd, render_env
from core.agents.context import ContextSections, compose_context
from core.agents.errors import UnsafePath
from core.agents.profile import AgentProfile, ConventionFile, SessionMode
from core.agents.skills import SkillSections
from core.ids import id_problem
from idea_daemon.knowledge_sections import MEMORY_SECTIONS, project_context_section
from idea_daemon.runtime import ProjectRuntime
from idea_daemon.session import SpawnSpec

CONTEXT_FILE = "context.md"


@dataclass(frozen=True, slots=True)
class PreparedLaunch:
    spec: SpawnSpec
    content: str
    """The composed context (what the stdin strategy types)."""
    sections: ContextSections
    """What `content` was composed from (the refresh fingerprint starts from it)."""


@dataclass(frozen=True, slots=True)
class LaunchKnowledge:
    """What a launch reads from files: the persona, the assigned skills, the conversations'
    handoffs, the project context and memory. An async launch reads it in an executor
    thread (`AgentRuntime.launch_async`): the loop never waits on those reads."""

    agent_id: str
    profile_id: str
    mcp: bool
    """Composed for an agent that reaches idea's MCP tools (or not): a launch whose agent,
    profile or MCP reach changed meanwhile reads again."""
    persona: str
    skills: SkillSections | None
    resume: str | None
    project_context: str | None
    memory: str | None


def read_knowledge(
    runtime: ProjectRuntime,
    agent: Agent,
    profile_id: str,
    persona: str,
    *,
    mcp: bool,
    skills: Callable[[], SkillSections | None],
    resume: Callable[[], str | None],
) -> LaunchKnowledge:
    """Blocking reads only (no loop state is touched): safe in an executor thread."""
    return LaunchKnowledge(
        agent_id=agent.id,
        profile_id=profile_id,
        mcp=mcp,
        persona=persona,
        skills=skills(),
        resume=resume(),
        project_context=project_context_section(runtime.root, mcp=mcp),
        memory=MEMORY_SECTIONS.section(runtime.root, f"{agent.name}\n{persona}", mcp=mcp),
    )


def context_sections(
    runtime: ProjectRuntime,
    persona: str,
    work_root: str | None = None,
    orchestration: str | None = None,
    skills: SkillSections | None = None,
    resume: str | None = None,
    state: str | None = None,
    *,
    agent_name: str = "",
    mcp: bool = False,
    knowledge: LaunchKnowledge | None = None,
) -> ContextSections:
    """The sections an agent gets. The project context and memory are bounded
    (idea_daemon/knowledge_sections.py), and so is `state`, the live state (LIV-5); `mcp`
    says whether the agent reads them through idea's tools or as files. `knowledge`: those
    two as already read (off the loop), else they are read now."""
    if knowledge is not None:
        project_context, memory = knowledge.project_context, knowledge.memory
    else:
        project_context = project_context_section(runtime.root, mcp=mcp)
        memory = MEMORY_SECTIONS.section(runtime.root, f"{agent_name}\n{persona}", mcp=mcp)
    return ContextSections(
        project_root=(
            f"You work in the project `{runtime.name}`, rooted at `{runtime.root}`. "
            "Read, edit and run commands there."
            if work_root is None
            else f"You work in the project `{runtime.name}` in your own git worktree at "
            f"`{work_root}` (a checkout of `{runtime.root}` on your own branch): read, edit, "
            "run commands and commit there, never in the main checkout."
        ),
        orchestration=orchestration,
        skills=skills.listing if skills else None,
        project_context=project_context,
        persona=persona,
        skill_bodies=skills.bodies if skills else None,
        resume=resume,
        memory=memory,
        state=state,
    )


def run_dir_of(root: str, agent_id: str) -> Path:
    """`.ideai/run/<agent-id>/`, checked before any I/O: the id is one safe path component
    and no symbolic link (a clone may commit `.ideai/run` as one) leads it out of `.ideai/`.

    Raises:
        UnsafePath: The id or the folder is refused.
    """
    problem = id_problem(agent_id)
    if problem is not None:
        raise UnsafePath(agent_id, "agent id", problem)
    ideai = Path(root) / ".ideai"
    run_dir = Path(root) / RUN_DIR / agent_id
    if not run_dir.resolve().is_relative_to(ideai.resolve()):
        raise UnsafePath(str(run_dir), "run folder", "a symbolic link leads it outside .ideai/")
    return run_dir


def prepare_launch(
    runtime: ProjectRuntime,
    agent: Agent,
    profile: AgentProfile,
    persona: str,
    conversation_id: str | None,
    mode: SessionMode,
    *,
    base_env: dict[str, str],
    with_mcp: bool,
    work_root: str | None = None,
    orchestration: str | None = None,
    skills: SkillSections | None = None,
    mcp_config: Callable[[Path], Path | None] | None = None,
    resume: str | None = None,
    state: str | None = None,
    knowledge: LaunchKnowledge | None = None,
) -> PreparedLaunch:
    """Write the run dir's files and build what to spawn.

    Raises:
        PlaceholderError: A profile template names a value that cannot be given.
        UnsafePath: The run dir or the conversation id is refused (see `run_dir_of`).
    """
    run_dir = run_dir_of(runtime.root, agent.id)
    # A recorded conversation id goes into argv (`--resume ID`): `-x` must not be an option.
    conversation_problem = None if conversation_id is None else id_problem(conversation_id)
    if conversation_id is not None and conversation_problem is not None:
        raise UnsafePath(conversation_id, "recorded conversation id", conversation_problem)
    run_dir.mkdir(parents=True, exist_ok=True)
    mcp = with_mcp and profile.mcp is not None and mcp_config is not None
    sections = context_sections(
        runtime, persona, work_root, orchestration, skills, resume=resume, state=state,
        agent_name=agent.name, mcp=mcp, knowledge=knowledge)
    content = compose_context(sections)
    context_path = run_dir / CONTEXT_FILE
    context_path.write_text(content, encoding="utf-8")
    if isinstance(profile.context_injection, ConventionFile):
        context_path = run_dir / profile.context_injection.target
        context_path.parent.mkdir(parents=True, exist_ok=True)
        context_path.write_text(content, encoding="utf-8")
    values = {
        "projectRoot": work_root or runtime.root,
        "runDir": str(run_dir),
        "path": str(context_path),
        "content": content,
        "conversationId": conversation_id or "",
    }
    mcp_path = None
    if with_mcp and profile.mcp is not None and mcp_config is not None:
        written = mcp_config(run_dir)
        mcp_path = str(written) if written is not None else None
    if mcp_path is None:
        # No MCP server for this launch: leave the profile's MCP block out rather than
        # point the CLI at a config that does not exist.
        profile = replace(profile, mcp=None)
    argv = command_line(profile, values, session=mode, mcp_path=mcp_path)
    env = dict(base_env)
    env.update(render_env(profile, values, mcp_path=mcp_path))
    env["IDEA_AGENT"] = agent.id
    env["IDEA_AGENT_NAME"] = agent.name
    env["IDEA_PROJECT"] = runtime.root
    if work_root is not None:
        env["IDEA_WORKTREE"] = work_root
    return PreparedLaunch(SpawnSpec(argv, render_cwd(profile, values), env), content, sections)
