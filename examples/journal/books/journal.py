"""The journal text format: a dated header line, then indented postings of an account and an amount.

    2024-01-05 Coffee
      expenses:food   3.50
      assets:cash    -3.50
"""

import re

from books.money import AmountError, format_amount, parse_amount

HEADER = re.compile(r"^(\d{4}-\d{2}-\d{2}) (.+)$")
POSTING = re.compile(r"^  +(\S+) +(\S+)$")


class ParseError(ValueError):
    """A journal line that is neither a header nor a posting under one."""


def parse_journal(text: str) -> list[tuple[str, str, tuple[tuple[str, object], ...]]]:
    """(date, memo, ((account, amount), ...)) per transaction."""
    transactions: list = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith(";"):
            continue
        header, posting = HEADER.match(line), POSTING.match(line)
        if header:
            transactions.append((header[1], header[2], ()))
        elif posting and transactions:
            try:
                amount = parse_amount(posting[2])
            except AmountError as exc:
                raise ParseError(f"line {number}: {exc}") from None
            date, memo, postings = transactions[-1]
            transactions[-1] = (date, memo, postings + ((posting[1], amount),))
        else:
            raise ParseError(f"line {number}: cannot read {line!r}")
    return transactions


def format_journal(transactions) -> str:
    lines = []
    for date, memo, postings in transactions:
        lines.append(f"{date} {memo}")
        lines += [f"  {account}  {format_amount(amount)}" for account, amount in postings]
    return "\n".join(lines) + ("\n" if lines else "")
