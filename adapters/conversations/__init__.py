"""Conversation files under `.ideai/conversations/<id>/` (FEATURES.md §3.10, §3.11, LOG-4/5)."""
