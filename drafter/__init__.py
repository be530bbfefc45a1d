"""drafter: draft invariant properties in a lane the patch cannot touch."""

__version__ = "0.1.0"
