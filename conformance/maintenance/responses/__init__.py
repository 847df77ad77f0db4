"""The response corpus: provider HTTP responses built by construction, one encoder per wire."""
