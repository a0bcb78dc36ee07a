"""Every real specification in ../shared/specs: ingested without a crash, every operation either
a tool or an explained spec_error, and inference checked against what the publishers declared."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pytest

from library.ingest import ingest_document
from library.ingest.refs import child
from library.toolspec import ErrorKind, SpecError, ToolSpec, Verb

SPECS = Path(__file__).resolve().parents[1].parent / "shared" / "specs"
FILES = sorted(p for p in SPECS.rglob("*.json")) if SPECS.is_dir() else []
pytestmark = pytest.mark.skipif(not FILES, reason="../shared/specs is not present")
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


def _rel(path: Path) -> str:
    return path.relative_to(SPECS).as_posix()


@pytest.fixture(scope="module")
def ingested() -> dict[str, tuple[list[ToolSpec], list[SpecError]]]:
    return {_rel(p): ingest_document(p) for p in FILES}


def _operations(path: Path) -> list[str]:
    """JSON pointers of every operation/tool in a document, counted without the ingester."""
    raw = path.read_bytes()
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:  # JSON Lines
        return [f"/{i}" for i, line in enumerate(x for x in raw.splitlines() if x.strip())]
    if isinstance(doc, dict) and ("openapi" in doc or "swagger" in doc):
        return [
            child("/paths", p, m)
            for p, item in doc.get("paths", {}).items()
            for m in item
            if m.lower() in HTTP_METHODS
        ]
    if isinstance(doc, dict):
        return [f"/tools/{i}" for i in range(len(doc["tools"]))]
    return [f"/{i}" for i in range(len(doc))]


def _by_name(specs: list[ToolSpec]) -> dict[str, ToolSpec]:
    return {s.name: s for s in specs}


def test_every_file_ingests_without_internal_errors(ingested) -> None:
    assert len(ingested) >= 50
    for name, (specs, errors) in ingested.items():
        assert specs, f"{name}: no tools"
        bugs = [e for e in errors if e.kind == ErrorKind.INTERNAL]
        assert not bugs, f"{name}: {bugs[0].message}"
        for spec in specs:
            assert spec.input_schema.get("type") == "object", (name, spec.name)
            orjson.dumps(spec.to_row())  # every row serializes


def test_every_operation_is_a_tool_or_an_explained_error(ingested) -> None:
    total = 0
    for path in FILES:
        specs, errors = ingested[_rel(path)]
        pointers = {s.source_pointer for s in specs}
        for op in _operations(path):
            total += 1
            if op in pointers:
                continue
            reasons = [e for e in errors if op == e.pointer or op.startswith(e.pointer + "/")]
            assert reasons and all(e.message for e in reasons), (
                f"{_rel(path)}{op}: dropped silently"
            )
    assert total >= 800


def test_tau2_read_write_inference_matches_x_tool_type() -> None:
    """With the tags removed, inference from names alone agrees with tau2's read/write tags."""
    agree = total = 0
    misses = []
    for path in sorted((SPECS / "functions" / "tau2").glob("*.json")):
        doc = orjson.loads(path.read_bytes())
        tags = {t["function"]["name"]: t.pop("x-tool-type") for t in doc}
        tagged, _ = ingest_document(path)
        untagged, _ = ingest_document(orjson.dumps(doc), source_file=str(path))
        for spec in tagged:  # declared tags always win
            assert spec.access == ("read" if tags[spec.name] == "generic" else tags[spec.name])
            assert spec.access_source == "x-tool-type"
        for spec in untagged:
            if tags[spec.name] not in ("read", "write"):
                continue  # "generic" (calculate, transfer) is neither
            total += 1
            agree += spec.access == tags[spec.name]
            if spec.access != tags[spec.name]:
                misses.append(spec.name)
    assert total >= 75
    assert agree / total >= 0.95, misses


def test_read_write_follows_http_methods(ingested) -> None:
    methods: Counter[str] = Counter()
    for specs, _ in ingested.values():
        for spec in specs:
            if spec.http is None:
                continue
            method = spec.http.method
            methods[method] += 1
            if method == "GET":
                assert spec.access == "read" and spec.verb in (Verb.READ, Verb.LIST, Verb.SEARCH)
            elif method == "DELETE":
                assert (spec.access, spec.verb) == ("write", Verb.DELETE), spec.name
            elif method in ("PUT", "PATCH"):
                assert spec.access == "write" and spec.verb in (
                    Verb.UPDATE,
                    Verb.CREATE,
                    Verb.ACTION,
                )
            elif method == "POST":  # a search, or named to read (``POST /list-flows``)
                reads = (Verb.SEARCH, Verb.LIST, Verb.READ)
                assert (spec.access == "read") == (spec.verb in reads), spec.name
    assert methods["GET"] > 150 and methods["DELETE"] > 40


