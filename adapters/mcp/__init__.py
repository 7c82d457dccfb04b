"""idea's MCP server (FEATURES.md MCP, DECISIONS D11): the tools agents call to delegate, on
two transports — streamable HTTP on 127.0.0.1 with a per-agent bearer secret, and a Unix
socket that the stdio bridge `idea mcp-server` relays to — with one dispatch behind both."""
