"""Money arithmetic. All amounts are Decimal and every result is rounded half-even to cents."""

from decimal import ROUND_HALF_EVEN, Decimal

CENT = Decimal("0.01")


def apply_tax(amount: Decimal, rate: Decimal) -> Decimal:
    """Return amount plus tax at rate, rounded half-even to cents.

    amount and rate must not be negative.
    """
    if amount < 0 or rate < 0:
        raise ValueError("amount and rate must not be negative")
    return (amount + amount * rate).quantize(CENT, rounding=ROUND_HALF_EVEN)


def split_evenly(total: Decimal, parts: int) -> list[Decimal]:
    """Split total into `parts` amounts of whole cents that differ by at most one cent and sum to total."""
    if parts < 1:
        raise ValueError("parts must be at least 1")
    cents = int((total / CENT).to_integral_value(rounding=ROUND_HALF_EVEN))
    base, extra = divmod(cents, parts)
    return [(Decimal(base + (1 if i < extra else 0)) * CENT) for i in range(parts)]


def normalize_currency(code):
    """Canonical ISO-4217 style currency code: surrounding blanks removed, upper case."""
    return code.strip().upper()


def clamp_discount(percent, ceiling=50):
    """Clamp a discount percentage into [0, ceiling]."""
    if percent < 0:
        return 0
    if percent > ceiling:
        return ceiling
    return percent
