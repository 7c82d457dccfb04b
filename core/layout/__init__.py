"""The recursive layout of a project page (FEATURES.md LAY-1..LAY-8)."""
