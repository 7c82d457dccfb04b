"""Conversations in the daemon: recording turns, handoffs, rotation, resume (issue 9)."""
