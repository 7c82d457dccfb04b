"""Delegation between agents (FEATURES.md DLG, DECISIONS D4, D8–D10, D27): tickets, one FIFO
per agent, the wait-for graph, timeouts, reply resolution. Pure: time is passed in."""
