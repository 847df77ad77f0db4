"""Judging: an implementation's answers against the goldens, verdicts, baselines."""