def test_openapi_verbs_agree_with_operation_ids(ingested) -> None:
    """Verbs inferred from method + path agree with what the operationIds say they do."""
    prefixes = {
        "list": Verb.LIST,
        "delete": Verb.DELETE,
        "create": Verb.CREATE,
        "update": Verb.UPDATE,
    }
    agree = total = 0
    for specs, _ in ingested.values():
        for spec in specs:
            word = spec.name.split("_")[0].lower()
            for prefix, verb in prefixes.items():
                if spec.http is not None and word.startswith(prefix):
                    total += 1
                    agree += spec.verb is verb
    assert total >= 60 and agree / total >= 0.85


SEMANTIC_CASES = [
    # (file, tool, side, field path, semantic type, referenced resource)
    ("mcp/docker/gmail-mcp.json", "sendMessage", "input", "to", "email", None),
    ("mcp/docker/gmail-mcp.json", "sendMessage", "input", "cc", "email", None),
    ("functions/tau2/retail.json", "find_user_id_by_email", "input", "email", "email", None),
    ("openapi/pay1.de__link.json", "updatePaymentLink", "input", "email", "email", None),
    (
        "functions/tau2/telecom.json",
        "get_customer_by_phone",
        "input",
        "phone_number",
        "phone",
        None,
    ),
    ("openapi/vonage.com__vgis.json", "createCall", "input", "phoneNumber", "phone", None),
    ("functions/tau2/airline.json", "search_direct_flight", "input", "date", "date", None),
    ("functions/tau2/airline.json", "book_reservation", "input", "passengers[].dob", "date", None),
    (
        "functions/bfcl_multi_turn/travel_booking.json",
        "book_flight",
        "input",
        "travel_date",
        "date",
        None,
    ),
    (
        "openapi/1password.local__connect.json",
        "GetVaultById",
        "output",
        "createdAt",
        "datetime",
        None,
    ),
    (
        "openapi/royalmail.com__click-and-drop.json",
        "GetOrdersAsync",
        "input",
        "startDateTime",
        "datetime",
        None,
    ),
    (
        "functions/tau2/airline.json",
        "book_reservation",
        "input",
        "payment_methods[].amount",
        "money",
        None,
    ),
    (
        "functions/bfcl_multi_turn/travel_booking.json",
        "get_credit_card_balance",
        "output",
        "card_balance",
        "money",
        None,
    ),
    ("openapi/vatapi.com.json", "get_invoice", "output", "invoice.subtotal", "money", None),
    ("openapi/vatapi.com.json", "get_invoice", "output", "invoice.currency_code", "currency", None),
    (
        "openapi/vatapi.com.json",
        "get_invoice",
        "output",
        "invoice.customer_name",
        "person_name",
        None,
    ),
    ("openapi/vatapi.com.json", "get_invoice", "output", "invoice.business_name", "company", None),
    ("functions/tau2/retail.json", "get_order_details", "input", "order_id", "id", "orders"),
    ("functions/tau2/telecom.json", "send_payment_request", "input", "bill_id", "id", "bills"),
    ("openapi/twilio.com__twilio_microvisor_v1.json", "FetchApp", "input", "Sid", "id", "apps"),
    (
        "openapi/twilio.com__twilio_microvisor_v1.json",
        "FetchApp",
        "output",
        "account_sid",
        "id",
        "accounts",
    ),
    (
        "openapi/1password.local__connect.json",
        "GetVaultItemById",
        "input",
        "vaultUuid",
        "id",
        "vaults",
    ),
    (
        "openapi/1password.local__connect.json",
        "GetVaultItemById",
        "input",
        "itemUuid",
        "id",
        "items",
    ),
    ("openapi/1password.local__connect.json", "GetVaultItemById", "output", "id", "id", "items"),
    # ... and things that are none of these
    ("openapi/twilio.com__twilio_microvisor_v1.json", "ListApp", "input", "PageSize", None, None),
    ("functions/tau2/airline.json", "book_reservation", "input", "insurance", None, None),
    ("functions/tau2/retail.json", "cancel_pending_order", "input", "reason", None, None),
]


@pytest.mark.parametrize(("file", "tool", "side", "path", "semantic", "ref"), SEMANTIC_CASES)
def test_semantic_types_on_real_fields(ingested, file, tool, side, path, semantic, ref) -> None:
    spec = _by_name(ingested[file][0])[tool]
    field = next((f for f in spec.fields if f.side == side and f.path == path), None)
    assert field is not None, [f.path for f in spec.fields if f.side == side]
    assert (field.semantic, field.ref) == (semantic, ref)


def test_semantic_types_are_found_across_the_corpus(ingested) -> None:
    counts: Counter[str] = Counter()
    for specs, _ in ingested.values():
        for spec in specs:
            counts.update(f.semantic for f in spec.fields if f.semantic)
    for name, at_least in {
        "email": 30,
        "phone": 10,
        "date": 30,
        "datetime": 100,
        "money": 30,
        "id": 500,
    }.items():
        assert counts[name] >= at_least, (name, counts)


def test_resources_and_verbs_are_mostly_classified(ingested) -> None:
    specs = [s for found, _ in ingested.values() for s in found]
    classified = sum(s.classified for s in specs) / len(specs)
    assert classified >= 0.8
