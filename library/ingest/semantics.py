"""Semantic types of parameters and output fields: the shared interfaces between services.

Evidence, strongest first: an explicit ``x-semantic-type``; the JSON-schema ``format``; the
field's name (``customer_email``, ``phone_number``, ``due_date``, ``created_at``, ``amount``,
``contact_id``); for path parameters, the collection segment before them; example values;
the description (``Recipient email address``). Ids carry the resource they reference:
``contact_id`` -> ``contacts``; a bare ``id`` refers to the record that holds it.
"""

from __future__ import annotations

import re
from typing import Any

from library.ingest.naming import resource_name, singular, tokens
from library.runtime.semantic import ID, REF_KEY, REGISTRY, SEMANTIC_KEY
from library.toolspec import FieldInfo, Side

EMAIL, PHONE, PERSON, COMPANY, URL = "email", "phone", "person_name", "company", "url"
DATE, DATETIME, MONEY, CURRENCY, COUNTRY, ADDRESS = (
    "date", "datetime", "money", "currency", "country", "address",
)  # fmt: skip
assert {EMAIL, PHONE, PERSON, COMPANY, URL, DATE, DATETIME, MONEY, CURRENCY, COUNTRY, ADDRESS} <= (
    REGISTRY.keys()
), "semantic names drifted from library.runtime.semantic"

MAX_FIELDS = 300  # per side: enough for any real tool, bounded for generated monsters
MAX_DEPTH = 8
MAX_VISITS = 5000  # per side: oneOf-of-oneOf trees must not explode the walk

_FORMATS = {
    "email": EMAIL, "idn-email": EMAIL, "uri": URL, "url": URL, "iri": URL, "uri-reference": URL,
    "date": DATE, "date-time": DATETIME, "datetime": DATETIME, "phone": PHONE, "tel": PHONE,
    "phone-number": PHONE, "currency": CURRENCY, "country": COUNTRY, "money": MONEY,
}  # fmt: skip
_ID_WORDS = frozenset({"id", "ids", "uuid", "guid", "sid"})
_PHONE_WORDS = frozenset(
    {"phone", "mobile", "msisdn", "telephone", "tel", "fax", "cellphone", "phonenumber"}
)
_PHONE_PREFIX = frozenset({"phone", "mobile", "telephone", "fax", "cell", "contact"})
_URL_WORDS = frozenset({"url", "uri", "link", "href", "website", "homepage", "webhook"})
_MONEY_WORDS = frozenset(
    {"amount", "price", "cost", "balance", "fee", "fees", "subtotal", "tax", "salary", "budget",
     "revenue", "payment", "refund", "charge", "prize", "tip", "income", "expense", "expenses",
     "spend", "spending", "deposit", "payout", "premium", "wage", "rent", "fare"}
)  # fmt: skip
_PERSON_WORDS = frozenset(
    {"customer", "contact", "person", "employee", "author", "owner", "recipient", "sender",
     "passenger", "patient", "student", "member", "candidate", "client", "buyer", "guest",
     "traveler", "traveller", "assignee", "reporter", "manager", "agent", "driver", "holder",
     "cardholder", "attendee", "speaker", "teacher", "doctor", "lead", "full", "first_last",
     "applicant", "beneficiary", "payee", "signer", "organizer", "host", "creator", "requester",
     "tenant", "landlord", "partner", "spouse", "parent", "child", "friend", "approver"}
)  # fmt: skip
_COMPANY_WORDS = frozenset(
    {"company", "organization", "organisation", "org", "business", "vendor", "supplier",
     "merchant", "employer", "brand", "firm", "airline", "carrier", "bank", "publisher",
     "manufacturer", "agency", "institution", "account_company", "store", "shop"}
)  # fmt: skip
_PERSON_RESOURCES = frozenset(
    {"contacts", "customers", "users", "people", "persons", "employees", "members", "authors",
     "passengers", "patients", "students", "candidates", "clients", "guests", "travelers",
     "agents", "leads", "attendees", "speakers", "teachers", "doctors", "recipients",
     "applicants", "beneficiaries", "payees", "owners", "assignees", "drivers", "tenants"}
)  # fmt: skip
_COMPANY_RESOURCES = frozenset(
    {"companies", "organizations", "organisations", "orgs", "businesses", "vendors",
     "suppliers", "merchants", "employers", "brands", "firms", "airlines", "carriers", "banks",
     "publishers", "manufacturers", "agencies", "institutions"}
)  # fmt: skip
_DATE_EVENTS = frozenset(
    {"created", "updated", "modified", "published", "expires", "expired", "due", "delivered",
     "shipped", "deleted", "started", "ended", "closed", "opened", "paid", "issued", "signed",
     "completed", "cancelled", "canceled", "scheduled", "joined", "born", "posted", "sent",
     "received", "last", "effective"}
)  # fmt: skip
_NOT_ADDRESS = frozenset(
    {"ip", "mac", "email", "mail", "wallet", "web", "memory", "bitcoin", "eth"}
)
_ISO_CURRENCIES = frozenset(
    [
        "USD",
        "EUR",
        "GBP",
        "JPY",
        "CNY",
        "CHF",
        "CAD",
        "AUD",
        "NZD",
        "SEK",
        "NOK",
        "DKK",
        "PLN",
        "CZK",
        "HUF",
        "INR",
        "BRL",
        "MXN",
        "ZAR",
        "SGD",
        "HKD",
        "KRW",
        "TRY",
        "RUB",
        "AED",
        "SAR",
        "ILS",
        "THB",
        "IDR",
        "MYR",
        "PHP",
        "VND",
        "ARS",
        "CLP",
        "COP",
        "PEN",
        "NGN",
        "KES",
        "EGP",
    ]
)
_QUALIFIERS = frozenset(
    {"new", "old", "existing", "current", "previous", "next", "original", "selected", "other"}
)
# Names that say what a field is, whatever its description mentions.
_SELF_DESCRIBING = frozenset(
    {"name", "type", "status", "count", "description", "title", "subject", "body", "text",
     "content", "message", "note", "notes", "comment", "label", "token", "secret", "password",
     "format", "mode", "kind", "version", "size", "length", "limit", "offset", "page", "sort",
     "order", "filter", "fields", "expand", "include", "template", "query", "q", "html", "path",
     "code", "key", "tag", "tags", "category", "state", "reason", "data", "payload"}
)  # fmt: skip
# Wrapper properties whose records belong to the tool's own resource.
_WRAPPERS = frozenset(
    {"data", "results", "result", "items", "records", "entries", "values", "value", "content",
     "list", "objects", "payload", "response", "hits", "rows", "nodes", "elements", "embedded",
     "resources", "docs", "documents", "page", "body", "object", "item", "record", "entry"}
)  # fmt: skip

_EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
_PHONE_RE = re.compile(r"^\+?\d[\d\s().-]{6,20}\d$")
_URL_RE = re.compile(r"^https?://\S+$")
_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATETIME_RE = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
_DESC_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\be-?mail(s)?\b(\s+address(es)?)?", re.I), EMAIL),
    (re.compile(r"\b(phone|mobile|telephone|cell)(\s+number)?\b", re.I), PHONE),
    (re.compile(r"\bYYYY-MM-DD[T ]?HH|\bISO[ -]?8601 (date[- ]?time|timestamp)|\btimestamp\b",
                re.I), DATETIME),
    (re.compile(r"\bYYYY-MM-DD\b|\bdate of birth\b", re.I), DATE),
    (re.compile(r"\b(ISO[ -]?4217|currency code)\b", re.I), CURRENCY),
    (re.compile(r"\b(ISO[ -]?3166|country code)\b", re.I), COUNTRY),
    (re.compile(r"\b(URL|URI|web address|link to)\b"), URL),
    (re.compile(r"\b(postal|mailing|street|billing|shipping) address\b", re.I), ADDRESS),
    # (not "name of the contact's department": a name of something of theirs)
    (re.compile(r"\b(full name|person'?s name|customer'?s name|"
                r"name of the (person|customer|user|contact))\b(?!['’]s)", re.I), PERSON),
    (re.compile(r"\b(company|organi[sz]ation)('?s)? name\b", re.I), COMPANY),
)  # fmt: skip


def _json_type(node: dict[str, Any]) -> str | None:
    t = node.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), None)
    if t is None:
        if "properties" in node:
            return "object"
        if "items" in node:
            return "array"
    return t if isinstance(t, str) else None


