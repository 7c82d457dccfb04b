"""The scripted model server itself, over real HTTP (no CLI needed).

What the real CLIs accept from it is checked by test_real_scripted.py; here, that it
speaks each API's event sequence, matches rules on the newest input only, leaves side
requests alone, answers a usage limit as the providers do, and reads the bodies the CLIs
may send (chunked, gzip).
"""

from __future__ import annotations

import gzip
import http.client
import json
import threading
from typing import Any

from tests.agents_cli.model_server import (
    Held,
    McpCall,
    ModelServer,
    Other,
    Script,
    Text,
    ToolCall,
    UsageLimit,
)
from tests.agents_cli.model_server.script import FALLBACK_TEXT, SIDE_TEXT


def post(server: ModelServer, path: str, body: Any, *, headers: dict[str, str] | None = None,
         raw: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
    host, port = server.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        data = raw if raw is not None else json.dumps(body).encode()
        connection.request("POST", path, body=data, headers={
            "content-type": "application/json", **(headers or {})})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, \
            response.read()
    finally:
        connection.close()


def events(data: bytes) -> list[tuple[str, dict[str, Any]]]:
    """The (event, data) pairs of a server-sent event stream."""
    found = []
    for chunk in data.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines() if ": " in line)
        if lines:
            found.append((lines["event"], json.loads(lines["data"])))
    return found


def claude_body(text: str, tools: bool = True, system: str = "SYSTEM-MARK",
                history: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"model": "claude-test", "stream": True,
            "system": [{"type": "text", "text": system}],
            "tools": [{"name": "Bash", "input_schema": {}}] if tools else [],
            "messages": [*(history or []),
                         {"role": "user", "content": [{"type": "text", "text": text}]}]}


def test_anthropic_text_reply_is_the_messages_event_sequence(
        script: Script, server: ModelServer) -> None:
    script.add("hello", [Text("scripted answer")])
    status, headers, data = post(server, "/v1/messages?beta=true", claude_body("hello"))
    assert status == 200 and headers["content-type"] == "text/event-stream"
    seen = events(data)
    assert [name for name, _ in seen] == [
        "message_start", "content_block_start", "content_block_delta", "content_block_stop",
        "message_delta", "message_stop"]
    assert seen[2][1]["delta"] == {"type": "text_delta", "text": "scripted answer"}
    assert seen[4][1]["delta"]["stop_reason"] == "end_turn"
    [request] = server.model_requests()
    assert request.api == "anthropic" and request.system == "SYSTEM-MARK"
    assert request.latest == "hello" and request.rule == "hello"


def test_anthropic_tool_use_streams_its_input_as_json_deltas(
        script: Script, server: ModelServer) -> None:
    script.add("ask", [Text("delegating"), McpCall("idea", "idea_ask_agent",
                                                   {"target": "QA", "task": "tést"})])
    _, _, data = post(server, "/v1/messages", claude_body("ask"))
    seen = events(data)
    starts = [d["content_block"] for name, d in seen if name == "content_block_start"]
    assert starts[1]["type"] == "tool_use" and starts[1]["name"] == "mcp__idea__idea_ask_agent"
    deltas = [d["delta"] for name, d in seen if name == "content_block_delta"]
    assert deltas[1]["type"] == "input_json_delta"
    assert json.loads(deltas[1]["partial_json"]) == {"target": "QA", "task": "tést"}
    assert seen[-2][1]["delta"]["stop_reason"] == "tool_use"


def test_rules_match_the_newest_input_once_and_side_requests_consume_none(
        script: Script, server: ModelServer) -> None:
    script.add("TASK-1", [Text("first")])
    # A side request (no tools) mentioning the same text is a title: no rule is used.
    _, _, side = post(server, "/v1/messages", claude_body("TASK-1", tools=False))
    assert events(side)[2][1]["delta"]["text"] == SIDE_TEXT
    _, _, first = post(server, "/v1/messages", claude_body("TASK-1"))
    assert events(first)[2][1]["delta"]["text"] == "first"
    # The history still holds TASK-1, the newest input does not: the fallback answers.
    history = [{"role": "user", "content": "TASK-1"}, {"role": "assistant", "content": "first"}]
    _, _, later = post(server, "/v1/messages", claude_body("next", history=history))
    assert events(later)[2][1]["delta"]["text"] == FALLBACK_TEXT
    assert [r.rule for r in server.model_requests()] == [None, "TASK-1", None]


