"""oracle-gate: decide whether a patch may merge from evidence the patch could not rewrite.

Every part returns a `Check`; anything the gate cannot read or understand is a failed check, never a pass.
"""

from gate.check import Check, GateError

__all__ = ["Check", "GateError"]
