"""Keyed same-shape replacements: equal inputs equal, distinct ones distinct, the shape kept,
and another key another mapping."""

from __future__ import annotations

from conformance.maintenance.keyed_shapes import KeyedShapes


def test_a_run_keeps_its_shape_and_equal_runs_map_equal():
    shapes = KeyedShapes(b"a" * 32)
    made = shapes.text("Hello, World-42 a1b2c3d4 /home/x")
    assert made == shapes.text("Hello, World-42 a1b2c3d4 /home/x")
    hello, world, hexa = made.split(" ")[0][:-1], made.split(" ")[1], made.split(" ")[2]
    assert hello[0].isupper() and hello[1:].islower() and hello != "Hello"
    assert world[:5] != "World" and world[5] == "-" and world[6:].isdigit()
    assert all(ch in "0123456789abcdef" for ch in hexa) and hexa != "a1b2c3d4"
    assert made.endswith("/" + made.split("/")[-1]) and "home" not in made


def test_distinct_runs_never_share_a_replacement():
    shapes = KeyedShapes(b"b" * 32)
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    assert len({shapes.run(ch) for ch in letters}) == 26


def test_another_key_is_another_mapping():
    words = [f"word{n}" for n in range(50)]
    one, two = KeyedShapes(b"c" * 32), KeyedShapes(b"d" * 32)
    assert sum(one.run(w) == two.run(w) for w in words) < 5


def test_a_number_keeps_its_kind_sign_and_magnitude():
    shapes = KeyedShapes(b"e" * 32)
    for value in (987654321, -42, 0.0036, 1e-05, 12.5):
        made = shapes.number(value)
        assert type(made) is type(value) and (made < 0) == (value < 0)
        assert abs(value) / 10 < abs(made) < abs(value) * 10 or value == 1e-05
        assert shapes.number(value) == made
    assert shapes.number(0) == 0 and shapes.number(float("inf")) == float("inf")


def test_any_other_character_keeps_its_utf8_width():
    shapes = KeyedShapes(b"f" * 32)
    for text in ("naïve", "秘密「」", "\U0001f511\U0001f409", "\ud800"):
        made = shapes.text(text)
        assert made != text and len(made) == len(text)
        assert [len(ch.encode("utf-8", "surrogatepass")) for ch in made] == \
            [len(ch.encode("utf-8", "surrogatepass")) for ch in text]
