"""A seccomp filter (classic BPF, loaded through prctl with ctypes; standard library only): the system calls that
would let boxed code leave its box fail with EPERM, whatever the Python layer above was talked into.

Refused: new programs and processes (execve, execveat, fork, vfork, clone without CLONE_THREAD, clone3, which
makes glibc fall back to clone), tracing and reaching into other processes (ptrace, process_vm_*, pidfd_*, kcmp),
signals to any process but this one (kill and tgkill are checked against this pid; tkill refused), raising or
setting limits (setrlimit, prlimit64 with a new limit), new namespaces and mounts, sockets of any family but
socketpair's, io_uring (whose operations seccomp cannot see), bpf, userfaultfd, perf_event_open, keyctl.
"""

import ctypes
import errno
import os
import platform
import struct
import sys

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
# System call numbers by machine: only the two the project runs on (x86-64 and arm64, which has no fork,
# vfork or old-style calls).
CALLS = {
    "x86_64": dict(execve=59, execveat=322, fork=57, vfork=58, clone=56, clone3=435, ptrace=101, kill=62,
                   tkill=200, tgkill=234, pidfd_open=434, pidfd_send_signal=424, pidfd_getfd=438,
                   process_vm_readv=310, process_vm_writev=311, process_madvise=440, kcmp=312, setrlimit=160,
                   prlimit64=302, unshare=272, setns=308, mount=165, umount2=166, pivot_root=155, chroot=161,
                   socket=41, connect=42, bind=49, listen=50, io_uring_setup=425, io_uring_enter=426,
                   io_uring_register=427, bpf=321, userfaultfd=323, perf_event_open=298, keyctl=250,
                   add_key=248, request_key=249, move_mount=429, open_tree=428, fsopen=430, fsmount=432,
                   setpgid=109, setsid=112, personality=135),
    "aarch64": dict(execve=221, execveat=281, clone=220, clone3=435, ptrace=117, kill=129, tkill=130,
                    tgkill=131, pidfd_open=434, pidfd_send_signal=424, pidfd_getfd=438, process_vm_readv=270,
                    process_vm_writev=271, process_madvise=440, kcmp=272, setrlimit=164, prlimit64=261,
                    unshare=97, setns=268, mount=40, umount2=39, pivot_root=41, chroot=51, socket=198,
                    connect=203, bind=200, listen=201, io_uring_setup=425, io_uring_enter=426,
                    io_uring_register=427, bpf=280, userfaultfd=282, perf_event_open=241, keyctl=219,
                    add_key=217, request_key=218, move_mount=429, open_tree=428, fsopen=430, fsmount=432,
                    setpgid=154, setsid=157, personality=92),
}
CHECKED = {"clone", "kill", "tgkill", "prlimit64", "clone3"}  # decided by an argument, below
CLONE_THREAD = 0x10000
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
LD_W_ABS, JEQ_K, JGE_K, JSET_K, RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
X32_BIT = 0x40000000  # x86-64's second system call table, numbered from here: refused whole
NR, ARCH, ARG = 0, 4, 16  # offsets in struct seccomp_data; argument i at ARG + 8 * i (low half first)


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF)


def program(pid: int, machine: str | None = None) -> bytes:
    """The filter for this process (pid: the one process signals may go to)."""
    machine = machine or platform.machine()
    calls = CALLS[machine]
    deny = _insn(RET_K, 0, 0, RET_ERRNO | errno.EPERM)
    nosys = _insn(RET_K, 0, 0, RET_ERRNO | errno.ENOSYS)
    allow = _insn(RET_K, 0, 0, RET_ALLOW)
    out = [_insn(LD_W_ABS, 0, 0, ARCH), _insn(JEQ_K, 1, 0, AUDIT_ARCH[machine]),
           _insn(RET_K, 0, 0, RET_KILL_PROCESS), _insn(LD_W_ABS, 0, 0, NR), _insn(JGE_K, 0, 1, X32_BIT), deny]
    for name, number in sorted(calls.items()):
        if name in CHECKED:
            continue
        out += [_insn(JEQ_K, 0, 1, number), deny]
    # clone: threads only. clone3 hides its flags behind a pointer: ENOSYS sends glibc back to clone.
    out += [_insn(JEQ_K, 0, 1, calls["clone3"]), nosys]
    out += [_insn(JEQ_K, 0, 4, calls["clone"]), _insn(LD_W_ABS, 0, 0, ARG), _insn(JSET_K, 1, 0, CLONE_THREAD),
            deny, allow]
    # kill(pid, sig) and tgkill(tgid, tid, sig): only this process, by its own positive pid.
    for name in ("kill", "tgkill"):
        out += [_insn(JEQ_K, 0, 6, calls[name]), _insn(LD_W_ABS, 0, 0, ARG + 4), _insn(JEQ_K, 0, 2, 0),
                _insn(LD_W_ABS, 0, 0, ARG), _insn(JEQ_K, 1, 0, pid), deny, allow]
    # prlimit64(pid, resource, new, old): reading a limit is fine, setting one is not.
    out += [_insn(JEQ_K, 0, 6, calls["prlimit64"]), _insn(LD_W_ABS, 0, 0, ARG + 16), _insn(JEQ_K, 0, 3, 0),
            _insn(LD_W_ABS, 0, 0, ARG + 20), _insn(JEQ_K, 0, 1, 0), allow, deny]
    out.append(allow)
    return b"".join(out)


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install() -> str:
    """Load the filter into this process (and every thread and child it makes later); "seccomp" when it holds,
    "" where the platform offers none (not Linux, another machine, or a kernel without seccomp)."""
    machine = platform.machine()
    if not sys.platform.startswith("linux") or machine not in CALLS:
        return ""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return ""
    code = program(os.getpid(), machine)
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return ""
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        return ""
    return "seccomp"
