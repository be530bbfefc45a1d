"""A small shop: billing, HTTP-like envelopes and diff hunks. The bundled drafting target."""
