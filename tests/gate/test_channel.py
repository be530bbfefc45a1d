"""The plain-data channel between the properties and the sandbox: exact types round-trip, everything else is
refused or a handle, and no malformed frame decodes."""

import datetime
import enum
import http
import io
import math
import re
import struct
import sys
import uuid
import zoneinfo
from collections import namedtuple
from decimal import Decimal
from fractions import Fraction
from typing import NamedTuple

import pytest

from gate.channel import MAX_DEPTH, MAX_FRAME, ChannelError, NotPlain, decode, encode, read_frame, write_frame

PLAIN_VALUES = [None, True, False, 0, -(10**80), 1.5, -0.0, float("inf"), "text \udc80 with a lone surrogate",
                b"\x00\xffbytes", Decimal("-0.00"), Decimal("sNaN"), Fraction(-3, 7), complex(1.5, -2),
                (1, "a"), [1, [2, (3,)]], {1, "x"}, frozenset({b"k"}), {(1, "k"): [Decimal("1.10")], "n": None},
                bytearray(b"\x00mutable"), uuid.UUID(int=2**127 + 5), datetime.date(2024, 2, 29),
                datetime.datetime(2024, 1, 1, 2, 3, 4, 5), datetime.time(23, 59, 59, 999999),
                datetime.timedelta(days=-1, seconds=5, microseconds=7), datetime.timezone.utc,
                datetime.timezone(datetime.timedelta(hours=-5), "EST"),
                datetime.datetime(2024, 11, 3, 1, 30, fold=1, tzinfo=zoneinfo.ZoneInfo("America/New_York")),
                datetime.time(1, 2, tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30))),
                http.HTTPStatus.NOT_FOUND, re.IGNORECASE | re.MULTILINE, slice(1, None, -2), range(3, -9, -2)]


def _through_frame(value):
    stream = io.BytesIO()
    write_frame(stream, {"value": encode(value)})
    stream.seek(0)
    return decode(read_frame(stream)["value"])


@pytest.mark.parametrize("value", PLAIN_VALUES, ids=lambda v: type(v).__name__)
def test_plain_values_cross_with_their_exact_type(value):
    back = _through_frame(value)
    assert type(back) is type(value)
    if isinstance(value, (datetime.datetime, datetime.time)):
        assert back.tzinfo == value.tzinfo and back.fold == value.fold
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


class AlwaysEqual(NamedTuple):
    x: int

    def __eq__(self, other):
        return True


@pytest.mark.parametrize("liar", [Cents("1"), AlwaysEqual(1), type("S", (str,), {})("s"),
                                  type("D", (datetime.date,), {})(2024, 1, 1)],
                         ids=["Decimal", "namedtuple with its own __eq__", "str", "date"])
def test_subclasses_of_plain_types_are_refused_never_converted(liar):
    with pytest.raises(NotPlain, match="is a subclass of .*; only exact plain types cross"):
        encode([1, liar], handle_of=lambda obj: ["h", 1, {}])
    assert encode([1, Decimal("1")]) == ["l", [1, ["D", "1"]]]  # the exact type beside it crosses


Point = namedtuple("Point", "x y")


class Span(NamedTuple):
    start: datetime.date
    end: datetime.date | None = None


def test_named_tuples_cross_as_their_class_or_one_of_that_name_and_fields():
    assert _through_frame(Point(1, [2])) == Point(1, [2]) and type(_through_frame(Point(1, 2))) is Point
    assert type(_through_frame(Span(datetime.date(2024, 1, 1)))) is Span  # a class of a loaded module: that class
    data = encode(Point(1, 2))
    data[1] = "not.loaded"
    elsewhere = decode(data)
    assert elsewhere == (1, 2) and elsewhere.y == 2 and type(elsewhere).__name__ == "Point"
    assert type(decode(data)) is type(elsewhere)  # one made class per name and fields
    with pytest.raises(ChannelError, match="malformed named tuple"):
        decode(["n", "m", "P", ["_secret"], [1]])


def test_time_zones_and_enums_that_cannot_cross_are_named():
    class Shifted(datetime.tzinfo):
        def utcoffset(self, dt):
            return datetime.timedelta(hours=1)

    with pytest.raises(NotPlain, match="Shifted cannot cross"):
        encode(datetime.datetime(2024, 1, 1, tzinfo=Shifted()))
    assert encode(Colour.RED, handle_of=lambda obj: ["h", 3]) == ["h", 3]  # a target's own enum is a handle
    with pytest.raises(ChannelError, match="standard-library enum"):
        decode(["E", "os", "environ", 1])  # a loaded name that is no enum builds nothing
    assert "zipapp" not in sys.modules
    with pytest.raises(ChannelError):
        decode(["E", "zipapp", "Anything", 1])  # nothing is imported on the sender's word
    assert "zipapp" not in sys.modules


def test_other_objects_are_handles_or_refused():
    marker = object()
    assert encode({"k": marker}, handle_of=lambda obj: ["h", 7]) == ["d", [["k", ["h", 7]]]]
    with pytest.raises(NotPlain, match="builtins.object is not plain data"):
        encode(marker)


@pytest.mark.parametrize("data", [["pickle", "gASVAA=="], ["t"], ["t", [1], 2], ["D", 5], ["F", 1, 0], ["F", 1.0, 2],
                                  ["b", "not base64!"], ["d", [[["l", [1]], 2]]], ["c", 1, 2], {"a": 1}, [], [3, 4],
                                  ["h", 1], ["rg", 1, 2], ["rg", 1, 2, 0], ["rg", 1.0, 2, 1]])
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
