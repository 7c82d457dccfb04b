"""Recording turns: the log append and the handoff fold, off the daemon's loop (LOG-1, LOG-2).

`record` runs on the loop and costs a few microseconds: it builds the turn, notes it as
pending and hands the file work to one worker thread (one, so a conversation's turns reach
its log in the order they were recorded). The worker, per turn: loads the conversation's
handoff the first time (folding any turns the log holds after its `upTo`, left by a crash
between an append and a handoff write), appends the line with fsync, folds the turn, and
schedules the handoff write behind whatever is already queued — a burst of turns costs one
`handoff.md` write — and at most one per `pace` (`HANDOFF_PACE`) per conversation (agents
asking each other all the time would otherwise rewrite it on every turn; the log has every
turn, and `handoff` folds what the file lacks). Rotation and `providers.json` go through the
same worker, so nothing rewrites a log while a turn is being appended to it.

Bookkeeping never fails a delegation: an error is logged and reported to the project's
problems once, and the delegation goes on. A handoff that cannot be parsed is left as it is
(never overwritten); its conversation keeps its log and resumes from nothing.

`handoff` gives the latest handoff of a conversation as of every turn recorded so far, even
those the worker has not reached yet (it folds the pending ones on a copy): what a launch
injects never lags behind a reply that was just recorded.
"""

from __future__ import annotations

import logging
import queue
import random
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from adapters.conversations.store import ConversationFiles
from core.conversations import handoff as handoffs
from core.conversations.handoff import Handoff
from core.conversations.ids import conversation_id
from core.conversations.rotation import RotationPlan
from core.conversations.turns import Role, Turn
from core.errors import CorruptFile, IdeaError

log = logging.getLogger(__name__)

HANDOFF_PACE = 0.5
"""Seconds between two writes of one conversation's `handoff.md`."""

Report = Callable[[str, str], None]
"""(project root, message): a problem worth telling the user (once per conversation)."""


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


_ids = random.Random()


def turn_id() -> str:
    """A random (version 4) UUID drawn in process: `uuid4` reads the kernel's random source,
    a system call that lets the worker take the GIL in the middle of `record`."""
    return str(uuid.UUID(int=_ids.getrandbits(128), version=4))


Work = tuple[Callable[..., object], tuple[object, ...], "Future[object] | None"]


