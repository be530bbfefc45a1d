"""HTTP-like response envelopes: a status line and `key: value` body fields.

Only the 2xx, 4xx and 5xx status classes exist here. A 204 carries no body; a 200 whose body
is empty is not a success. Forbidden fields (credentials, identifiers) are never serialised.
"""

from dataclasses import dataclass, field

FORBIDDEN_FIELDS = frozenset({"password", "ssn", "id_token"})
STATUS_CLASSES = ("2xx", "4xx", "5xx")


class EnvelopeError(ValueError):
    """The text is not a valid envelope."""


def status_class(status: int) -> str:
    """The class of a status code, '2xx', '4xx' or '5xx'; EnvelopeError for any other code."""
    if not 200 <= status <= 599:
        raise EnvelopeError(f"status {status} is outside 200-599")
    label = f"{status // 100}xx"
    if label not in STATUS_CLASSES:
        raise EnvelopeError(f"status class {label} is not supported")
    return label


@dataclass(frozen=True)
class Envelope:
    status: int
    fields: dict[str, str] = field(default_factory=dict)

    def is_success(self) -> bool:
        """2xx with a body, or a 204 (which never has one)."""
        if status_class(self.status) != "2xx":
            return False
        if self.status == 204:
            return True
        return bool(self.fields)

    def to_dict(self) -> dict:
        """A JSON-ready dict without forbidden fields."""
        safe = {k: v for k, v in self.fields.items() if k.lower() not in FORBIDDEN_FIELDS}
        return {"status": self.status, "fields": safe}


def serialize_envelope(envelope: Envelope) -> str:
    """Text form: 'status: N' then sorted 'key: value' lines; forbidden fields and 204 bodies dropped."""
    lines = [f"status: {envelope.status}"]
    if envelope.status != 204:
        for key in sorted(envelope.fields):
            if key.lower() in FORBIDDEN_FIELDS:
                continue
            lines.append(f"{key}: {envelope.fields[key]}")
    return "\n".join(lines) + "\n"


def parse_envelope(text: str) -> Envelope:
    """Parse the text form written by serialize_envelope; EnvelopeError on anything malformed."""
    lines = text.splitlines()
    if not lines or not lines[0].startswith("status: "):
        raise EnvelopeError("first line must be 'status: N'")
    try:
        status = int(lines[0][len("status: "):])
    except ValueError:
        raise EnvelopeError(f"bad status line {lines[0]!r}") from None
    status_class(status)
    fields = {}
    for line in lines[1:]:
        key, sep, value = line.partition(": ")
        if not sep or not key:
            raise EnvelopeError(f"bad field line {line!r}")
        fields[key] = value
    if status == 204 and fields:
        raise EnvelopeError("a 204 carries no body")
    return Envelope(status, fields)
