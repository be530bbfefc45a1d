from decimal import Decimal

import pytest

from books.money import AmountError, allocate, format_amount, parse_amount


def test_allocate_spreads_the_odd_cents_first():
    assert allocate(Decimal("10.00"), 3) == [Decimal("3.34"), Decimal("3.33"), Decimal("3.33")]


def test_parse_refuses_fractions_of_a_cent():
    with pytest.raises(AmountError):
        parse_amount("1.005")
    assert format_amount(parse_amount("-3.5")) == "-3.50"
