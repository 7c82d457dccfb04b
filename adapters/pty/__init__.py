"""Real pseudo-terminals for local programs."""

from adapters.pty.process import PtyProcess, PtySpawnError

__all__ = ["PtyProcess", "PtySpawnError"]
