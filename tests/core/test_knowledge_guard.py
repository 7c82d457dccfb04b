"""The FileGuard's policy (CTX-3): N readers or one writer, Busy and Forbidden."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.knowledge.errors import Busy, Forbidden
from core.knowledge.guard import (
    USER_PARTY,
    AgentContext,
    GuardedResource,
    GuardTable,
    Lease,
    Memory,
    MemoryIndex,
    Party,
    ProjectContext,
)

DEV = Party("a-dev", "Dev")
QA = Party("a-qa", "QA")
LEAD = Party("a-lead", "Lead", orchestrator=True)


def test_readers_share_and_a_writer_waits_for_them() -> None:
    table = GuardTable()
    one = table.try_read(DEV, Memory("x"))
    two = table.try_read(QA, Memory("x"))
    with pytest.raises(Busy, match="memory note 'x' is being read by Dev"):
        table.try_write(QA, Memory("x"))
    table.release(one)
    table.release(two)
    lease = table.try_write(QA, Memory("x"))
    with pytest.raises(Busy, match="written by QA"):
        table.try_read(DEV, Memory("x"))
    with pytest.raises(Busy):
        table.try_write(DEV, Memory("x"))
    table.try_write(DEV, Memory("y"))  # another file is another lock
    table.release(lease)
    assert table.holders(Memory("x")) == (0, False)


def test_a_waiting_writer_holds_back_new_readers() -> None:
    table = GuardTable()
    reader = table.try_read(DEV, MemoryIndex())
    table.wait_to_write(MemoryIndex())
    with pytest.raises(Busy, match="about to be written"):
        table.try_read(QA, MemoryIndex())
    table.release(reader)
    table.stop_waiting(MemoryIndex())
    table.release(table.try_write(QA, MemoryIndex()))
    assert table.held() == 0


def test_only_the_user_or_the_orchestrator_writes_the_project_context() -> None:
    table = GuardTable()
    with pytest.raises(Forbidden, match="idea_context_propose"):
        table.try_write(DEV, ProjectContext())
    table.release(table.try_write(USER_PARTY, ProjectContext()))
    table.release(table.try_write(LEAD, ProjectContext()))
    table.release(table.try_read(DEV, ProjectContext()))  # everyone may read it
    table.release(table.try_write(DEV, AgentContext("a-qa")))  # personas: any agent
    assert table.held() == 0


RESOURCES: list[GuardedResource] = [Memory("a"), Memory("b"), MemoryIndex(),
                                    AgentContext("x"), ProjectContext()]
PARTIES = [DEV, QA, LEAD, USER_PARTY]

step = st.tuples(st.sampled_from(["read", "write", "release", "wait", "unwait"]),
                 st.sampled_from(RESOURCES), st.sampled_from(PARTIES), st.integers(0, 50))


@given(st.lists(step, max_size=120))
def test_no_sequence_ever_mixes_a_writer_with_anyone(steps: list[tuple[str, GuardedResource,
                                                                       Party, int]]) -> None:
    table = GuardTable()
    held: list[Lease] = []
    waiting: dict[GuardedResource, int] = {}
    for action, resource, party, pick in steps:
        if action == "read":
            try:
                held.append(table.try_read(party, resource))
            except Busy:
                assert any(lease.resource == resource and lease.write for lease in held) \
                    or waiting.get(resource, 0) > 0
        elif action == "write":
            try:
                held.append(table.try_write(party, resource))
            except Forbidden:
                assert isinstance(resource, ProjectContext) and not party.orchestrator
            except Busy:
                assert any(lease.resource == resource for lease in held)
        elif action == "release" and held:
            table.release(held.pop(pick % len(held)))
        elif action == "wait":
            table.wait_to_write(resource)
            waiting[resource] = waiting.get(resource, 0) + 1
        elif action == "unwait" and waiting.get(resource):
            table.stop_waiting(resource)
            waiting[resource] -= 1
        for res in RESOURCES:
            mine = [lease for lease in held if lease.resource == res]
            writers = [lease for lease in mine if lease.write]
            assert len(writers) <= 1
            assert not writers or len(mine) == 1
            assert table.holders(res) == (len(mine) - len(writers), bool(writers))
    for lease in held:
        table.release(lease)
    for resource, count in waiting.items():
        for _ in range(count):
            table.stop_waiting(resource)
    assert table.held() == 0
