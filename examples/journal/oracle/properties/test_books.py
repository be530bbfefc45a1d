"""Oracle properties for books. A patch cannot edit this file (deny list) or its fixtures (seals)."""

from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from books.balance import is_balanced, unbalanced
from books.journal import ParseError, format_journal, parse_journal
from books.money import allocate, format_amount, parse_amount

cents = st.integers(min_value=-10**9, max_value=10**9).map(lambda c: Decimal(c) / 100)
accounts = st.text(alphabet="abcdefghijklmnopqrstuvwxyz:", min_size=1, max_size=12)
dates = st.dates().map(lambda d: f"{d.year:04d}-{d.month:02d}-{d.day:02d}")
memos = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def transactions(draw):
    amounts = draw(st.lists(cents, min_size=1, max_size=4))
    postings = [(draw(accounts), a) for a in amounts] + [(draw(accounts), -sum(amounts))]
    return (draw(dates), draw(memos), tuple(postings))


@given(cents)
def test_amounts_format_and_parse_back(amount):
    assert parse_amount(format_amount(amount)) == amount


@given(total=cents, parts=st.integers(1, 12))
def test_allocation_sums_to_the_total_and_shares_differ_by_a_cent_at_most(total, parts):
    shares = allocate(total, parts)
    assert len(shares) == parts
    assert sum(shares) == total
    assert max(shares) - min(shares) <= Decimal("0.01")


@given(st.lists(transactions(), max_size=4))
def test_journals_round_trip_and_stay_balanced(txns):
    parsed = parse_journal(format_journal(txns))
    assert parsed == txns
    assert is_balanced(parsed)


@given(st.tuples(st.integers(0, 10**6), st.integers(0, 99), st.integers(1, 9)).map(
    lambda t: f"{t[0]}.{t[1]:02d}{t[2]}"))
def test_fractions_of_a_cent_are_parse_errors(amount):
    with pytest.raises(ParseError):
        parse_journal(f"2024-01-01 x\n  a  {amount}\n")


@pytest.mark.fixture_invariant
@pytest.mark.parametrize("fixture_id", ["journal-ok", "journal-off-by-a-cent"])
def test_sealed_journal_keeps_its_balance_verdict(manifest, fixture_id):
    fixture = manifest.fixture(fixture_id)
    txns = parse_journal(fixture.read_text())
    assert is_balanced(txns) is fixture.extra["must_remain"]["balanced"]
    assert len(unbalanced(txns)) == fixture.extra["must_remain"]["unbalanced"]
