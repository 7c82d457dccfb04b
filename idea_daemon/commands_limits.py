"""Commands of session limits (issue 10, SLM-7): `idea agent resume NAME --at|--now|--cancel|
--not-limited`, continuing on another profile, the fallback policy, and the test clock."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from adapters.ipc import answers_limits as lim
from adapters.ipc import params_limits as rpc
from core.session_limits.timeparse import parse_reset
from idea_daemon.client_connection import ClientConnection
from idea_daemon.command_table import command, entries
from idea_daemon.commands_workspace import _project
from idea_daemon.errors import CommandError
from idea_daemon.server import DaemonServer

if TYPE_CHECKING:
    from idea_daemon.session_limits.resumer import Resumer
    from idea_daemon.session_limits.service import SessionLimitService


def _limits(server: DaemonServer) -> SessionLimitService:
    found: SessionLimitService | None = getattr(server, "session_limits", None)
    if found is None:
        raise CommandError("session limits are not available in this daemon")
    return found


def _resumer(server: DaemonServer) -> Resumer:
    found: Resumer | None = getattr(server, "limit_resumer", None)
    if found is None:
        raise CommandError("session limits are not available in this daemon")
    return found


def set_resume_at(server: DaemonServer, client: ClientConnection,
                  p: rpc.ResumeAtParams) -> lim.LimitAnswer:
    """Arm (or move) the agent's resume: the human path of SLM-4."""
    limits = _limits(server)
    runtime = _project(server, client, p.project)
    at = parse_reset(p.at, limits.now(), limits.clock.zone)
    if at is None:
        raise CommandError(f"{p.at!r} is not a time: give HH:MM, 3:40am, "
                           "2026-12-01T17:00:00Z or 'in 20m'", "bad_request")
    limit = limits.set_resume_at(runtime, p.agent, at)
    return lim.LimitAnswer(agent=limit.agent_name, limit=limits.info(runtime, limit.agent_id))


def resume_now(server: DaemonServer, client: ClientConnection,
               p: rpc.LimitAgentParams) -> lim.LimitAnswer:
    limits = _limits(server)
    runtime = _project(server, client, p.project)
    limit = limits.resume_now(runtime, p.agent)
    # Fire at once rather than at the watcher's next look.
    due = limits.book(runtime).due(limits.now())
    for entry in due:
        if limits.on_due is not None:
            limits.on_due(runtime, entry)
    return lim.LimitAnswer(agent=limit.agent_name,
                           resumed=any(e.agent_id == limit.agent_id for e in due),
                           limit=limits.info(runtime, limit.agent_id))


def cancel_resume(server: DaemonServer, client: ClientConnection,
                  p: rpc.LimitAgentParams) -> lim.LimitAnswer:
    """True iff a resume was armed and is now disarmed (SLM-7); the agent stays limited."""
    limits = _limits(server)
    runtime = _project(server, client, p.project)
    agent = limits.agents.agent(runtime, p.agent)
    cancelled = limits.cancel(runtime, agent.id)
    return lim.LimitAnswer(agent=agent.name, cancelled=cancelled,
                           limit=limits.info(runtime, agent.id))


def not_limited(server: DaemonServer, client: ClientConnection,
                p: rpc.LimitAgentParams) -> lim.LimitAnswer:
    """The answer "not a limit" (to a suspicion, level 3: the agent is not restarted, its
    task goes on), or "not any more" (a limit idea saw): its queue moves again."""
    limits = _limits(server)
    runtime = _project(server, client, p.project)
    agent, was = limits.not_limited(runtime, p.agent)
    return lim.LimitAnswer(agent=agent.name, was=was.value,
                           limit=limits.info(runtime, agent.id))


