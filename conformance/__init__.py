"""pi-conformance: score implementations of Pi's session and message formats against the real Pi."""

__version__ = "0.1.0"
