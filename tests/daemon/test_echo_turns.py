"""While a typed key's echo is due, other cells parse one chunk per turn of the loop (a
flooding cell beside the typed one must not keep the echo waiting); the typed cell, and
every cell once the echo's frame went out, read full turns."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from adapters.emulator.backends import choose
from idea_daemon import echo_turns
from idea_daemon import session as session_module
from idea_daemon.echo_turns import EchoFirst
from idea_daemon.session import READ_BUDGET, READ_CHUNK, TerminalSession
from tests.fakes import FakePty

# Under a pipe's 64 KiB, so the fake program's write never blocks.
FLOOD = b"x" * (4 * READ_CHUNK)
assert len(FLOOD) <= READ_BUDGET


def test_other_cells_read_short_turns_until_the_echo_was_sent() -> None:
    turns = EchoFirst()
    assert not turns.short_turn("flood", 0.0)
    turns.typed("typed", now=10.0)
    assert turns.short_turn("flood", 10.01)
    assert not turns.short_turn("typed", 10.01)
    turns.echoed("flood")  # another cell's frame: the echo is still due
    assert turns.short_turn("flood", 10.02)
    turns.echoed("typed")
    assert not turns.short_turn("flood", 10.03)


def test_a_program_that_does_not_echo_holds_the_others_back_for_a_moment_only() -> None:
    turns = EchoFirst()
    turns.typed("typed", now=10.0)
    assert not turns.short_turn("flood", 10.0 + echo_turns.ECHO_TURNS)


@pytest.fixture
def flooding(
        monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TerminalSession, FakePty, EchoFirst]]:
    # A turn's time limit out of the way: the bytes read per turn do not depend on how fast
    # this machine parses.
    monkeypatch.setattr(session_module, "READ_TIME_BUDGET", 60.0)
    turns = EchoFirst()
    session = TerminalSession(
        id="flood",
        emulator=choose("pyte").factory(80, 24, 100),
        on_change=lambda session: None,
        on_exit=lambda session: None,
        on_event=lambda session, event: None,
        short_turn=turns.short_turn,
        input_waiting=turns.input_waiting,
    )
    pty = FakePty(["cat"], "/", {}, 80, 24)
    session.pty = pty
    yield session, pty, turns
    pty.close()


def unread(pty: FakePty) -> int:
    left = 0
    while (data := pty.read(1 << 20)):
        left += len(data)
    return left


def test_a_flooding_cell_reads_one_chunk_while_another_cells_echo_is_due(
        flooding: tuple[TerminalSession, FakePty, EchoFirst]) -> None:
    session, pty, turns = flooding
    pty.output(FLOOD)
    turns.typed("typed")
    session._on_readable()
    assert unread(pty) == len(FLOOD) - READ_CHUNK


def test_a_flooding_cell_reads_a_full_turn_otherwise(
        flooding: tuple[TerminalSession, FakePty, EchoFirst]) -> None:
    session, pty, turns = flooding
    pty.output(FLOOD)
    turns.typed("flood")  # its own echo: no reason to hold back
    session._on_readable()
    assert unread(pty) == 0


def test_a_watched_clients_unread_input_is_seen_until_it_is_read() -> None:
    import socket

    turns = EchoFirst()
    client, daemon_side = socket.socketpair()
    with client, daemon_side:
        assert not turns.input_waiting()  # nothing watched
        turns.watch_input(daemon_side.fileno())
        assert not turns.input_waiting()
        client.send(b"k")
        assert turns.input_waiting()
        assert daemon_side.recv(16) == b"k"
        assert not turns.input_waiting()
        client.send(b"k")
        turns.unwatch_input(daemon_side.fileno())
        assert not turns.input_waiting()  # a client gone is not watched
        turns.unwatch_input(daemon_side.fileno())  # twice: nothing to do


def test_a_flooding_cell_ends_its_turn_at_the_next_chunk_when_a_client_sent_input(
        flooding: tuple[TerminalSession, FakePty, EchoFirst]) -> None:
    import socket

    session, pty, turns = flooding
    client, daemon_side = socket.socketpair()
    with client, daemon_side:
        turns.watch_input(daemon_side.fileno())
        pty.output(FLOOD)
        session._on_readable()
        assert unread(pty) == 0  # no input: the full turn
        pty.output(FLOOD)
        client.send(b"key")  # a key waits on the client's socket
        session._on_readable()
        assert unread(pty) == len(FLOOD) - READ_CHUNK  # the first chunk only
        turns.unwatch_input(daemon_side.fileno())


def test_work_that_can_wait_starts_after_the_echo_or_its_deadline() -> None:
    import asyncio
    import time

    async def scenario() -> list[str]:
        turns = EchoFirst()
        said: list[str] = []

        async def work(name: str) -> None:
            await turns.after_echo()
            said.append(name)

        await work("nothing due")  # no key typed: at once
        turns.typed("typed")
        waiting = asyncio.ensure_future(work("after the echo"))
        await asyncio.sleep(0.01)
        assert not waiting.done()  # held while the echo is on its way
        turns.echoed("other")  # another cell's frame: still held
        await asyncio.sleep(0)
        assert not waiting.done()
        turns.echoed("typed")
        await waiting
        turns.typed("typed")  # a program that never echoes: held until the deadline only
        started = time.monotonic()
        await work("after the deadline")
        assert time.monotonic() - started >= echo_turns.ECHO_TURNS * 0.9
        turns.typed("typed")
        cancelled = asyncio.ensure_future(work("cancelled"))
        await asyncio.sleep(0)
        cancelled.cancel()
        await asyncio.gather(cancelled, return_exceptions=True)
        assert turns._waiting == []  # a cancelled wait leaves nothing behind
        return said

    assert asyncio.run(scenario()) == ["nothing due", "after the echo", "after the deadline"]
