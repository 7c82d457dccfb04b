"""The two wire formats: decoding a request into a `ModelRequest`, encoding a reply.

Anthropic Messages (`POST /v1/messages`, what Claude Code sends, always streamed): a reply
is the server-sent event sequence message_start, per content block content_block_start /
content_block_delta (text_delta, or input_json_delta for a tool_use) / content_block_stop,
then message_delta (the stop reason) and message_stop.

OpenAI Responses (`POST /v1/responses`, what Codex sends, streamed): response.created, per
output item response.output_item.added / (response.output_text.delta) /
response.output_item.done, then response.completed with the usage. An MCP tool reaches the
model inside a `namespace` tool (`mcp__idea`), and a call of it is a `function_call` item
that names the namespace and the tool.

A `UsageLimit` becomes what each provider answers at a usage limit (see `limit_response`).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from tests.agents_cli.model_server.script import (
    Held,
    McpCall,
    ModelRequest,
    Part,
    Reply,
    Text,
    ToolCall,
    UsageLimit,
)

_ids = itertools.count(1)
Event = tuple[str, dict[str, Any]]


def _join(parts: list[str]) -> str:
    return "\n".join(part for part in parts if part)


def _block_text(content: Any) -> str:
    """The text of a Messages API content value: a string or a list of blocks (text,
    tool_result with its own content, tool_use with its input)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = []
    for block in content:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        elif block.get("type") == "tool_result":
            texts.append(_block_text(block.get("content")))
        elif block.get("type") == "tool_use":
            texts.append(json.dumps(block.get("input"), ensure_ascii=False))
    return _join(texts)


# ─── Anthropic Messages ──────────────────────────────────────────────────────────────


def decode_anthropic(path: str, headers: dict[str, str], body: Any) -> ModelRequest:
    body = body if isinstance(body, dict) else {}
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    users = [m for m in messages if m.get("role") == "user"]
    latest = _block_text(users[-1].get("content")) if users else ""
    tools = [str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)]
    return ModelRequest("anthropic", path, headers, body, _block_text(body.get("system")),
                        latest, tools)


def anthropic_name(part: ToolCall | McpCall) -> str:
    if isinstance(part, McpCall):
        return f"mcp__{part.server}__{part.tool}"
    return part.name


def anthropic_events(reply: list[Part], model: str) -> list[Event]:
    message_id = f"msg_scripted_{next(_ids)}"
    events: list[Event] = [("message_start", {"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}})]
    for index, part in enumerate(reply):
        if isinstance(part, Text):
            block: dict[str, Any] = {"type": "text", "text": ""}
            delta: dict[str, Any] = {"type": "text_delta", "text": part.text}
        else:
            block = {"type": "tool_use", "id": f"toolu_scripted_{next(_ids)}",
                     "name": anthropic_name(part), "input": {}}
            delta = {"type": "input_json_delta",
                     "partial_json": json.dumps(part.arguments, ensure_ascii=False)}
        events += [
            ("content_block_start", {"type": "content_block_start", "index": index,
                                     "content_block": block}),
            ("content_block_delta", {"type": "content_block_delta", "index": index,
                                     "delta": delta}),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    calls = any(not isinstance(part, Text) for part in reply)
    events += [
        ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 5},
                           "delta": {"stop_reason": "tool_use" if calls else "end_turn",
                                     "stop_sequence": None}}),
        ("message_stop", {"type": "message_stop"}),
    ]
    return events


# ─── OpenAI Responses ────────────────────────────────────────────────────────────────


def _item_text(item: dict[str, Any]) -> str:
    if item.get("type") == "message":
        content = item.get("content")
        if isinstance(content, str):
            return content
        return _join([str(c.get("text", "")) for c in content or [] if isinstance(c, dict)])
    if item.get("type") in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output")
        if isinstance(output, str):
            return output
        if isinstance(output, list):
            return _join([str(c.get("text", "")) for c in output if isinstance(c, dict)])
        return json.dumps(output, ensure_ascii=False)
    return ""


def _produced_by_model(item: dict[str, Any]) -> bool:
    return (item.get("role") == "assistant"
            or item.get("type") in ("function_call", "custom_tool_call", "reasoning"))


def decode_openai(path: str, headers: dict[str, str], body: Any) -> ModelRequest:
    body = body if isinstance(body, dict) else {}
    items = [i for i in body.get("input") or [] if isinstance(i, dict)]
    last_model = max((n for n, item in enumerate(items) if _produced_by_model(item)),
                     default=-1)
    newest = [item for item in items[last_model + 1:] if item.get("role") != "developer"]
    developer = [_item_text(item) for item in items if item.get("role") == "developer"]
    system = _join([str(body.get("instructions") or ""), *developer])
    tools = [str(t.get("name") or t.get("type")) for t in body.get("tools") or []
             if isinstance(t, dict)]
    return ModelRequest("openai", path, headers, body, system,
                        _join([_item_text(item) for item in newest]), tools)


def _function_call(part: ToolCall | McpCall) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "function_call", "id": f"fc_scripted_{next(_ids)}",
                            "call_id": f"call_scripted_{next(_ids)}", "status": "completed",
                            "arguments": json.dumps(part.arguments, ensure_ascii=False)}
    if isinstance(part, McpCall):
        item.update(namespace=f"mcp__{part.server}", name=part.tool)
    else:
        item["name"] = part.name
    return item


