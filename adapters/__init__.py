"""Adapters: one package per technology, each implementing a port of core."""
