"""Reporting: the report stream, its renderings, run diffs, the matrix and drift."""