def openai_events(reply: list[Part], model: str) -> list[Event]:
    response_id = f"resp_scripted_{next(_ids)}"
    response = {"id": response_id, "object": "response", "model": model,
                "status": "in_progress", "output": []}
    events: list[Event] = [("response.created", {"type": "response.created",
                                                 "response": response})]
    output = []
    for index, part in enumerate(reply):
        if isinstance(part, Text):
            item_id = f"msg_scripted_{next(_ids)}"
            done: dict[str, Any] = {
                "type": "message", "id": item_id, "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": part.text, "annotations": []}]}
            events += [
                ("response.output_item.added", {
                    "type": "response.output_item.added", "output_index": index,
                    "item": {**done, "status": "in_progress", "content": []}}),
                ("response.output_text.delta", {
                    "type": "response.output_text.delta", "item_id": item_id,
                    "output_index": index, "content_index": 0, "delta": part.text}),
            ]
        else:
            done = _function_call(part)
            events.append(("response.output_item.added", {
                "type": "response.output_item.added", "output_index": index, "item": done}))
        events.append(("response.output_item.done", {
            "type": "response.output_item.done", "output_index": index, "item": done}))
        output.append(done)
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
             "total_tokens": 15}
    events.append(("response.completed", {"type": "response.completed", "response": {
        **response, "status": "completed", "output": output, "usage": usage}}))
    return events


# ─── both ────────────────────────────────────────────────────────────────────────────


def sse(events: list[Event]) -> bytes:
    return b"".join(f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()
                    for name, data in events)


def limit_response(request: ModelRequest, limit: UsageLimit,
                   now: float) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of a provider's answer at a usage limit.

    Anthropic: 429 with a `rate_limit_error` body and the `anthropic-ratelimit-unified-*`
    headers Claude Code reads for its "limit reached · resets …" message (status
    `rejected`, reset in epoch seconds, which window), plus `x-should-retry: false` so it
    does not retry with backoff. OpenAI (as ChatGPT's Codex backend answers): 429 with an
    error of type `usage_limit_reached` carrying `resets_at` / `resets_in_seconds`, from
    which Codex builds "You've hit your usage limit … try again at …", and the
    `x-codex-primary-*` rate-limit headers.
    """
    seconds = max(0, int(limit.resets_at - now))
    if request.api == "anthropic":
        headers = {
            "content-type": "application/json",
            "x-should-retry": "false",
            "retry-after": str(seconds),
            "anthropic-ratelimit-unified-status": "rejected",
            "anthropic-ratelimit-unified-reset": str(limit.resets_at),
            "anthropic-ratelimit-unified-representative-claim": "five_hour",
            "anthropic-ratelimit-unified-5h-status": "rejected",
            "anthropic-ratelimit-unified-5h-reset": str(limit.resets_at),
            "anthropic-ratelimit-unified-5h-utilization": "1.0",
            "anthropic-ratelimit-unified-fallback-percentage": "0",
            "anthropic-ratelimit-unified-overage-status": "rejected",
        }
        body: dict[str, Any] = {"type": "error", "error": {"type": "rate_limit_error",
                                                           "message": limit.message}}
    else:
        headers = {
            "content-type": "application/json",
            "x-codex-primary-used-percent": "100",
            "x-codex-primary-window-minutes": "300",
            "x-codex-primary-reset-at": str(limit.resets_at),
            "x-codex-primary-reset-after-seconds": str(seconds),
        }
        body = {"error": {"type": "usage_limit_reached", "code": "usage_limit_reached",
                          "message": limit.message, "plan_type": "plus",
                          "resets_at": limit.resets_at, "resets_in_seconds": seconds}}
    return 429, headers, json.dumps(body).encode()


def encode(request: ModelRequest, reply: Reply, now: float) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) answering `request` with `reply`."""
    if isinstance(reply, UsageLimit):
        return limit_response(request, reply, now)
    assert not isinstance(reply, Held), "the server waits for a Held reply's release first"
    model = str(request.body.get("model") or "scripted") if isinstance(request.body, dict) \
        else "scripted"
    parts = list(reply)
    events = (anthropic_events(parts, model) if request.api == "anthropic"
              else openai_events(parts, model))
    return 200, {"content-type": "text/event-stream", "cache-control": "no-cache"}, sse(events)
