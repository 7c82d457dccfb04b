"""Session limits (issue 10, SLM): the typed signal every detector level reports, the one
pure reset-time parser, and the port level-1 readers implement."""

from core.session_limits.port import LimitQuery, LimitReader
from core.session_limits.signal import LimitLevel, LimitSignal, bounded_text
from core.session_limits.timeparse import ROLLOVER_GRACE, parse_epoch, parse_reset

__all__ = [
    "ROLLOVER_GRACE",
    "LimitLevel",
    "LimitQuery",
    "LimitReader",
    "LimitSignal",
    "bounded_text",
    "parse_epoch",
    "parse_reset",
]
