"""A scripted model server for the real agent CLIs (see `server.py`, `script.py`)."""

from tests.agents_cli.model_server.script import (
    Held,
    LimitWindow,
    McpCall,
    ModelRequest,
    Reply,
    Rule,
    Script,
    Text,
    ToolCall,
    UsageLimit,
)
from tests.agents_cli.model_server.server import ModelServer, Other, model_server

__all__ = ["Held", "LimitWindow", "McpCall", "ModelRequest", "ModelServer", "Other", "Reply",
           "Rule", "Script", "Text", "ToolCall", "UsageLimit", "model_server"]
