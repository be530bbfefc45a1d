"""books: money arithmetic, a plain-text journal and the double-entry check (the gate's second worked example)."""

__version__ = "1.4.0"
