"""The scripted model server: HTTP/1.1 on 127.0.0.1, on an asyncio loop of its own thread.

Tests are synchronous (they drive PTYs and the `idea` CLI), so the server runs its loop in a
background thread; `ModelServer.requests` is the log of every request it received, model
calls decoded (`ModelRequest`), anything else (a GET of a model list, a HEAD probe) kept
as `Other`. Connections are kept alive as both CLIs expect; request bodies may be chunked
or gzip-compressed.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tests.agents_cli.model_server.script import Held, ModelRequest, Reply, Script
from tests.agents_cli.model_server.wire import decode_anthropic, decode_openai, encode
from tests.helpers.retry import retry_until

_REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 429: "Too Many Requests"}
MAX_BODY = 64 << 20


@dataclass
class Other:
    """A request that is not a model call."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class ModelServer:
    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[ModelRequest | Other] = []
        self.url = ""
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._connections: set[asyncio.Task[None]] = set()
        self._thread = threading.Thread(target=self._run, name="model-server", daemon=True)

    # ─── what tests read ─────────────────────────────────────────────────────────────

    def model_requests(self, api: str | None = None) -> list[ModelRequest]:
        with self._lock:
            found = [r for r in self.requests if isinstance(r, ModelRequest)]
        return [r for r in found if api is None or r.api == api]

    def turns(self) -> list[ModelRequest]:
        """Model calls of a conversation (tools offered), not side requests."""
        return [r for r in self.model_requests() if not r.side]

    def wait_for(self, predicate: Callable[[ModelRequest], bool], timeout: float = 90.0,
                 what: str = "a matching request") -> ModelRequest:
        """The first request for which `predicate` holds, once one has come."""
        def found() -> ModelRequest | None:
            return next((r for r in self.model_requests() if predicate(r)), None)

        return retry_until(found, timeout, describe=lambda: f"{what}; received:\n"
                           + self.describe())

    def describe(self) -> str:
        lines = []
        for r in self.requests:
            if isinstance(r, ModelRequest):
                lines.append(f"  {r.api} {r.path} tools={len(r.tools)} rule={r.rule!r} "
                             f"latest={r.latest[-160:]!r}")
            else:
                lines.append(f"  {r.method} {r.path}")
        return "\n".join(lines + [f"  error: {e}" for e in self.errors]) or "  (nothing)"

    # ─── running ─────────────────────────────────────────────────────────────────────

    def start(self) -> ModelServer:
        self._thread.start()
        if not self._ready.wait(10):
            raise AssertionError("the model server did not start")
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def _run(self) -> None:
        asyncio.run(self._serve())

    async def _serve(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        self._ready.set()
        async with server:
            await self._stop.wait()
            server.close()
            # Keep-alive connections the CLIs left open end here, not in asyncio.run's
            # cancellation of leftover tasks (which logs each one as an error).
            for task in list(self._connections):
                task.cancel()
            await asyncio.gather(*self._connections, return_exceptions=True)

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while await self._one_request(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass
        except Exception as exc:  # a bug here must show in the test, not kill the loop
            self.errors.append(repr(exc))
        finally:
            self._connections.discard(task)
            writer.close()

    async def _one_request(self, reader: asyncio.StreamReader,
                           writer: asyncio.StreamWriter) -> bool:
        line = await reader.readline()
        if not line:
            return False
        method, target, _ = line.decode("latin-1").split(" ", 2)
        headers: dict[str, str] = {}
        while (header := await reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = header.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        body = await self._body(reader, headers)
        status, reply_headers, data = await self._handle(method, target, headers, body)
        head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}",
                f"content-length: {len(data)}", "connection: keep-alive",
                *(f"{k}: {v}" for k, v in reply_headers.items())]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        if method != "HEAD":
            writer.write(data)
        await writer.drain()
        return headers.get("connection", "").lower() != "close"

    async def _body(self, reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(await reader.readexactly(size))
                await reader.readline()
            raw = b"".join(chunks)
        else:
            length = min(int(headers.get("content-length") or 0), MAX_BODY)
            raw = await reader.readexactly(length) if length else b""
        encoding = headers.get("content-encoding", "").lower()
        if encoding == "gzip":
            raw = gzip.decompress(raw)
        elif encoding == "deflate":
            raw = zlib.decompress(raw)
        elif encoding:
            self.errors.append(f"unsupported content-encoding {encoding!r}")
        return raw

    async def _handle(self, method: str, target: str, headers: dict[str, str],
                      raw: bytes) -> tuple[int, dict[str, str], bytes]:
        path = target.split("?")[0]
        api = ("anthropic" if path.endswith("/messages") else
               "openai" if path.endswith("/responses") else None)
        if method != "POST" or api is None:
            with self._lock:
                self.requests.append(Other(method, target, headers, raw))
            # Model lists (either API's shape), anything else: an empty, valid JSON answer.
            return 200, {"content-type": "application/json"}, json.dumps(
                {"object": "list", "data": [], "models": []}).encode()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            self.errors.append(f"unparsable body on {target}: {raw[:200]!r}")
            return 400, {"content-type": "application/json"}, b'{"error": "bad json"}'
        decode = decode_anthropic if api == "anthropic" else decode_openai
        request = decode(target, headers, body)
        with self._lock:
            self.requests.append(request)
        try:
            reply: Reply = self.script.answer(request)
        except Exception as exc:
            self.errors.append(f"script failed on {target}: {exc!r}")
            raise
        if isinstance(reply, Held):
            deadline = time.monotonic() + reply.timeout
            while not reply.release() and time.monotonic() < deadline:
                await asyncio.sleep(0.1)  # other connections are served meanwhile
            reply = reply.reply
        return encode(request, reply, time.time())


@contextmanager
def model_server(script: Script | None = None) -> Iterator[ModelServer]:
    """A scripted model server on 127.0.0.1 for the duration of the block."""
    server = ModelServer(script or Script()).start()
    try:
        yield server
    finally:
        server.stop()
