"""What idea types into an agent after a usage limit (docs/profiles.md quotes these)."""

RESUME_PROMPT = (
    "[idea · session resumed] Your provider's usage limit has reset and idea resumed this "
    "session. Continue the work you were doing where you left off. If a task from idea was "
    "interrupted by the limit, it is delivered to you again right after this message: "
    "answer it then, under its ticket."
)
"""Sent through the agent's FIFO, first, when it resumes at the reset (same profile)."""

FALLBACK_PROMPT = (
    "[idea · continued on another profile] The session you were running in hit its "
    "provider's usage limit, so idea moved you to another profile. Your instructions and the "
    "handoff of your conversation are in your context: continue the work from there. If a "
    "task from idea was interrupted, it is delivered to you again right after this message."
)
"""Sent first when the agent continues on its fallback profile, and when it swaps back."""
