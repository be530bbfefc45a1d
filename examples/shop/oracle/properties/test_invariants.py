"""Oracle properties for the shop package. A patch cannot edit this file (deny list) or its fixtures (seals)."""

import json
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from shop.billing import apply_tax, split_evenly
from shop.envelope import Envelope, parse_envelope, serialize_envelope

field_names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=8).filter(
    lambda k: k.lower() not in {"password", "ssn", "id_token", "status"})
field_values = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789/.", min_size=1, max_size=12)
statuses = st.sampled_from([200, 201, 204, 400, 404, 500, 503])
envelopes = st.builds(Envelope, statuses, st.dictionaries(field_names, field_values, max_size=4))


@given(status=st.sampled_from([200, 201, 202]))
def test_a_2xx_without_body_is_not_success_unless_204(status):
    assert not parse_envelope(f"status: {status}\n").is_success()


@given(envelopes)
def test_serialized_envelopes_parse_back(envelope):
    expected_fields = {} if envelope.status == 204 else envelope.fields
    assert parse_envelope(serialize_envelope(envelope)) == Envelope(envelope.status, expected_fields)


@given(amount=st.decimals(min_value=0, max_value=10_000, places=2),
       rate=st.decimals(min_value=0, max_value=1, places=4))
def test_tax_never_lowers_the_amount_and_keeps_cents(amount, rate):
    out = apply_tax(amount, rate)
    assert out >= amount
    assert out == out.quantize(Decimal("0.01"))


@given(total=st.decimals(min_value=0, max_value=1000, places=2), parts=st.integers(1, 12))
def test_split_sums_to_total_within_a_cent(total, parts):
    shares = split_evenly(total, parts)
    assert sum(shares) == total
    assert max(shares) - min(shares) <= Decimal("0.01")


@pytest.mark.fixture_invariant
@pytest.mark.parametrize("fixture_id", ["envelope-ok", "envelope-no-content", "envelope-empty-200"])
def test_sealed_envelope_keeps_its_verdict(manifest, fixture_id):
    fixture = manifest.fixture(fixture_id)
    assert parse_envelope(fixture.read_text()).is_success() is fixture.extra["must_remain"]["success"]


@pytest.mark.fixture_invariant
def test_sealed_invoice_total(manifest):
    fixture = manifest.fixture("invoice-basic")
    invoice = json.loads(fixture.read_text())
    total = apply_tax(Decimal(invoice["amount"]), Decimal(invoice["rate"]))
    assert str(total) == fixture.extra["must_remain"]["total"]
