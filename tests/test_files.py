"""replace_file: a file is written whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.files import replace_file


def test_the_file_is_replaced_whole_with_its_mode(tmp_path: Path):
    path = tmp_path / "case.toml"
    path.write_text("old")
    replace_file(path, b"new")
    assert path.read_bytes() == b"new" and path.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["case.toml"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path):
    path = tmp_path / "case.toml"
    path.write_text("old")
    with pytest.raises(TypeError):
        replace_file(path, "not bytes")  # type: ignore[arg-type]
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["case.toml"]
