"""A stand-in for a model provider's HTTP API, so the real CLIs run offline.

The CLIs are pointed at it (Claude Code: ANTHROPIC_BASE_URL; Codex: openai_base_url) and it
records every request body: what a CLI sends the model is exactly what these tests assert
(the composed context in the system prompt, a submitted line in the messages).

Messages API requests get a minimal valid answer ("ok"), streamed as server-sent events
when the request asks for a stream. Anything else gets `{}`: enough for the CLIs to carry on
(Codex retries, then shows an error, which is fine: its request was already recorded).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_MESSAGE = {
    "id": "msg_stub",
    "type": "message",
    "role": "assistant",
    "model": "stub",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
_EVENTS = [
    ("message_start", {"type": "message_start", "message": {**_MESSAGE, "content": [],
                                                           "stop_reason": None}}),
    ("content_block_start", {"type": "content_block_start", "index": 0,
                             "content_block": {"type": "text", "text": ""}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0,
                             "delta": {"type": "text_delta", "text": "ok"}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 1},
                       "delta": {"stop_reason": "end_turn", "stop_sequence": None}}),
    ("message_stop", {"type": "message_stop"}),
]


@dataclass
class Recorded:
    method: str
    path: str
    body: Any

    @property
    def text(self) -> str:
        """The whole body as JSON text, for "does the request mention X" checks."""
        return json.dumps(self.body, ensure_ascii=False)


@dataclass
class ProviderStub:
    url: str
    requests: list[Recorded] = field(default_factory=list)

    def messages(self) -> list[Recorded]:
        """The model calls (Anthropic /v1/messages, OpenAI /v1/responses)."""
        return [r for r in self.requests
                if r.method == "POST" and r.path.split("?")[0].endswith(("/messages",
                                                                          "/responses"))]


@contextmanager
def provider_stub() -> Iterator[ProviderStub]:
    """A provider stub on 127.0.0.1 for the duration of the block."""
    stub = ProviderStub(url="")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except ValueError:
                body = raw.decode("utf-8", "replace")
            with lock:
                stub.requests.append(Recorded(self.command, self.path, body))
            is_message = self.path.split("?")[0].endswith("/v1/messages")
            if is_message and isinstance(body, dict) and body.get("stream"):
                self._stream()
            else:
                self._json(_MESSAGE if is_message else {})

        def do_GET(self) -> None:
            with lock:
                stub.requests.append(Recorded(self.command, self.path, None))
            self._json({})

        do_HEAD = do_GET

        def _json(self, value: object) -> None:
            data = json.dumps(value).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def _stream(self) -> None:
            data = b"".join(f"event: {name}\ndata: {json.dumps(event)}\n\n".encode()
                            for name, event in _EVENTS)
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    stub.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
