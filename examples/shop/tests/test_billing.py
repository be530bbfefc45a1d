"""The production team's own unit tests (outside oracle/, still denied to patches by path_deny.txt)."""

from decimal import Decimal

from shop.billing import clamp_discount, normalize_currency


def test_currency_codes_are_trimmed_and_upper_case():
    assert normalize_currency(" eur ") == "EUR"


def test_discount_is_clamped():
    assert [clamp_discount(-5), clamp_discount(20), clamp_discount(80)] == [0, 20, 50]
    assert clamp_discount(Decimal("12.5")) == Decimal("12.5")