def test_a_reply_can_be_computed_from_the_request(script: Script, server: ModelServer) -> None:
    script.add(r"ticket T-\d+", lambda request: [Text(request.latest.upper())])
    _, _, data = post(server, "/v1/messages", claude_body("ticket T-42"))
    assert events(data)[2][1]["delta"]["text"] == "TICKET T-42"


def codex_body(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"model": "gpt-test", "stream": True, "instructions": "BASE",
            "tools": [{"type": "namespace", "name": "mcp__idea", "tools": []}],
            "input": items}


def test_openai_function_call_names_the_namespace_and_the_tool(
        script: Script, server: ModelServer) -> None:
    script.add("do it", [McpCall("idea", "idea_reply", {"result": "done"}),
                         ToolCall("shell", {"command": ["true"]})])
    items = [{"type": "message", "role": "developer",
              "content": [{"type": "input_text", "text": "CONTEXT-MARK"}]},
             {"type": "message", "role": "user",
              "content": [{"type": "input_text", "text": "do it"}]}]
    _, _, data = post(server, "/v1/responses", codex_body(items))
    seen = events(data)
    assert seen[0][0] == "response.created" and seen[-1][0] == "response.completed"
    done = [d["item"] for name, d in seen if name == "response.output_item.done"]
    assert done[0]["type"] == "function_call" and done[0]["namespace"] == "mcp__idea"
    assert done[0]["name"] == "idea_reply" and json.loads(done[0]["arguments"]) == {
        "result": "done"}
    assert done[1]["name"] == "shell" and "namespace" not in done[1]
    assert seen[-1][1]["response"]["usage"]["total_tokens"] > 0
    [request] = server.model_requests()
    assert "BASE" in request.system and "CONTEXT-MARK" in request.system
    assert request.latest == "do it" and request.tools == ["mcp__idea"]


def test_openai_newest_input_is_what_follows_the_models_last_item(
        script: Script, server: ModelServer) -> None:
    script.add("RESULT-7", [Text("thanks")])
    earlier = {"type": "input_text", "text": "RESULT-7 earlier"}
    items: list[dict[str, Any]] = [
             {"type": "message", "role": "user", "content": [earlier]},
             {"type": "function_call", "name": "x", "arguments": "{}", "call_id": "c1"},
             {"type": "function_call_output", "call_id": "c1",
              "output": "Wall time: 0.1 seconds\nOutput:\n{\"result\": \"RESULT-7\"}"}]
    _, _, data = post(server, "/v1/responses", codex_body(items))
    [request] = server.model_requests()
    assert request.latest.startswith("Wall time") and "earlier" not in request.latest
    text = [d for name, d in events(data) if name == "response.output_text.delta"]
    assert text[0]["delta"] == "thanks"


def test_usage_limit_answers_as_each_provider(script: Script, server: ModelServer) -> None:
    script.add("limit", UsageLimit(resets_at=2_000_000_000, message="LIMIT-MESSAGE"),
               times=None)
    status, headers, data = post(server, "/v1/messages", claude_body("limit"))
    assert status == 429
    assert headers["anthropic-ratelimit-unified-status"] == "rejected"
    assert headers["anthropic-ratelimit-unified-reset"] == "2000000000"
    assert headers["x-should-retry"] == "false"
    assert json.loads(data)["error"] == {"type": "rate_limit_error", "message": "LIMIT-MESSAGE"}

    items = [{"type": "message", "role": "user", "content": [{"type": "input_text",
                                                             "text": "limit"}]}]
    status, headers, data = post(server, "/v1/responses", codex_body(items))
    assert status == 429 and headers["x-codex-primary-reset-at"] == "2000000000"
    error = json.loads(data)["error"]
    assert error["type"] == "usage_limit_reached" and error["resets_at"] == 2_000_000_000


