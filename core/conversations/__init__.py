"""Conversations between two parties (FEATURES.md §2.14, §2.19; DECISIONS D14): pure rules."""
