"""The file protocol (FEATURES.md ORC-1..6, §3.14): delegation for agents without MCP.

An agent drops `.ideai/requests/<its agent id>/<name>.json`; the daemon (watching the folder
with watchdog, and scanning it when a project opens) reads it, deletes it, dispatches it
through the same orchestration service as the MCP tools, and writes the answer next to it as
`<name>.json.response.json`: `{"ok": bool, "action": str, "detail"?, "error"?, "reply"?}`.

Requests (v2 wire, and the v1 actions):
- `{"type": "agent.message", "targetAgent": NAME, "task": TEXT}` (or `"name"`): an ask; the
  response carries the reply once it comes (no long-poll bound: nothing cuts a file).
- `{"type": "agent.reply", "result": TEXT, "ticket"?: ID}`: answers a task (D10).
- `{"type": "agent.run", "targetAgent": NAME, "visibility"?: "visible"|"background",
  "task"?: TEXT}`, `{"type": "agent.stop", "targetAgent": NAME}`, `{"type": "agent.list"}`,
  `{"type": "context.update", "targetAgent": NAME, "content": TEXT}`,
  `{"type": "skill.create", "name": NAME, "content": TEXT, "scope"?: "project"|"global"}`,
  `{"type": "skill.read", "name": NAME}` (the skill's text in `detail`).
- `memory.read`, `memory.write`, `context.read`, `context.propose` (idea_daemon/knowledge_files.py).
- `{"type": "workstate.read"}`: the live-state rows (JSON in `detail`), as
  `idea_workstate_read`; `{"type": "workstate.set", "status": STATUS, "task"?: TEXT,
  "note"?: TEXT}`: the caller's own row, checked as `idea_workstate_set` checks it (the
  stored row, JSON, in `detail`).
- v1: `{"action": "spawn_agent"|"stop_agent"|"update_agent_context", "name": NAME, ...}`.

A file dropped twice is processed once (ORC-1): it is deleted when read, and the same bytes
dropped again under the same name — while the first copy is being processed, or up to
`REPEAT_WINDOW` seconds after its response was written while that response is still there
(an agent that wrote its file twice, or retried) — are not dispatched again: the one
response answers both. Other bytes under a
name in flight wait for the first to end, then go as a new request. A malformed request gets
`ok: false` with the reason, never a crash or a spawn. The requester is the folder's name,
which must be an agent of the project.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from adapters.mcp.identity import Caller
from adapters.mcp.port_workstate import WorkState
from adapters.store.atomic import write_json_atomic
from core.errors import IdeaError
from core.live_state.arguments import workstate_arguments
from idea_daemon.knowledge_files import ACTIONS as KNOWLEDGE_ACTIONS
from idea_daemon.knowledge_files import dispatch_knowledge
from idea_daemon.runtime import ProjectRuntime

log = logging.getLogger(__name__)

REQUESTS = Path(".ideai") / "requests"
RESPONSE_SUFFIX = ".response.json"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
MAX_REQUEST = 1024 * 1024
REPEAT_WINDOW = 30.0
"""Seconds after a response during which the same request dropped again is not redone."""
REMEMBERED = 256
"""Answered requests remembered for that window (the oldest are forgotten first)."""
V1_ACTIONS = {
    "spawn_agent": "agent.run",
    "stop_agent": "agent.stop",
    "update_agent_context": "context.update",
}


class Dispatch(Protocol):
    """The orchestration service, as the file protocol uses it."""

    async def list_agents(self, caller: Caller) -> list[dict[str, Any]]: ...

    async def ask_file(self, caller: Caller, target: str, task: str) -> str: ...

    async def reply(self, caller: Caller, result: str, ticket: str | None) -> str: ...

    async def launch(
        self, caller: Caller, target: str, visibility: str, task: str | None
    ) -> str: ...

    async def stop(self, caller: Caller, target: str) -> str: ...

    async def update_context(self, caller: Caller, target: str, content: str) -> str: ...

    async def read_skill(self, caller: Caller, name: str) -> str: ...

    async def create_skill(
        self, caller: Caller, name: str, content: str, scope: str | None
    ) -> str: ...


class BadRequest(ValueError):
    pass


def _text(request: dict[str, Any], *keys: str, required: bool = True) -> str | None:
    for key in keys:
        value = request.get(key)
        if isinstance(value, str) and value.strip():
            return value
    if required:
        raise BadRequest(f"{keys[0]!r} is required and must be a non-empty string")
    return None


def parse_request(data: bytes) -> tuple[str, dict[str, Any]]:
    """(action, request) of a request file. Raises: BadRequest, with the reason."""
    if len(data) > MAX_REQUEST:
        raise BadRequest(f"the request is larger than {MAX_REQUEST} bytes")
    try:
        request = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BadRequest(f"not JSON: {exc}") from exc
    if not isinstance(request, dict):
        raise BadRequest("a request is a JSON object")
    action = request.get("type")
    if action is None and isinstance(request.get("action"), str):
        action = V1_ACTIONS.get(request["action"])
        if action is None:
            raise BadRequest(f"unknown action {request['action']!r}")
    if not isinstance(action, str):
        raise BadRequest('"type" is required (agent.message, agent.reply, agent.run, ...)')
    return action, request


async def dispatch(service: Dispatch, caller: Caller, action: str,
                   request: dict[str, Any]) -> dict[str, Any]:
    """The response to one request (errors included)."""
    try:
        if action == "agent.message":
            target = _text(request, "targetAgent", "name", "target")
            task = _text(request, "task")
            assert target is not None and task is not None
            return {"ok": True, "action": action,
                    "reply": await service.ask_file(caller, target, task)}
        if action == "agent.reply":
            result = _text(request, "result")
            assert result is not None
            ticket = _text(request, "ticket", required=False)
            return {"ok": True, "action": action,
                    "detail": await service.reply(caller, result, ticket)}
        if action == "agent.run":
            target = _text(request, "targetAgent", "name", "target")
            assert target is not None
            visibility = request.get("visibility", "background")
            if visibility not in ("visible", "background"):
                raise BadRequest("visibility must be 'visible' or 'background'")
            task = _text(request, "task", required=False)
            return {"ok": True, "action": action,
                    "detail": await service.launch(caller, target, visibility, task)}
        if action == "agent.stop":
            target = _text(request, "targetAgent", "name", "target")
            assert target is not None
            return {"ok": True, "action": action, "detail": await service.stop(caller, target)}
        if action == "context.update":
            target = _text(request, "targetAgent", "name", "target")
            content = _text(request, "content", "context")
            assert target is not None and content is not None
            return {"ok": True, "action": action,
                    "detail": await service.update_context(caller, target, content)}
        if action == "skill.create":
            name = _text(request, "name")
            content = _text(request, "content")
            scope = _text(request, "scope", required=False)
            assert name is not None and content is not None
            return {"ok": True, "action": action,
                    "detail": await service.create_skill(caller, name, content, scope)}
        if action == "skill.read":
            name = _text(request, "name")
            assert name is not None
            return {"ok": True, "action": action,
                    "detail": await service.read_skill(caller, name)}
        if action == "agent.list":
            agents = await service.list_agents(caller)
            return {"ok": True, "action": action, "detail": json.dumps(agents)}
        if action in ("workstate.read", "workstate.set") and isinstance(service, WorkState):
            return {"ok": True, "action": action,
                    "detail": await _workstate(service, caller, action, request)}
        knowledge = getattr(service, "knowledge", None)
        if action in KNOWLEDGE_ACTIONS and knowledge is not None:
            # Memory and the project context (issue 9), as the MCP tools offer them.
            return {"ok": True, "action": action,
                    "detail": await dispatch_knowledge(knowledge, caller, action, request)}
        raise BadRequest(f"unknown type {action!r}")
    except BadRequest as exc:
        return {"ok": False, "action": action, "error": str(exc)}
    except IdeaError as exc:
        return {"ok": False, "action": action, "error": exc.message}


async def _workstate(state: WorkState, caller: Caller, action: str,
                     request: dict[str, Any]) -> str:
    """The live state through a file (LIV-6): the caller's row only, the tool's checks."""
    if action == "workstate.read":
        return json.dumps(await state.workstate_read(caller), ensure_ascii=False)
    checked = workstate_arguments(request.get("status"), request.get("task"),
                                  request.get("note"))
    row = await state.workstate_set(caller, checked.status, checked.task, checked.note)
    return json.dumps(row, ensure_ascii=False)


class FileProtocol:
    """Watches the requests folder of each open project."""

    def __init__(
        self,
        service: Dispatch,
        caller_of: Callable[[ProjectRuntime, str], Caller | None],
        watch: Callable[[str, Callable[[str], None]], Any] | None,
    ) -> None:
        self.service = service
        self.caller_of = caller_of
        self.watch = watch
        self._watches: dict[str, Any] = {}
        self._in_flight: dict[Path, str] = {}
        """Request path → the digest of the bytes being processed under it."""
        self._answered: OrderedDict[tuple[Path, str], float] = OrderedDict()
        """(path, digest) of recent requests → when their response was written."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._runtimes: dict[str, ProjectRuntime] = {}
        self._closed = False

    def open(self, runtime: ProjectRuntime) -> None:
        folder = Path(runtime.root) / REQUESTS
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            log.error("%s: file protocol off (%s)", runtime.name, exc)
            return
        self._runtimes[runtime.root] = runtime
        loop = asyncio.get_running_loop()
        if self.watch is not None and runtime.root not in self._watches:

            def on_event(_path: str) -> None:
                loop.call_soon_threadsafe(self.scan, runtime.root)

            try:
                self._watches[runtime.root] = self.watch(str(folder), on_event)
            except OSError as exc:
                log.error("%s: cannot watch %s (%s)", runtime.name, folder, exc)
        self.scan(runtime.root)

    def close(self) -> None:
        self._closed = True
        for watch in self._watches.values():
            watch.stop()
        self._watches.clear()
        for task in list(self._tasks):
            task.cancel()

    def scan(self, root: str) -> None:
        runtime = self._runtimes.get(root)
        if runtime is None or self._closed:
            return
        folder = Path(root) / REQUESTS
        try:
            requesters = [p for p in folder.iterdir() if p.is_dir() and NAME.match(p.name)]
        except OSError:
            return
        for requester in requesters:
            try:
                files = sorted(requester.iterdir())
            except OSError:
                continue
            for path in files:
                if (not path.name.endswith(".json") or path.name.endswith(RESPONSE_SUFFIX)
                        or not NAME.match(path.name) or not path.is_file()):
                    continue
                self._start(runtime, requester.name, path)

    def _start(self, runtime: ProjectRuntime, requester: str, path: Path) -> None:
        try:
            with path.open("rb") as file:
                data = file.read(MAX_REQUEST + 1)  # bounded: the loop never reads a huge file
        except OSError:
            return
        digest = hashlib.sha256(data).hexdigest()
        if path in self._in_flight:
            if self._in_flight[path] != digest:
                return  # another request under a busy name: taken when the first ends
            _unlink(path)  # the same request again: the one in flight answers it
            return
        answered = self._answered.get((path, digest))
        if (answered is not None and time.monotonic() - answered < REPEAT_WINDOW
                and _response_path(path).exists()):
            _unlink(path)  # just answered, and its response is still there: it stands
            return
        if not _unlink(path):
            return  # someone else took it
        self._in_flight[path] = digest
        task = asyncio.get_running_loop().create_task(
            self._process(runtime, requester, path, data)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _process(self, runtime: ProjectRuntime, requester: str, path: Path,
                       data: bytes) -> None:
        response_path = _response_path(path)
        try:
            caller = self.caller_of(runtime, requester)
            if caller is None:
                response = {"ok": False, "action": "unknown",
                            "error": f"{requester!r} is not an agent of this project"}
            else:
                try:
                    action, request = parse_request(data)
                except BadRequest as exc:
                    response = {"ok": False, "action": "unknown", "error": str(exc)}
                else:
                    response = await dispatch(self.service, caller, action, request)
            # Off the loop: an atomic write waits for the disk (fsync).
            await asyncio.to_thread(write_json_atomic, response_path, response)
        except IdeaError as exc:
            log.error("file protocol: %s", exc.message)
        except Exception:
            log.exception("file protocol request %s failed", path)
        finally:
            self._done(runtime.root, path)

    def _done(self, root: str, path: Path) -> None:
        digest = self._in_flight.pop(path, None)
        if digest is not None:
            self._answered[(path, digest)] = time.monotonic()
            self._answered.move_to_end((path, digest))
            while len(self._answered) > REMEMBERED:
                self._answered.popitem(last=False)
        if path.exists():
            self.scan(root)  # a request that waited for this name goes now


def _response_path(path: Path) -> Path:
    return path.with_name(path.name + RESPONSE_SUFFIX)


def _unlink(path: Path) -> bool:
    """Delete a request that was read; False when it was gone already."""
    try:
        path.unlink()
    except OSError:
        return False
    return True
