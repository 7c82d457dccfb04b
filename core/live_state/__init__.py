"""Live state: who is doing what now (FEATURES.md §2.18, §3.13, DECISIONS D13)."""
