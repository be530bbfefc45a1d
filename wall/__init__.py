"""The wall around untrusted code, shared by drafter's candidate processes and the gate's sandbox: Landlock (file
system and TCP), a seccomp filter (no new programs or processes, no signals out, no raised limits, no sockets), a
network namespace of its own where the process may make one, and plain-data frames to talk across it.

Standard library only, imports neither drafter nor gate: a boxed process imports it before any untrusted code.
"""

import ctypes
import sys

from wall.landlock import abi, build

CLONE_NEWNET = 0x40000000


def leave_network() -> str:
    """A network namespace of this process's own (a loopback that is down): "netns", or "" where the platform
    refuses one (not Linux, not root, user namespaces off)."""
    if not sys.platform.startswith("linux"):
        return ""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return "netns" if libc.unshare(CLONE_NEWNET) == 0 else ""
    except (OSError, AttributeError):
        return ""


def enclose(read_roots: tuple[str, ...], write_roots: tuple[str, ...], read_write_files: tuple[str, ...] = (),
            *, seccomp: bool = True) -> tuple[str, ...]:
    """Put this process behind every layer the platform offers, irreversibly; returns the layers that hold
    (e.g. ("netns", "landlock ABI 7", "seccomp")), empty where there is no wall at all."""
    from wall import seccomp as filter_

    layers = [leave_network(), build(tuple(read_roots), tuple(write_roots), tuple(read_write_files))]
    if seccomp:
        layers.append(filter_.install())
    return tuple(layer for layer in layers if layer)


def described(layers: tuple[str, ...]) -> str:
    """What a report says about the wall: its layers, or that there is none."""
    return " + ".join(layers) if layers else "none (only the audit hook)"


__all__ = ["abi", "build", "enclose", "leave_network", "described"]