def by_name(
    toks: tuple[str, ...], jtype: str | None, owner: str | None
) -> tuple[str, str | None] | None:
    """A semantic type from a field name's tokens (and the resource that holds the field)."""
    if not toks:
        return None
    last, prev = toks[-1], (toks[-2] if len(toks) > 1 else "")
    # Arrays of scalars are named in the plural (`emails`, `phones`): judge the singular.
    # (an "address" is one address, not the plural of "addres")
    single = singular(last) if len(last) > 3 and last not in _ID_WORDS else last
    if last in _ID_WORDS and jtype in ("string", "integer", None):
        # `new_item_ids` still refers to items: qualifiers are not part of the resource.
        stem = tuple(t for t in toks[:-1] if t not in _QUALIFIERS) or toks[:-1]
        if not stem:
            return (ID, owner) if owner else None
        return ID, resource_name(stem)
    if jtype in ("string", None):
        if single in ("email", "mail") or (last == "address" and prev in ("email", "mail")):
            return EMAIL, None
        if single in _PHONE_WORDS or (last == "number" and prev in _PHONE_PREFIX):
            return PHONE, None
        if single in _URL_WORDS or (last == "page" and prev == "home"):
            return URL, None
        if last in ("name", "fullname"):
            return _name_kind(last, prev, owner)
        if single in ("company", "organization", "organisation", "employer"):
            return COMPANY, None
        if last in ("currency", "ccy") or (last == "code" and prev == "currency"):
            return CURRENCY, None
        if last in ("country", "nationality") or (last == "code" and prev == "country"):
            return COUNTRY, None
    address = single in ("address", "street", "addr") and prev not in _NOT_ADDRESS
    if address and jtype in ("string", "object", None):
        return ADDRESS, None
    if jtype in ("string", "integer", "number", None):
        if last in ("date", "dob", "birthday", "birthdate") or ("birth" in toks and "date" in toks):
            return DATE, None
        if last == "on" and prev in _DATE_EVENTS:
            return DATE, None
        if (last == "at" and prev) or last in ("timestamp", "datetime"):
            return DATETIME, None
        if last == "time" and prev in _DATE_EVENTS:
            return DATETIME, None
    money_word = (
        last in _MONEY_WORDS
        or (last == "total" and prev in ("grand", "order", "invoice", "cart", "sub", "tax"))
        or (last == "total" and not prev and jtype == "number")  # (an integer total counts)
        or (prev in ("amount", "price") and last in ("usd", "eur", "value", "cents"))
    )
    if money_word and (jtype in ("number", "integer", None) or last in ("amount", "price")):
        return MONEY, None
    return None


# How a person's own name is shown (``displayName``, ``preferred_name``).
_SHOWN = frozenset({"display", "preferred"})
# What a person signs in with: an e-mail address where its description says so ("The user's
# username, usually their email address"), else a handle.
_LOGINS = frozenset({("user", "name"), ("username",), ("login",), ("login", "name")})


def _name_kind(last: str, prev: str, owner: str | None) -> tuple[str, str | None] | None:
    """``full_name``/``customer_name`` are people, ``company_name`` a company; a bare ``name``
    is whatever the record holding it is."""
    if last == "fullname" or prev in ("full", "person") or prev in _PERSON_WORDS:
        return PERSON, None
    if prev in _COMPANY_WORDS:
        return COMPANY, None
    if (not prev or prev in _SHOWN) and owner in _PERSON_RESOURCES:
        return PERSON, None  # (a user's ``displayName`` is their name, a group's is not)
    if not prev and owner in _COMPANY_RESOURCES:
        return COMPANY, None
    return None


def by_format(fmt: Any) -> str | None:
    return _FORMATS.get(fmt.lower()) if isinstance(fmt, str) else None


def by_example(node: dict[str, Any]) -> str | None:
    values = []
    for key in ("examples", "enum"):
        v = node.get(key)
        if isinstance(v, list):
            values.extend(v[:3])
    if "default" in node:
        values.append(node["default"])
    strings = [v for v in values if isinstance(v, str) and v]
    if not strings:
        return None
    probe = strings[0]
    if _EMAIL_RE.match(probe):
        return EMAIL
    if _URL_RE.match(probe):
        return URL
    if _DATETIME_RE.match(probe):
        return DATETIME
    if _DATE_RE.match(probe):
        return DATE
    if _PHONE_RE.match(probe) and probe.startswith("+"):
        return PHONE
    if all(s in _ISO_CURRENCIES for s in strings):
        return CURRENCY
    return None


def by_description(description: Any) -> str | None:
    """Only the description's opening words: what the field *is*, not what it mentions."""
    if not isinstance(description, str) or not description:
        return None
    head = " ".join(description[:200].split()[:7])
    for pattern, semantic in _DESC_RULES:
        if pattern.search(head):
            return semantic
    return None


