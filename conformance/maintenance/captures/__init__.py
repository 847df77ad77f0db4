"""Captures: the real ``pi`` CLI run in RPC mode against a scripted provider on loopback.

A scenario (``corpus/captures/<name>/scenario.toml``) scripts the provider's replies and the
RPC commands to send; ``pi-conformance corpus capture`` records what Pi did on all four surfaces
(events, session file, RPC answers, request bodies), normalized (docs/captures.md), and
derives corpus cases from it. Nothing recorded here is computed by our code.
"""
