"""The double-entry check: every transaction's postings sum to zero."""

from decimal import Decimal


def imbalance(postings) -> Decimal:
    return sum((amount for _, amount in postings), Decimal("0.00"))


def is_balanced(transactions) -> bool:
    return all(imbalance(postings) == 0 and len(postings) >= 2 for _, _, postings in transactions)


def unbalanced(transactions) -> list[str]:
    """'DATE MEMO: off by X' for every transaction whose postings do not sum to zero."""
    return [f"{date} {memo}: off by {imbalance(postings)}" for date, memo, postings in transactions
            if imbalance(postings) != 0 or len(postings) < 2]
