"""idea: the client (Textual) and the command line. Importing this package loads nothing heavy."""

from core.version import VERSION as __version__

__all__ = ["__version__"]
