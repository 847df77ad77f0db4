"""Implementations: the protocol, the ways to reach one, the known ones, the reference."""
