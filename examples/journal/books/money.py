"""Money as Decimal cents: parse, format and split amounts without losing a cent."""

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

CENT = Decimal("0.01")


class AmountError(ValueError):
    """An amount that is not a number of cents."""


def parse_amount(text: str) -> Decimal:
    """'-3.50' -> Decimal('-3.50'); more than two decimals or anything not a number is an AmountError."""
    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise AmountError(f"not an amount: {text!r}") from None
    if not value.is_finite() or value != value.quantize(CENT):
        raise AmountError(f"not a whole number of cents: {text!r}")
    return value.quantize(CENT)


def format_amount(value: Decimal) -> str:
    """Two decimals, a leading minus for debts: Decimal('-3.5') -> '-3.50'."""
    return f"{value.quantize(CENT, rounding=ROUND_HALF_EVEN):.2f}"


def allocate(total: Decimal, parts: int) -> list[Decimal]:
    """Split total into parts shares that differ by at most a cent and sum to total exactly."""
    if parts < 1:
        raise ValueError("parts must be at least 1")
    cents = int(total.quantize(CENT) / CENT)
    share, extra = divmod(cents, parts)
    return [(share + (1 if i < extra else 0)) * CENT for i in range(parts)]