def limit_swap(server: DaemonServer, client: ClientConnection,
               p: rpc.LimitSwapParams) -> lim.LimitAnswer:
    """Continue a limited agent on another profile now (persona and handoff kept)."""
    runtime = _project(server, client, p.project)
    agent = _limits(server).agents.agent(runtime, p.agent)
    _resumer(server).swap(runtime, agent.id, p.profile, swap_back=p.swap_back)
    return lim.LimitAnswer(agent=agent.name, profile=p.profile,
                           limit=_limits(server).info(runtime, agent.id))


def limit_fallback(server: DaemonServer, client: ClientConnection,
                   p: rpc.FallbackParams) -> lim.FallbackPolicy:
    """Read or set the fallback policy (`.ideai/fallback.json`)."""
    limits = _limits(server)
    runtime = _project(server, client, p.project)
    policy = limits.policy(runtime)
    if p.profile or p.off:
        if p.profile:
            limits.agents.profile(p.profile)  # unknown profiles are refused
        value = "" if p.off else str(p.profile)
        if p.agent:
            agent = limits.agents.agent(runtime, p.agent)
            if p.off and policy.project == "":
                policy.agents.pop(agent.id, None)
            else:
                policy.agents[agent.id] = value
        else:
            policy.project = value
        try:
            limits.store.save_policy(runtime.root, policy)
        except Exception as exc:
            raise CommandError(getattr(exc, "message", str(exc)), "corrupt") from exc
    names = {agent.id: agent.name for agent in limits.agents.manifest(runtime).agents}
    return lim.FallbackPolicy(
        project=policy.project or None,
        agents={names.get(key, key): value or None for key, value in policy.agents.items()},
        swap_back=policy.swap_back,
    )


def limit_status(server: DaemonServer, client: ClientConnection,
                 p: rpc.LimitStatusParams) -> list[lim.LimitRow]:
    limits = _limits(server)
    runtimes = (list(limits.service.projects.values()) if p.all
                else [_project(server, client, p.project)])
    listed = []
    for runtime in runtimes:
        for agent in limits.agents.manifest(runtime).agents:
            if p.agent and p.agent not in (agent.name, agent.id):
                continue
            info = limits.info(runtime, agent.id)
            if info is not None:
                listed.append(lim.LimitRow.of(info, agent=agent.name, id=agent.id,
                                              project=runtime.name, root=runtime.root))
    return listed


def test_clock(server: DaemonServer, client: ClientConnection,
               p: rpc.TestClockParams) -> lim.ClockSet:
    """Move the frozen test clock (only with IDEA_TEST_CLOCK); the next look acts on it."""
    from idea_daemon.session_limits.clock import FrozenWallClock

    clock = _limits(server).clock
    if not isinstance(clock, FrozenWallClock):
        raise CommandError("the test clock is off (start the daemon with IDEA_TEST_CLOCK)")
    try:
        at = datetime.fromisoformat(p.at.replace("Z", "+00:00"))
    except ValueError:
        raise CommandError(f"{p.at!r} is not an RFC 3339 time", "bad_request") from None
    if at.tzinfo is None:
        raise CommandError("at needs a timezone")
    clock.set(at)
    return lim.ClockSet(now=at.isoformat())


COMMANDS = entries(
    command("set_resume_at", rpc.ResumeAtParams, lim.LimitAnswer, set_resume_at),
    command("resume_now", rpc.LimitAgentParams, lim.LimitAnswer, resume_now),
    command("cancel_resume", rpc.LimitAgentParams, lim.LimitAnswer, cancel_resume),
    command("not_limited", rpc.LimitAgentParams, lim.LimitAnswer, not_limited),
    command("limit_swap", rpc.LimitSwapParams, lim.LimitAnswer, limit_swap),
    command("limit_fallback", rpc.FallbackParams, lim.FallbackPolicy, limit_fallback),
    command("limit_status", rpc.LimitStatusParams, list[lim.LimitRow], limit_status),
    # Refused unless the daemon runs on the frozen test clock (IDEA_TEST_CLOCK).
    command("test_clock", rpc.TestClockParams, lim.ClockSet, test_clock),
)
