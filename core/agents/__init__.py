"""Agents: AI profiles, agent manifests, templates, composed context and launch rules.

Pure domain (no I/O, ids and clocks injected). Files are read and written by
`adapters.store.agents_codec`, `profiles_codec` and `templates_store`.
"""
