"""The plain-data channel between the properties and the sandbox: exact types round-trip, everything else is
refused or a handle, and no malformed frame decodes."""

import enum
import io
import math
import struct
from collections import namedtuple
from decimal import Decimal
from fractions import Fraction

import pytest

from gate.channel import MAX_DEPTH, MAX_FRAME, ChannelError, NotPlain, decode, encode, read_frame, write_frame

PLAIN_VALUES = [None, True, False, 0, -(10**80), 1.5, -0.0, float("inf"), "text \udc80 with a lone surrogate",
                b"\x00\xffbytes", Decimal("-0.00"), Decimal("sNaN"), Fraction(-3, 7), complex(1.5, -2),
                (1, "a"), [1, [2, (3,)]], {1, "x"}, frozenset({b"k"}), {(1, "k"): [Decimal("1.10")], "n": None}]


def _through_frame(value):
    stream = io.BytesIO()
    write_frame(stream, {"value": encode(value)})
    stream.seek(0)
    return decode(read_frame(stream)["value"])


@pytest.mark.parametrize("value", PLAIN_VALUES, ids=lambda v: type(v).__name__)
def test_plain_values_cross_with_their_exact_type(value):
    back = _through_frame(value)
    assert type(back) is type(value)
    if isinstance(value, Decimal) and value.is_snan():
        assert back.is_snan()
    else:
        assert back == value and repr(back) == repr(value)
    assert math.copysign(1, _through_frame(-0.0)) == -1.0 and math.isnan(_through_frame(float("nan")))


class Cents(Decimal):
    def __eq__(self, other):
        return True


class Colour(enum.IntEnum):
    RED = 1


@pytest.mark.parametrize("liar", [Cents("1"), Colour.RED, namedtuple("P", "x")(1), type("S", (str,), {})("s")],
                         ids=["Decimal", "IntEnum", "namedtuple", "str"])
def test_subclasses_of_plain_types_are_refused_never_converted(liar):
    with pytest.raises(NotPlain, match="is a subclass of .*; only exact plain types cross"):
        encode([1, liar], handle_of=lambda obj: ["h", 1, {}])
    assert encode([1, Decimal("1")]) == ["l", [1, ["D", "1"]]]  # the exact type beside it crosses


def test_other_objects_are_handles_or_refused():
    marker = object()
    assert encode({"k": marker}, handle_of=lambda obj: ["h", 7]) == ["d", [["k", ["h", 7]]]]
    with pytest.raises(NotPlain, match="builtins.object is not plain data"):
        encode(marker)


@pytest.mark.parametrize("data", [["pickle", "gASVAA=="], ["t"], ["t", [1], 2], ["D", 5], ["F", 1, 0], ["F", 1.0, 2],
                                  ["b", "not base64!"], ["d", [[["l", [1]], 2]]], ["c", 1, 2], {"a": 1}, [], [3, 4],
                                  ["h", 1]])
def test_malformed_values_never_decode(data):
    with pytest.raises(ChannelError):
        decode(data)


def test_nesting_and_frame_size_are_bounded():
    deep: list = ["l", []]
    for _ in range(MAX_DEPTH + 5):
        deep = ["l", [deep]]
    with pytest.raises(ChannelError, match="nested deeper"):
        decode(deep)
    nested: list = []
    for _ in range(MAX_DEPTH + 5):
        nested = [nested]
    with pytest.raises(NotPlain, match="nested deeper"):
        encode(nested)
    with pytest.raises(ChannelError, match="exceeds"):
        read_frame(io.BytesIO(struct.pack(">I", MAX_FRAME + 1)))
    with pytest.raises(ChannelError, match="closed"):
        read_frame(io.BytesIO(struct.pack(">I", 10) + b"{}"))
    with pytest.raises(ChannelError, match="not an object"):
        read_frame(io.BytesIO(struct.pack(">I", 2) + b"[]"))
    stream = io.BytesIO()
    write_frame(stream, {"ok": 1})
    assert read_frame(io.BytesIO(stream.getvalue())) == {"ok": 1}
