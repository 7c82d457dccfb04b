"""The FileGuard's policy (FEATURES.md CTX-3): N readers or one writer per guarded file.

The guarded set is closed: an agent's persona, the project context, one memory note, and
the memory index (every note write updates it, so two writers of different notes must
still take turns there). This module decides; the daemon's `idea_daemon.file_guard` waits.

- A read is granted unless a writer holds the file or waits for it (writers are not starved
  by a stream of readers).
- A write is granted when nobody holds the file.
- The project context has a single writer (CTX-2): only the user or the agent the user made
  orchestrator may take its write lease; anyone else is `Forbidden` and proposes instead.

The guard is cooperative: an agent with a shell can still write the files directly; what it
guarantees is that writes made through idea never interleave.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.knowledge.errors import Busy, Forbidden


@dataclass(frozen=True, slots=True)
class AgentContext:
    agent_id: str

    def describe(self) -> str:
        return f"the persona of agent {self.agent_id}"


@dataclass(frozen=True, slots=True)
class ProjectContext:
    def describe(self) -> str:
        return "the project context (.ideai/CONTEXT.md)"


@dataclass(frozen=True, slots=True)
class Memory:
    slug: str

    def describe(self) -> str:
        return f"memory note {self.slug!r}"


@dataclass(frozen=True, slots=True)
class MemoryIndex:
    def describe(self) -> str:
        return "the memory index (MEMORY.md)"


GuardedResource = AgentContext | ProjectContext | Memory | MemoryIndex


@dataclass(frozen=True, slots=True)
class Party:
    """Who asks for a lease: an agent (its id and name) or the user."""

    id: str
    name: str
    orchestrator: bool = False
    """The user, or the agent the user designated: may write the project context."""


USER_PARTY = Party("user", "the user", orchestrator=True)


@dataclass(frozen=True, slots=True)
class Lease:
    resource: GuardedResource
    party: Party
    write: bool
    number: int


@dataclass(slots=True)
class _State:
    readers: dict[int, Party] = field(default_factory=dict)
    writer: Lease | None = None
    writers_waiting: int = 0

    @property
    def idle(self) -> bool:
        return not self.readers and self.writer is None and not self.writers_waiting


class GuardTable:
    """The leases held, per resource. Not thread-safe: the daemon's loop owns it."""

    def __init__(self) -> None:
        self._states: dict[GuardedResource, _State] = {}
        self._next = 0

    def _state(self, resource: GuardedResource) -> _State:
        return self._states.setdefault(resource, _State())

    def _lease(self, resource: GuardedResource, party: Party, write: bool) -> Lease:
        self._next += 1
        return Lease(resource, party, write, self._next)

    def check_write_allowed(self, party: Party, resource: GuardedResource) -> None:
        """Raises Forbidden when `party` may never write `resource` (no waiting helps)."""
        if isinstance(resource, ProjectContext) and not party.orchestrator:
            raise Forbidden(
                resource.describe(), party.name,
                "it has a single writer, the user (or the agent the user made orchestrator). "
                "Call idea_context_propose with the new text: the user reviews and accepts it.",
            )

    def try_read(self, party: Party, resource: GuardedResource) -> Lease:
        """Raises Busy while a writer holds or waits for `resource`."""
        state = self._state(resource)
        if state.writer is not None:
            raise Busy(resource.describe(), f"written by {state.writer.party.name}")
        if state.writers_waiting:
            raise Busy(resource.describe(), "about to be written")
        lease = self._lease(resource, party, write=False)
        state.readers[lease.number] = party
        return lease

    def try_write(self, party: Party, resource: GuardedResource) -> Lease:
        """Raises Forbidden (see `check_write_allowed`), or Busy while anyone holds it."""
        self.check_write_allowed(party, resource)
        state = self._state(resource)
        if state.writer is not None:
            raise Busy(resource.describe(), f"written by {state.writer.party.name}")
        if state.readers:
            reader = next(iter(state.readers.values()))
            raise Busy(resource.describe(), f"read by {reader.name}")
        lease = self._lease(resource, party, write=True)
        state.writer = lease
        return lease

    def wait_to_write(self, resource: GuardedResource) -> None:
        """A writer waits for `resource`: readers arriving now wait behind it."""
        self._state(resource).writers_waiting += 1

    def stop_waiting(self, resource: GuardedResource) -> None:
        state = self._state(resource)
        state.writers_waiting = max(0, state.writers_waiting - 1)
        self._forget_if_idle(resource)

    def release(self, lease: Lease) -> None:
        state = self._states.get(lease.resource)
        if state is None:
            return
        if lease.write:
            if state.writer is not None and state.writer.number == lease.number:
                state.writer = None
        else:
            state.readers.pop(lease.number, None)
        self._forget_if_idle(lease.resource)

    def _forget_if_idle(self, resource: GuardedResource) -> None:
        state = self._states.get(resource)
        if state is not None and state.idle:
            del self._states[resource]

    def holders(self, resource: GuardedResource) -> tuple[int, bool]:
        """(readers, writer held) — for tests and diagnostics."""
        state = self._states.get(resource)
        if state is None:
            return 0, False
        return len(state.readers), state.writer is not None

    def held(self) -> int:
        """Resources with any lease or waiting writer (0 when everything is released)."""
        return len(self._states)