def infer_field(
    name: str, node: dict[str, Any], owner: str | None
) -> tuple[str | None, str | None, str | None]:
    """(semantic type, referenced resource, evidence) for one field."""
    explicit = node.get(SEMANTIC_KEY)
    if isinstance(explicit, str) and (explicit in REGISTRY or explicit == ID):
        ref = node.get(REF_KEY)
        return explicit, ref if isinstance(ref, str) else None, "explicit"
    jtype = _json_type(node)
    if jtype in ("boolean", "array") or (jtype == "object" and "address" not in name.lower()):
        return None, None, None
    fmt = by_format(node.get("format"))
    toks = tokens(name) if name else ()
    named = by_name(toks, jtype, owner)
    if named and named[0] == ID:
        return ID, named[1], "name"
    if fmt:
        return fmt, None, "format"
    if named:
        return named[0], named[1], "name"
    if jtype not in ("string", None):
        return None, None, None
    example = by_example(node)
    if example:
        return example, None, "example"
    login = toks[-2:] in _LOGINS or toks[-1:] in _LOGINS
    if login and by_description(node.get("description")) == EMAIL:
        return EMAIL, None, "description"
    if toks and toks[-1] in _SELF_DESCRIBING:
        return None, None, None
    described = by_description(node.get("description"))
    if described:
        return described, None, "description"
    return None, None, None


class _Walker:
    def __init__(self, root: dict[str, Any], side: Side) -> None:
        defs = root.get("$defs")
        self.defs = defs if isinstance(defs, dict) else {}
        self.side = side
        self.out: dict[str, FieldInfo] = {}
        self.visits = 0

    def deref(self, node: Any, seen: frozenset[str]) -> tuple[dict[str, Any], frozenset[str]]:
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen or not ref.startswith("#/$defs/"):
                return {}, seen
            seen = seen | {ref}
            node = self.defs.get(ref[len("#/$defs/") :], {})
        return (node if isinstance(node, dict) else {}), seen

    def walk(
        self,
        node: Any,
        path: str,
        name: str,
        owner: str | None,
        top: bool,
        required: bool,
        depth: int,
        seen: frozenset[str],
        path_refs: dict[str, str] | None = None,
    ) -> None:
        """``owner``: the resource whose record holds this field. ``top``: this node is (part
        of) the tool's own record(s): the root, a wrapper such as ``data``/``results`` under
        it, or the items of either."""
        self.visits += 1
        if depth > MAX_DEPTH or len(self.out) >= MAX_FIELDS or self.visits > MAX_VISITS:
            return
        node, seen = self.deref(node, seen)
        for key in ("allOf", "oneOf", "anyOf"):
            branches = node.get(key)
            if isinstance(branches, list):
                for branch in branches[:10]:
                    self.walk(branch, path, name, owner, top, required, depth + 1, seen, path_refs)
        jtype = _json_type(node)
        if path and path not in self.out:
            semantic, ref, source = infer_field(name, node, owner)
            if path_refs and name in path_refs and semantic in (None, ID):
                semantic, ref, source = ID, path_refs[name], "path"
            # model_construct: every value here is built by this module; validation is waste.
            self.out[path] = FieldInfo.model_construct(
                side=self.side,
                path=path,
                type=jtype,
                required=required,
                semantic=semantic,
                ref=ref,
                source=source,
            )
        if jtype == "object" or "properties" in node:
            props = node.get("properties")
            if not isinstance(props, dict):
                return
            req = node.get("required")
            req_set = set(req) if isinstance(req, list) else set()
            # Fields of the tool's own record belong to its resource; any other object is a
            # record of the resource its property names (`customer` -> customers).
            child_owner = owner if top else resource_name(name)
            for pname, sub in props.items():
                key = f"{path}.{pname}" if path else pname
                child_top = top and pname in _WRAPPERS
                refs = path_refs if not path else None  # path parameters are top-level inputs
                self.walk(
                    sub, key, pname, child_owner, child_top, pname in req_set, depth + 1, seen, refs
                )
        elif jtype == "array":
            items = node.get("items")
            if items is not None:
                items_node, _ = self.deref(items, seen)
                records = _json_type(items_node) == "object" or "properties" in items_node
                # Records in an array: the array's owner if it is the tool's own list, else
                # the resource the array names. Scalars carry the array's meaning (`emails`).
                item_owner = owner if (top or not records) else resource_name(name)
                item_top = top and records
                self.walk(items, f"{path}[]", name, item_owner, item_top, False, depth + 1, seen)


def infer_fields(
    input_schema: dict[str, Any],
    output_schema: dict[str, Any] | None,
    resource: str | None,
    path_refs: dict[str, str] | None = None,
) -> list[FieldInfo]:
    """Every parameter and output field with its semantic type (None when nothing says)."""
    fields: list[FieldInfo] = []
    w = _Walker(input_schema, "input")
    w.walk(input_schema, "", "", resource, True, True, 0, frozenset(), path_refs)
    fields.extend(w.out.values())
    if output_schema is not None:
        w = _Walker(output_schema, "output")
        w.walk(output_schema, "", "", resource, True, True, 0, frozenset())
        fields.extend(w.out.values())
    return fields
