"""Length-prefixed JSON frames over file descriptors, of bounded size: what crosses between a boxed process and
the one that trusts nothing it says. Never pickle; the reader validates every field of what it gets."""

import json
import os
import struct

MAX_FRAME = 16 * 2**20
HEADER = struct.Struct(">I")


class FrameError(Exception):
    """A malformed, oversized or cut-off frame: the other side is lying or died mid-frame."""


def encode(message) -> bytes:
    payload = json.dumps(message, separators=(",", ":"), allow_nan=False).encode("utf-8")
    if len(payload) > MAX_FRAME:
        raise FrameError(f"a frame of {len(payload):,} bytes (the limit is {MAX_FRAME:,})")
    return HEADER.pack(len(payload)) + payload


def write(fd: int, message) -> None:
    data = memoryview(encode(message))
    while data:
        data = data[os.write(fd, data):]


def read_exactly(fd: int, size: int) -> bytes:
    """`size` bytes, or FrameError at end of file (b"" when it ends before the first byte)."""
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 2**20))
        if not chunk:
            if left == size:
                return b""
            raise FrameError(f"the stream ended inside a frame ({size - left} of {size} bytes)")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_raw(fd: int, limit: int = MAX_FRAME) -> bytes | None:
    """One frame's payload bytes; None at a clean end of the stream."""
    header = read_exactly(fd, HEADER.size)
    if not header:
        return None
    if len(header) < HEADER.size:
        raise FrameError("the stream ended inside a frame header")
    (size,) = HEADER.unpack(header)
    if size > limit:
        raise FrameError(f"a frame of {size:,} bytes announced (the limit is {limit:,})")
    payload = read_exactly(fd, size)
    if size and not payload:
        raise FrameError("the stream ended inside a frame")
    return payload


def decode(payload: bytes):
    """JSON of a frame; FrameError for anything else (bad UTF-8, bad JSON, NaN, nesting too deep)."""
    try:
        return json.loads(payload.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise FrameError(f"a frame that is not JSON: {exc}") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not plain JSON")


def read(fd: int, limit: int = MAX_FRAME):
    payload = read_raw(fd, limit)
    return None if payload is None else decode(payload)
