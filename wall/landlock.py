"""A kernel wall around the sandbox process where Linux offers one (Landlock, no privileges needed): reads only
under the given roots, every file operation only in the scratch folder, no execve, no TCP bind or connect, no
signals or abstract sockets outside the process. The audit hook stays as the tripwire that reports; this is what
still holds when production code gets past the hook (a patched builtin, a path object that names one file when
checked and another when opened, SQLite's ATTACH).

Applied once, before any production code runs, and irreversible for the process. Standard library only.
"""

import ctypes
import os
import sys

CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446  # the same numbers on x86-64 and arm64
RULESET_VERSION, RULE_PATH_BENEATH, PR_SET_NO_NEW_PRIVS = 1, 1, 38
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
TRUNCATE, IOCTL_DEV = 1 << 14, 1 << 15
FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # the rights a rule on a file may carry
FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
ATTR_SIZE_BY_ABI = {1: 8, 2: 8, 3: 8, 4: 16, 5: 16}  # from 6 on: 24 (scoped signals and abstract sockets)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    libc.syscall.restype = ctypes.c_long
    return libc


def abi() -> int:
    """The Landlock ABI version this kernel offers, 0 for none."""
    libc = _libc()
    if libc is None:
        return 0
    return max(0, libc.syscall(ctypes.c_long(CREATE_RULESET), None, ctypes.c_size_t(0),
                               ctypes.c_uint32(RULESET_VERSION)))


def build(read_roots: tuple[str, ...], write_root: str | tuple[str, ...], read_write_files: tuple[str, ...] = ()) -> str:
    """Restrict this process; returns what now holds ("landlock ABI N") or "" where the kernel offers nothing (not
    Linux, too old, or a seccomp profile that forbids it): then only the audit hook stands."""
    libc, version = _libc(), abi()
    if libc is None or version < 1:
        return ""
    syscall = libc.syscall
    fs = FS_BY_ABI.get(version, (1 << 16) - 1)
    attr = _RulesetAttr(fs, 3 if version >= 4 else 0, 3 if version >= 6 else 0)
    ruleset = syscall(ctypes.c_long(CREATE_RULESET), ctypes.byref(attr),
                      ctypes.c_size_t(ATTR_SIZE_BY_ABI.get(version, 24)), ctypes.c_uint32(0))
    if ruleset < 0:
        return ""
    try:
        for root in read_roots:
            _allow(syscall, ruleset, root, READ_FILE | READ_DIR, fs)
        for path in read_write_files:
            _allow(syscall, ruleset, path, READ_FILE | WRITE_FILE, fs)
        for root in (write_root,) if isinstance(write_root, str) else write_root:
            _allow(syscall, ruleset, root, fs & ~EXECUTE, fs)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or syscall(
                ctypes.c_long(RESTRICT_SELF), ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            return ""
    finally:
        os.close(ruleset)
    return f"landlock ABI {version}"


def _allow(syscall, ruleset: int, path: str, access: int, fs: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a root that does not exist needs no rule
    try:
        if not os.path.isdir(path):
            access &= FILE_ONLY
        rule = _PathBeneath(access & fs, fd)
        syscall(ctypes.c_long(ADD_RULE), ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(rule),
                ctypes.c_uint32(0))
    finally:
        os.close(fd)
