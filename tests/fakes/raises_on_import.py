"""A Python implementation module whose import fails: python:raises_on_import:impl."""

raise RuntimeError("cannot find my configuration file")
