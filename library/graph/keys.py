"""Semantic keys: the vocabulary through which one tool's output feeds another's input.

A key is a semantic type (``email``, ``money``...), ``id:<resource>`` for ids, or
``key:<name>`` for untyped business identifiers that services share by name (SKUs, invoice
and tracking numbers). Free text gets no key: a subject line says nothing about which
record it belongs to, so linking on it would only add noise.
"""

from __future__ import annotations

from library.runtime.semantic import ID, REGISTRY

# How much a shared value says about the information flowing across an edge.
TYPE_WEIGHTS: dict[str, float] = {
    "id": 3.0,
    "email": 3.0,
    "phone": 2.5,
    "key": 2.0,
    "person_name": 2.0,
    "company": 2.0,
    "url": 1.5,
    "address": 1.5,
    "money": 1.0,
    "date": 0.8,
    "datetime": 0.4,
    "currency": 0.3,
    "country": 0.3,
}
# Values every record carries (a timestamp, a link, an amount, a country): sharing one says
# nothing about which record it belongs to, so these never make an edge on their own (on real
# specs they made 77% of edges: every tool with a ``created_at`` fed every date filter). They
# ride along on an edge a stronger key makes.
WEAK = frozenset({"money", "date", "datetime", "currency", "country", "url"})
CROSS_SERVICE_BONUS = 2.0  # the point of composition is information crossing services
REQUIRED_BONUS = 1.25  # a value the consumer cannot do without

_NATURAL_TAILS = frozenset({"number", "code", "key", "reference"})
_NOT_IDENTIFIERS = frozenset(
    {"postal_code", "zip_code", "country_code", "currency_code", "phone_number", "passcode"}
)


def leaf(path: str) -> str:
    """``data[].customer_email`` -> ``customer_email``."""
    return path.rsplit(".", 1)[-1].replace("[]", "")


def natural_key(name: str) -> str | None:
    """``sku``/``product_sku`` -> ``key:sku``; ``invoice_number`` -> ``key:invoice_number``."""
    tokens = [t for t in name.lower().split("_") if t]
    if not tokens or name.lower() in _NOT_IDENTIFIERS:
        return None
    if tokens[-1] == "sku":
        return "key:sku"
    if len(tokens) >= 2 and tokens[-1] in _NATURAL_TAILS:
        return "key:" + "_".join(tokens)
    return None


def field_key(
    semantic: str | None, ref: str | None, name: str, json_type: str | None = None
) -> str | None:
    if semantic == ID:
        return f"id:{ref}" if ref else None
    if semantic in REGISTRY:
        return semantic
    if semantic is None and json_type in ("string", None):
        return natural_key(name)
    return None


def key_type(key: str) -> str:
    return key.split(":", 1)[0]


def is_weak(key: str) -> bool:
    """Whether ``key`` is too common a value to make an edge on its own (see ``WEAK``)."""
    return key_type(key) in WEAK


def link_weight(key: str, cross_service: bool, required: bool) -> float | None:
    """The weight of an output->input link on ``key``, or None if the key does not link."""
    kind = key_type(key)
    if kind == "id" and cross_service:
        return None  # ids are local: the same resource name in two services is two things
    if kind in WEAK and cross_service and not required:
        return None  # an optional date or link across services is a filter, not a need
    weight = TYPE_WEIGHTS.get(kind, 0.1)
    if cross_service:
        weight *= CROSS_SERVICE_BONUS
    if required:
        weight *= REQUIRED_BONUS
    return weight
