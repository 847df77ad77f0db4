"""Discrepancy drafts: where Pi contradicts its own docs, and where implementations differ from Pi.

``records`` reads the hand-written records about Pi and its docs (corpus/discrepancies/);
``grouping`` turns the failures in run reports into root causes; ``shrink`` reduces a failing
session to a minimal reproducer; ``drafts`` writes the issue texts and the index; ``build``
ties them together for ``pi-conformance corpus discrepancies``.
"""
