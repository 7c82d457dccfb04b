"""Typing a composed context into an agent CLI (the `stdin` strategy, D19).

Through a PTY, stdin is typed input: the text must arrive once the CLI shows its prompt
(the profile's prompt-ready pattern, else the first quiet spell after some output), as a
bracketed paste when the CLI enabled it (so newlines do not submit line by line), then the
profile's submit sequence after its delay. Writes never block the daemon: the session
queues what the PTY does not take at once (a context over 8 KB included).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time

from core.agents.profile import AgentProfile
from core.keys import wrap_paste
from idea_daemon.session import TerminalSession

log = logging.getLogger(__name__)

READY_TIMEOUT = 15.0
QUIET_SPELL = 0.4
POLL = 0.05
_PENDING: set[asyncio.Task[None]] = set()


def deliver_stdin(session: TerminalSession, content: str, profile: AgentProfile) -> None:
    """Schedule the delivery; returns at once."""
    task = asyncio.get_running_loop().create_task(_deliver(session, content, profile))
    # The loop keeps only weak references to tasks: hold it until it is done.
    _PENDING.add(task)
    task.add_done_callback(_PENDING.discard)


def _screen_text(session: TerminalSession) -> str:
    emulator = session.emulator
    return "\n".join(emulator.row_text(y).rstrip() for y in range(emulator.rows))


async def _wait_ready(session: TerminalSession, pattern: re.Pattern[str] | None) -> bool:
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline and session.running:
        if pattern is not None:
            if pattern.search(_screen_text(session)):
                return True
        elif session.last_output and time.monotonic() - session.last_output >= QUIET_SPELL:
            return True
        await asyncio.sleep(POLL)
    return session.running


async def _deliver(session: TerminalSession, content: str, profile: AgentProfile) -> None:
    pattern = None
    if profile.prompt_ready_pattern:
        try:
            pattern = re.compile(profile.prompt_ready_pattern, re.MULTILINE)
        except re.error:
            log.warning("profile %s: bad promptReadyPattern, waiting for quiet", profile.id)
    if not await _wait_ready(session, pattern):
        log.warning("agent %s: not ready, context not typed", session.agent_name)
        return
    data = wrap_paste(content, session.emulator.modes, keep_newlines=True)
    if not session.write(data):
        log.error("agent %s: context refused (input backlog full)", session.agent_name)
        return
    await asyncio.sleep(profile.submit_delay_ms / 1000)
    session.write(profile.submit_sequence.encode())