def test_a_limit_window_refuses_everything_until_the_reset_then_the_rules_answer(
        script: Script, server: ModelServer) -> None:
    now = [1_000.0]
    script.add("hello", [Text("after the reset")])
    window = script.limit_until(1_060, "WINDOW-MESSAGE", clock=lambda: now[0])
    for body in (claude_body("hello"), claude_body("title please", tools=False)):
        status, headers, data = post(server, "/v1/messages", body)
        assert status == 429 and headers["anthropic-ratelimit-unified-reset"] == "1060"
        assert json.loads(data)["error"]["message"] == "WINDOW-MESSAGE"
    items = [{"type": "message", "role": "user", "content": [{"type": "input_text",
                                                             "text": "hello"}]}]
    status, headers, _ = post(server, "/v1/responses", codex_body(items))
    assert status == 429 and headers["x-codex-primary-reset-at"] == "1060"
    assert window.refused == 3 and window.open

    now[0] = 1_060.0  # the reset: the rule that waited answers, once
    status, _, data = post(server, "/v1/messages", claude_body("hello"))
    assert status == 200 and not window.open
    assert "".join(d["delta"].get("text", "") for name, d in events(data)
                   if name == "content_block_delta") == "after the reset"
    assert [r.rule for r in server.model_requests()] == ["limit-window"] * 3 + ["hello"]


def test_a_limit_window_can_be_lifted_before_its_time(
        script: Script, server: ModelServer) -> None:
    window = script.limit_until(4_000_000_000)
    assert post(server, "/v1/messages", claude_body("x"))[0] == 429
    window.lift()
    assert post(server, "/v1/messages", claude_body("x"))[0] == 200
    assert window.refused == 1


def test_chunked_and_gzip_bodies_and_other_requests_are_read(
        script: Script, server: ModelServer) -> None:
    script.add("zipped", [Text("unzipped")])
    raw = gzip.compress(json.dumps(claude_body("zipped")).encode())
    status, _, data = post(server, "/v1/messages", None, raw=raw,
                           headers={"content-encoding": "gzip"})
    assert status == 200 and events(data)[2][1]["delta"]["text"] == "unzipped"

    host, port = server.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    body = json.dumps(claude_body("chunked")).encode()
    connection.putrequest("POST", "/v1/messages")
    connection.putheader("transfer-encoding", "chunked")
    connection.endheaders()
    for start in range(0, len(body), 7):
        piece = body[start:start + 7]
        connection.send(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
    connection.send(b"0\r\n\r\n")
    first = connection.getresponse()
    assert first.status == 200 and first.read()
    connection.request("GET", "/v1/models")  # the same connection, kept alive
    assert connection.getresponse().read() and server.errors == []
    connection.close()
    assert [r.latest for r in server.model_requests()] == ["zipped", "chunked"]
    assert isinstance(server.requests[-1], Other) and server.requests[-1].path == "/v1/models"


def test_a_bad_body_gets_a_400_and_is_reported(server: ModelServer) -> None:
    status, _, _ = post(server, "/v1/messages", None, raw=b"{not json")
    assert status == 400 and "unparsable" in server.errors[0]


def test_a_held_reply_waits_for_its_release_while_others_are_served(
        script: Script, server: ModelServer) -> None:
    released = threading.Event()
    script.add("slow", Held([Text("at last")], released.is_set))
    script.add("fast", [Text("at once")])
    answers: list[str] = []
    slow = threading.Thread(target=lambda: answers.append(
        events(post(server, "/v1/messages", claude_body("slow"))[2])[2][1]["delta"]["text"]))
    slow.start()
    server.wait_for(lambda r: r.latest == "slow", what="the slow request")
    _, _, data = post(server, "/v1/messages", claude_body("fast"))
    assert events(data)[2][1]["delta"]["text"] == "at once" and answers == []
    released.set()
    slow.join(30)
    assert answers == ["at last"]


def test_a_rule_can_require_a_system_prompt(script: Script, server: ModelServer) -> None:
    script.add("task", [Text("for QA")], system="PERSONA-QA")
    script.add("task", [Text("for anyone")])
    _, _, data = post(server, "/v1/messages", claude_body("task", system="PERSONA-DEV"))
    assert events(data)[2][1]["delta"]["text"] == "for anyone"
    _, _, data = post(server, "/v1/messages", claude_body("task", system="PERSONA-QA"))
    assert events(data)[2][1]["delta"]["text"] == "for QA"