class _Worker:
    """One thread doing the file work in order. Queuing is `SimpleQueue.put` (C, lock-free
    for the caller): the loop never waits for a lock the worker may hold."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Work | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="idea-conversations",
                                        daemon=True)
        self._thread.start()

    def put(self, work: Callable[..., object], *args: object) -> None:
        self._queue.put((work, args, None))

    def submit(self, work: Callable[..., object], *args: object) -> Future[object]:
        future: Future[object] = Future()
        self._queue.put((work, args, future))
        return future

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            work, args, future = item
            try:
                result = work(*args)
            except Exception as error:  # reported; the worker goes on
                if future is not None:
                    future.set_exception(error)
                else:
                    log.error("conversation bookkeeping failed", exc_info=error)
                continue
            if future is not None:
                future.set_result(result)


@dataclass
class _Thread:
    """What the worker knows of one conversation (guarded by the recorder's lock)."""

    handoff: Handoff = handoffs.EMPTY
    loaded: bool = False
    frozen: str | None = None
    """Why the handoff must not be written (it could not be parsed), or None."""
    stamp: tuple[int, int] | None = None
    """(mtime_ns, size) of handoff.md as last read or written: another writer shows."""
    pending: deque[Turn] = field(default_factory=deque)
    """Recorded on the loop, not folded by the worker yet."""
    dirty: bool = False
    flush_queued: bool = False
    at_ms: int = 0
    flushed_at: float = float("-inf")
    """`time.monotonic()` of the last handoff write (pacing)."""


class ConversationRecorder:
    """The conversations of every open project of one daemon."""

    def __init__(
        self,
        report: Report | None = None,
        clock_ms: Callable[[], int] = wall_ms,
        new_id: Callable[[], str] = turn_id,
        pace: float = HANDOFF_PACE,
    ) -> None:
        self.report = report
        self.pace = pace
        self.clock_ms = clock_ms
        self.new_id = new_id
        self._lock = threading.Lock()
        self._threads: dict[tuple[str, str], _Thread] = {}
        self._reported: set[tuple[str, str]] = set()
        self._files: dict[str, ConversationFiles] = {}
        self._worker = _Worker()
        self._paced: dict[tuple[str, str], threading.Timer] = {}
        """Handoff writes waiting for their conversation's pace (guarded by the lock)."""
        self.appended = 0
        self.handoff_writes = 0

    def files(self, root: str) -> ConversationFiles:
        """The project's conversation files (one object per project: it remembers the
        folders it checked)."""
        found = self._files.get(root)
        if found is None:
            found = self._files[root] = ConversationFiles(root)
        return found

    # ─── on the loop ─────────────────────────────────────────────────────────────────

    def record(self, root: str, a: str, b: str, source: str, role: Role, text: str) -> Turn | None:
        """Record one turn of the conversation {a, b} (agent ids or `USER`), written by
        `source`. Never raises: a turn that cannot be recorded is logged and dropped."""
        try:
            turn = Turn(self.new_id(), conversation_id(a, b), self.clock_ms(), source, role, text)
            # No lock here: `setdefault` and `deque.append` are atomic, and the worker only
            # pops from the left (a lock the worker holds would make the loop wait for it).
            thread = self._threads.setdefault((root, turn.conversation), _Thread())
            thread.pending.append(turn)
            thread.at_ms = turn.at_ms
            self._worker.put(self._write, root, turn)
        except Exception:  # bookkeeping must never fail a delegation
            log.exception("conversation turn not recorded (%s)", root)
            return None
        return turn

    def handoff(self, root: str, conversation: str) -> tuple[Handoff | None, int]:
        """The conversation's handoff including every turn recorded so far, and when it
        last changed (epoch ms; 0 when unknown). Reads `handoff.md` when the worker has not
        loaded this conversation yet (a small file, read once)."""
        key = (root, conversation)
        with self._lock:
            thread = self._threads.get(key)
            if thread is not None and thread.loaded:
                folded = thread.handoff
                for turn in thread.pending:
                    folded = handoffs.fold(folded, turn)
                return (folded if thread.frozen is None else None), thread.at_ms
            pending = list(thread.pending) if thread is not None else []
        files = self.files(root)
        try:
            on_disk = files.read_handoff(conversation)
            stamp = files.handoff_stamp(conversation)
        except (IdeaError, OSError) as exc:
            log.warning("handoff of %s not read: %s", conversation, exc)
            return None, 0
        folded = on_disk or handoffs.EMPTY
        for turn in pending:
            folded = handoffs.fold(folded, turn)
        at_ms = pending[-1].at_ms if pending else (stamp[0] // 1_000_000 if stamp else 0)
        return (folded if folded.up_to else None), at_ms

    def known(self, root: str, conversation: str) -> bool:
        """A conversation this daemon recorded a turn of (its folder may not exist yet)."""
        with self._lock:
            return (root, conversation) in self._threads

    def rotate(self, root: str, conversations: list[str] | None = None) -> Future[object]:
        """Rotate the project's logs (all, or the given ones) in the worker (LOG-5); the
        future's result is the list of the conversations rotated."""
        return self._worker.submit(self._rotate, root, conversations)

    def set_provider(self, root: str, a: str, b: str, profile_id: str, resumable_id: str) -> None:
        """Keep a profile's resumable session id for the conversation {a, b} (LOG-4)."""
        try:
            cid = conversation_id(a, b)
        except ValueError:
            return
        self._submit(self._set_provider, root, cid, profile_id, resumable_id)

    def drain(self) -> None:
        """Wait until queued file work is done, the handoff writes it queued too (tests,
        the viewer, the bench, shutdown). Blocks: never call it on the loop."""
        while self._worker.alive:  # after `close` nothing is left to wait for
            self._hurry()
            self._worker.submit(lambda: None).result()
            with self._lock:
                busy = any(t.pending or t.flush_queued for t in list(self._threads.values()))
            if not busy:
                return

    def close(self) -> None:
        if self._worker.alive:
            self.drain()
            self._worker.stop()

    def _submit(self, work: Callable[..., object], *args: object) -> None:
        self._worker.put(work, *args)

    # ─── in the worker ───────────────────────────────────────────────────────────────

    def _write(self, root: str, turn: Turn) -> None:
        key = (root, turn.conversation)
        files = self.files(root)
        self._load(files, key)
        try:
            files.append(turn)
            self.appended += 1
        except IdeaError as exc:
            self._problem(key, f"conversation {turn.conversation}: turn not logged: {exc}")
        with self._lock:
            thread = self._threads[key]
            if thread.pending and thread.pending[0].id == turn.id:
                thread.pending.popleft()
            thread.handoff = handoffs.fold(thread.handoff, turn)
            thread.dirty = True
            queue_flush = not thread.flush_queued and thread.frozen is None
            thread.flush_queued = thread.flush_queued or queue_flush
        if queue_flush:
            # Behind the turns already queued: a burst of them makes one handoff write.
            self._queue_flush(key, thread.flushed_at)

    def _queue_flush(self, key: tuple[str, str], flushed_at: float) -> None:
        """Queue the handoff write of `key` now, or when its pace allows (a timer)."""
        wait = flushed_at + self.pace - time.monotonic()
        if wait <= 0:
            self._submit(self._flush, *key)
            return
        timer = threading.Timer(wait, self._paced_flush, key)
        timer.daemon = True
        with self._lock:
            self._paced[key] = timer
        timer.start()

    def _paced_flush(self, root: str, conversation: str) -> None:
        with self._lock:
            if self._paced.pop((root, conversation), None) is None:
                return  # `drain` queued it already
        self._submit(self._flush, root, conversation)

    def _hurry(self) -> None:
        """Queue the paced handoff writes now (`drain` waits for them)."""
        with self._lock:
            paced, self._paced = self._paced, {}
        for key, timer in paced.items():
            timer.cancel()
            self._submit(self._flush, *key)

    def _load(self, files: ConversationFiles, key: tuple[str, str]) -> None:
        with self._lock:
            thread = self._threads.setdefault(key, _Thread())
            if thread.loaded:
                return
        conversation = key[1]
        problem = None
        handoff = handoffs.EMPTY
        stamp = None
        try:
            handoff = files.read_handoff(conversation) or handoffs.EMPTY
            stamp = files.handoff_stamp(conversation)
            # Turns logged after the handoff's upTo (a crash between the two writes).
            pending_ids = {t.id for t in list(thread.pending)}  # copied: the loop appends
            for turn in files.read_since(conversation, handoff.up_to):
                if turn.id not in pending_ids:
                    handoff = handoffs.fold(handoff, turn)
        except CorruptFile as exc:
            problem = exc.message
        except IdeaError as exc:
            log.warning("conversation %s: %s", conversation, exc)
        with self._lock:
            thread.handoff, thread.stamp, thread.frozen = handoff, stamp, problem
            thread.loaded = True
            thread.dirty = problem is None and handoff.up_to is not None and stamp is None
        if problem is not None:
            self._problem(key, problem)

    def _flush(self, root: str, conversation: str) -> None:
        """Write the handoff as folded now. `flush_queued` stays set until the write is
        done: turns folded meanwhile queue no second flush, this one goes again instead."""
        key = (root, conversation)
        files = self.files(root)
        with self._lock:
            thread = self._threads[key]
            if not thread.dirty or thread.frozen is not None:
                thread.flush_queued = False
                return
            handoff, stamp = thread.handoff, thread.stamp
        written, failed = stamp, False
        try:
            if files.handoff_stamp(conversation) != stamp:
                # Someone else wrote handoff.md meanwhile: never overwrite what we cannot
                # parse; a readable one is taken over as it is (its turns are in the log).
                files.read_handoff(conversation)
            written = files.write_handoff(conversation, handoff)
            self.handoff_writes += 1
            with self._lock:
                thread.flushed_at = time.monotonic()
        except CorruptFile as exc:
            with self._lock:
                thread.frozen = exc.message
            self._problem(key, exc.message)
        except IdeaError as exc:
            failed = True  # stays dirty: the next turn tries again
            self._problem(key, f"conversation {conversation}: handoff not written: {exc}")
        with self._lock:
            thread.stamp = written
            thread.dirty = failed or thread.handoff is not handoff
            again = thread.dirty and not failed and thread.frozen is None
            thread.flush_queued = again
            flushed_at = thread.flushed_at
        if again:
            self._queue_flush(key, flushed_at)

    def _rotate(self, root: str, conversations: list[str] | None) -> list[str]:
        files = self.files(root)
        done = []
        for conversation in conversations if conversations is not None else files.conversations():
            try:
                plan: RotationPlan = files.rotate(conversation)
            except IdeaError as exc:
                log.warning("conversation %s not rotated: %s", conversation, exc)
                continue
            if not plan.nothing:
                log.info("conversation %s rotated: %s", conversation, plan)
                done.append(conversation)
        return done

    def _set_provider(self, root: str, conversation: str, profile_id: str, resumable: str) -> None:
        try:
            self.files(root).set_provider(conversation, profile_id, resumable)
        except IdeaError as exc:
            self._problem((root, conversation), f"providers.json not updated: {exc}")

    def providers(self, root: str, a: str, b: str) -> dict[str, str]:
        """Profile id → resumable id recorded for {a, b} (read from disk: a cold path)."""
        try:
            return self.files(root).providers(conversation_id(a, b))
        except (IdeaError, ValueError) as exc:
            log.warning("providers of %s/%s not read: %s", a, b, exc)
            return {}

    def _problem(self, key: tuple[str, str], message: str) -> None:
        log.error("%s", message)
        if key in self._reported:
            return
        self._reported.add(key)
        if self.report is not None:
            try:
                self.report(key[0], message)
            except Exception:  # a reporter that fails must not stop the worker
                log.exception("problem not reported")
