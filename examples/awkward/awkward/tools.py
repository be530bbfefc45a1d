"""Small helpers whose properties need free names, round trips, in-place checks and loops."""

from __future__ import annotations

SEPARATOR = "."


def format(value: int, width: int = 0) -> str:
    """Write value in decimal with a comma between thousands, right-aligned with spaces to at least width."""
    return f"{value:,}".rjust(width)


def dedupe(items: list) -> None:
    """Remove repeated items from the list in place, keeping the first occurrence of each, in order."""
    seen = set()
    write = 0
    for item in items:
        if item not in seen:
            seen.add(item)
            items[write] = item
            write += 1
    del items[write:]


def encode(data: bytes) -> str:
    """Run-length encode bytes as text: each run of one byte value becomes '<count>x<two hex digits>', runs joined by '.'.

    The empty input encodes to the empty string; decode() is the inverse.
    """
    runs: list[str] = []
    index = 0
    while index < len(data):
        end = index
        while end < len(data) and data[end] == data[index]:
            end += 1
        runs.append(f"{end - index}x{data[index]:02x}")
        index = end
    return SEPARATOR.join(runs)


def decode(text: str) -> bytes:
    """Bytes from the run-length text that encode() writes. Raises ValueError on text it cannot have written."""
    if not text:
        return b""
    out = bytearray()
    for run in text.split(SEPARATOR):
        count, sep, byte = run.partition("x")
        if not sep or not count.isdigit() or int(count) < 1 or len(byte) != 2:
            raise ValueError(f"bad run {run!r}")
        out += bytes([int(byte, 16)]) * int(count)
    return bytes(out)


def share(total: int, parts: int) -> tuple[int, int]:
    """Split total into parts equal shares: (share, remainder) with 0 <= remainder < parts. parts must be positive."""
    if parts <= 0:
        raise ValueError("parts must be positive")
    return total // parts, total % parts


def count_runs(values: list[int]) -> int:
    """The number of maximal runs of equal adjacent values; 0 for an empty list."""
    runs = 0
    previous = object()
    for value in values:
        if value != previous:
            runs += 1
            previous = value
    return runs
