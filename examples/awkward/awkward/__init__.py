"""Honest code with shapes that trip naive candidate checks: builtin-like names, in-place changes, pairs, tuples."""
