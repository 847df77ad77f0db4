"""siblings: which versions of a release's own line npm ranges admit."""

from __future__ import annotations

import pytest

from conformance.implementations.known.siblings import admits


@pytest.mark.parametrize(("spec", "version", "expected"), [
    ("^0.79.3", "0.79.3", True), ("^0.79.3", "0.79.10", True), ("^0.79.3", "0.80.0", False),
    ("^0.79.3", "0.79.2", False), ("^1.0.3", "1.6.0", True), ("^1.0.3", "2.0.0", False),
    ("^0.0.3", "0.0.4", False), ("~0.79.3", "0.79.9", True), ("~1.2.3", "1.3.0", False),
    (">=0.79.3", "1.0.0", True), ("0.79.3", "0.79.3", True), ("0.79.3", "0.79.4", False),
    ("^0.79.3", "0.79.4-beta.1", False), ("workspace:*", "0.79.3", False),
])
def test_the_range_forms_the_line_uses(spec: str, version: str, expected: bool):
    assert admits(spec, version) is expected
