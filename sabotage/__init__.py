"""Sabotage: libcst mutation operators over one target function, and known-bad patches an oracle owner keeps."""

from sabotage.known_bad import KnownBadError, load_known_bad
from sabotage.mutants import SabotageError, all_operators, mutants_for, normalised_tree, select_operators
from sabotage.operator import Operator, Position

__all__ = [
    "KnownBadError",
    "Operator",
    "Position",
    "SabotageError",
    "all_operators",
    "load_known_bad",
    "mutants_for",
    "normalised_tree",
    "select_operators",
]
