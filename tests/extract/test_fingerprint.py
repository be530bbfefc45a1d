"""Fingerprints follow the signature and docstring, not the body, the layout or the position."""

from drafter.extract import extract

BASE = '''
def price(amount: "Decimal", rate: float = 0.5, *, mode="half") -> float:
    """Price with tax."""
    return amount * rate
'''


def fingerprint_of(write_tree, source: str) -> str:
    extraction = extract(write_tree({"m.py": source}))
    return extraction.target("m:price").fingerprint


def test_fingerprint_ignores_body_position_and_layout(write_tree):
    base = fingerprint_of(write_tree, BASE)
    same = [
        BASE.replace("return amount * rate", "total = amount * rate\n    return round(total, 2)"),  # body
        "\n\n\nimport math\n\nX = 1\n" + BASE,  # shifted down
        BASE.replace('rate: float = 0.5, *, mode="half"', "rate :float=0.5 , *,\n        mode = 'half'  # comment\n"),
        BASE.replace('"""Price with tax."""', '"""\n    Price with tax.\n    """'),  # cleaned docstring is equal
    ]
    for source in same:
        assert fingerprint_of(write_tree, source) == base, source


def test_fingerprint_changes_with_signature_or_docstring(write_tree):
    base = fingerprint_of(write_tree, BASE)
    different = [
        BASE.replace("rate: float", "rate: int"),  # annotation
        BASE.replace("0.5", "0.25"),  # default
        BASE.replace("*, mode", "mode"),  # kind
        BASE.replace("rate", "ratio"),  # name
        BASE.replace("-> float", "-> int"),  # return annotation
        BASE.replace("Price with tax.", "Price including tax."),  # docstring
        BASE.replace("def price", "async def price"),
        BASE.replace("def price", "@cache\ndef price"),
    ]
    fingerprints = [fingerprint_of(write_tree, source) for source in different]
    assert base not in fingerprints
    assert len(set(fingerprints)) == len(different)


def test_fingerprint_is_stable_across_runs(shop_src):
    first = {t.id: t.fingerprint for t in extract(shop_src).targets}
    second = {t.id: t.fingerprint for t in extract(shop_src).targets}
    assert first == second and len(set(first.values())) == len(first)
