"""The daemon's delegation service: the MCP host, the mailbox per project, verified
delivery into agents' PTYs, the ticket journal (issue 8)."""
