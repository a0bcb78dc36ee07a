"""What a compiled service seeds (mutants of library/compiler/emit_seed.py that survived the
other tests, bench/mutation.py), on a small inline spec of contacts, deals, products and
events whose fields have names the seed writer reads: every person on a record is one person
of the pool (name, e-mail, phone, company, title and address agree) and their company's
timezone, domain and industry go with them; a stamp that goes with a flag or a status is set
exactly when the flag is raised or the status reached; times are ordered (created, updated,
now; a window's start before its end; birth dates of adults, expiries ahead); numbers keep to
their parts and bounds (a total is its subtotal plus its tax, the seats used fit the seats, a
year is this one or next to it); a product is one product of the catalogue; an event is held
at our own address; values derived from a name (a key, a path, a host) agree with it; roles
go to colleagues or outside people as they should (who asks for an expense, who writes a
review, who mails us and who is copied); and a seed is deterministic."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from typing import Any

import orjson
import pytest

from library.compiler import compile_service, load_service
from library.ingest import ingest_document
from library.runtime import World
from library.seed import seed_pool, vocab
from library.seed.pool import SeedPool

TEXT, NUMBER, INTEGER = {"type": "string"}, {"type": "number"}, {"type": "integer"}
MOMENT, DAY = {"type": "string", "format": "date-time"}, {"type": "string", "format": "date"}
MAYBE_MOMENT = {"type": ["string", "null"], "format": "date-time"}


def _record(required: list[str], **props: Any) -> dict:
    return {"type": "object", "required": ["id", *required], "properties": {"id": TEXT, **props}}


ADDRESS = {
    "type": "object",
    "properties": {"street": TEXT, "city": TEXT, "postal_code": TEXT, "country": TEXT},
}
CONTACT = _record(
    ["first_name", "last_name", "email", "created_at", "status"],
    first_name=TEXT,
    last_name=TEXT,
    email={"type": "string", "format": "email"},
    phone=TEXT,
    company=TEXT,
    job_title=TEXT,
    timezone=TEXT,
    website={"type": "string", "format": "uri"},
    birth_date=DAY,
    is_archived={"type": "boolean"},
    archived_at=MAYBE_MOMENT,
    created_at=MOMENT,
    updated_at=MOMENT,
    status={"type": "string", "enum": ["open", "closed"]},
    closed_at=MAYBE_MOMENT,
    closed_on={"type": ["string", "null"], "format": "date"},
    tags={"type": "array", "items": TEXT},
    address=ADDRESS,
    last_login_at=INTEGER,
    domain=TEXT,
    industry=TEXT,
)
DEAL = _record(
    ["name", "contact_id", "subtotal", "total"],
    name=TEXT,
    contact_id=TEXT,
    currency={"type": "string", "enum": ["USD", "EUR", "GBP"]},
    subtotal=NUMBER,
    tax_total=NUMBER,
    total=NUMBER,
    seats={"type": "integer", "minimum": 1, "maximum": 500},
    seats_used=INTEGER,
    start_date=DAY,
    end_date=DAY,
    year=INTEGER,
    expires_at=MOMENT,
    story_points=INTEGER,
    probability={"type": "integer", "minimum": 0, "maximum": 100},
)
SHIPMENT = _record(
    ["carrier", "tracking_number", "created_at"],
    carrier={"type": "string", "enum": ["ups", "fedex", "dhl"]},
    tracking_number=TEXT,
    contact_name=TEXT,
    contact_email={"type": "string", "format": "email"},
    country=TEXT,
    screen_name=TEXT,
    linkedin_url={"type": "string", "format": "uri"},
    meeting_url={"type": "string", "format": "uri"},
    direction={"type": "string", "description": "One of: outbound, inbound."},
    reference={"type": "string", "pattern": "^SHP-[0-9]{6}$"},
    created_at=MOMENT,
)
LEAD = _record(
    ["work_email", "metadata"],
    metadata={"type": "object"},
    visit={"type": "object", "properties": {"on": DAY, "at": MOMENT}},
    display_name=TEXT,
    work_email={"type": "string", "format": "email"},
    personal_email={"type": "string", "format": "email"},
    home_phone=TEXT,
    city=TEXT,
    province=TEXT,
    zip=TEXT,
    date_created=MOMENT,
    check_in=DAY,
    check_out=DAY,
    purchase_date=DAY,
    warranty_end=DAY,
    quantity=INTEGER,
    quantity_received=INTEGER,
    total=NUMBER,
    amount_paid=NUMBER,
)
SPACE = _record(
    ["name", "key"],
    name=TEXT,
    key=TEXT,
    path=TEXT,
    host=TEXT,
    username=TEXT,
    invoice_number=TEXT,
    booking_reference=TEXT,
    file_name=TEXT,
    mime_type=TEXT,
    code={"type": "string", "example": "AB-1234"},
    listed={"type": "boolean", "default": True},
    locked={"type": "boolean", "default": False},
)
EMAIL = {"type": "string", "format": "email"}
EXPENSE_REPORT = _record(
    ["requester_email"], requester_email=EMAIL, approver_email=EMAIL, amount=NUMBER
)
REVIEW = _record(["reviewer_email"], reviewer_email=EMAIL, rating=INTEGER)
MAIL = _record(
    ["from", "to"], **{"from": EMAIL, "to": EMAIL, "cc": {"type": "array", "items": EMAIL}}
)
PRODUCT = _record(
    ["sku", "name", "price", "summary"],
    sku=TEXT,
    name=TEXT,
    price=NUMBER,
    compare_at_price=NUMBER,
    summary={"type": "string", "minLength": 2, "maxLength": 6},
)
EVENT = _record(
    ["title", "starts_at", "ends_at"],
    title=TEXT,
    starts_at=MOMENT,
    ends_at=MOMENT,
    venue_address=ADDRESS,
    capacity=INTEGER,
)


def _ok(schema: dict) -> dict:
    return {"200": {"content": {"application/json": {"schema": schema}}}}


def _collection(path: str, noun: str, record: dict) -> dict:
    fields = {k: v for k, v in record["properties"].items() if k != "id"}
    body = {"content": {"application/json": {"schema": {"type": "object", "properties": fields}}}}
    ident = {"name": "id", "in": "path", "required": True, "schema": TEXT}
    return {
        f"/{path}": {
            "post": {"operationId": f"create{noun}", "requestBody": body, "responses": _ok(record)},
            "get": {
                "operationId": f"list{noun}s",
                "responses": _ok({"type": "array", "items": record}),
            },
        },
        f"/{path}/{{id}}": {
            "get": {"operationId": f"get{noun}", "parameters": [ident], "responses": _ok(record)}
        },
    }


SALES = {
    "openapi": "3.0.0",
    "info": {"title": "Sales", "version": "1"},
    "paths": {
        **_collection("contacts", "Contact", CONTACT),
        **_collection("deals", "Deal", DEAL),
        **_collection("products", "Product", PRODUCT),
        **_collection("shipments", "Shipment", SHIPMENT),
        **_collection("leads", "Lead", LEAD),
        **_collection("spaces", "Space", SPACE),
        **_collection("expense_reports", "ExpenseReport", EXPENSE_REPORT),
        **_collection("reviews", "Review", REVIEW),
        **_collection("emails", "Email", MAIL),
        **_collection("events", "Event", EVENT),
    },
}
SIZE = 12


# Built for each test, not once per module: mutmut gives a mutant only the tests that reach
# its function, and counts a module fixture's calls for the first test alone.
@pytest.fixture
def compiled() -> type:
    specs, errors = ingest_document(orjson.dumps(SALES), source_file="sales.json")
    assert specs, errors
    return load_service(compile_service(specs).source)


def _seeded(cls: type, seed: int) -> tuple[World, dict[str, list[dict]]]:
    world = World([cls()], seed=seed)
    world.seed_states(seed_pool(), size=SIZE)
    state = world.services[cls.name].state.model_dump(mode="json", by_alias=True)
    return world, {k: list(v.values()) for k, v in state.items() if isinstance(v, dict)}


@pytest.fixture
def seeded(compiled: type) -> tuple[World, dict[str, list[dict]]]:
    return _seeded(compiled, 0)


def _moment(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _now(world: World) -> dt.datetime:
    now = world.now()
    return now if now.tzinfo else now.replace(tzinfo=dt.UTC)


def test_every_collection_is_seeded_to_size(seeded: tuple[World, dict]) -> None:
    _, records = seeded
    for coll in ("contacts", "deals", "products", "shipments", "leads", "spaces", "events"):
        assert len(records[coll]) == SIZE, coll
        assert len({r["id"] for r in records[coll]}) == SIZE, coll


def test_a_contact_is_one_person_of_the_pool_with_their_company(
    seeded: tuple[World, dict],
) -> None:
    pool: SeedPool = seed_pool()
    _, records = seeded
    zones = zoneinfo.available_timezones() | {"UTC"}
    industries = {c.industry for c in (*pool.companies, pool.org) if c is not None}
    for c in records["contacts"]:
        person = pool.person_by_email(c["email"])
        assert person is not None, c["email"]
        assert (c["first_name"], c["last_name"], c["phone"]) == (
            person.first_name, person.last_name, person.phone,
        )  # fmt: skip
        assert (c["company"], c["job_title"]) == (person.company, person.title)
        place = (person.street, person.city, person.postal_code, person.country)
        assert tuple(c["address"][k] for k in ADDRESS["properties"]) == place
        company = pool.company(person.company)
        assert c["timezone"] == company.timezone and c["timezone"] in zones
        assert (c["domain"], c["industry"]) == (company.domain, company.industry)
        assert c["website"].rstrip("/") == f"https://{company.domain}"
        assert c["industry"] in industries
        assert 1 <= len(c["tags"]) <= 3 and len(set(c["tags"])) == len(c["tags"])


def test_a_stamp_is_set_exactly_when_its_flag_or_status_is(seeded: tuple[World, dict]) -> None:
    world, records = seeded
    now = _now(world)
    contacts = records["contacts"]
    for c in contacts:
        assert (c.get("archived_at") is not None) == c["is_archived"], c
        assert (c.get("closed_at") is not None) == (c["status"] == "closed"), c
        assert (c.get("closed_on") is not None) == (c["status"] == "closed"), c
        for stamp in ("archived_at", "closed_at"):
            if c.get(stamp) is not None:
                assert _moment(c["created_at"]) <= _moment(c[stamp]) <= now
        if c.get("closed_on") is not None:  # a day, not a moment
            assert len(c["closed_on"]) == 10
            assert _moment(c["created_at"]).date() <= dt.date.fromisoformat(c["closed_on"])
    # both sides of each rule are seeded: a flag raised and not, a status reached and not
    assert {c["is_archived"] for c in contacts} == {True, False}
    assert {c["status"] for c in contacts} == {"open", "closed"}


def test_times_are_ordered_and_in_their_part_of_the_calendar(seeded: tuple[World, dict]) -> None:
    world, records = seeded
    now = _now(world)
    for c in records["contacts"]:
        created, updated = _moment(c["created_at"]), _moment(c["updated_at"])
        assert created <= updated <= now
        assert created.timestamp() <= c["last_login_at"] <= now.timestamp()
        age = (now.date() - dt.date.fromisoformat(c["birth_date"])).days / 365.25
        assert 16 <= age <= 100, c["birth_date"]
    for d in records["deals"]:
        assert d["start_date"] < d["end_date"]  # a range of days ends on a later day
        assert _moment(d["expires_at"]) > now
        assert now.year - 1 <= d["year"] <= now.year + 1
    for e in records["events"]:
        assert _moment(e["starts_at"]) < _moment(e["ends_at"])


def test_numbers_keep_to_their_parts_and_bounds(seeded: tuple[World, dict]) -> None:
    _, records = seeded
    contacts = {c["id"] for c in records["contacts"]}
    for d in records["deals"]:
        assert d["contact_id"] in contacts
        assert d["total"] == round(d["subtotal"] + d["tax_total"], 2)
        assert 0.05 * d["subtotal"] - 0.01 <= d["tax_total"] <= 0.25 * d["subtotal"] + 0.01
        assert 1 <= d["seats"] <= 500 and 0 <= d["seats_used"] <= d["seats"]
        assert d["story_points"] in (1, 2, 3, 5, 8, 13)
        assert 0 <= d["probability"] <= 100
        assert d["currency"] in ("USD", "EUR", "GBP")
        assert d["name"] and not d["name"].startswith("Name ")
    for e in records["events"]:
        assert e["capacity"] > 0


def test_a_value_follows_its_name_and_the_spec(seeded: tuple[World, dict]) -> None:
    pool = seed_pool()
    org = pool.org
    assert org is not None
    _, records = seeded
    tracking = {"ups": r"1Z[0-9A-Z]{6}[0-9]{10}", "fedex": r"[0-9]{12}", "dhl": r"[0-9]{10}"}
    for s in records["shipments"]:
        assert re.fullmatch(tracking[s["carrier"]], s["tracking_number"]), s
        person = pool.person_by_email(s["contact_email"])
        assert person is not None
        assert (s["contact_name"], s["country"]) == (person.full_name, person.country)
        assert s["screen_name"].startswith("@") and " " not in s["screen_name"]
        assert s["linkedin_url"] == f"https://www.linkedin.com/in/{vocab.slug(person.full_name)}"
        meeting = rf"https://meet\.{re.escape(org.domain)}/j/[0-9]{{10}}"
        assert re.fullmatch(meeting, s["meeting_url"])
        assert s["direction"] in ("outbound", "inbound")
        assert re.fullmatch(r"SHP-[0-9]{6}", s["reference"])
    assert {s["carrier"] for s in records["shipments"]} == {"ups", "fedex", "dhl"}


def test_a_lead_is_one_person_and_its_windows_are_ordered(seeded: tuple[World, dict]) -> None:
    pool = seed_pool()
    world, records = seeded
    for lead in records["leads"]:
        person = pool.person_by_email(lead["work_email"])
        assert person is not None
        assert (lead["display_name"], lead["personal_email"], lead["home_phone"]) == (
            person.full_name, person.personal_email, person.phone,
        )  # fmt: skip
        assert (lead["city"], lead["zip"]) == (person.city, person.postal_code)
        # created before the stay it books; a stay ends after it starts; a warranty runs years
        assert _moment(lead["date_created"]).date() <= dt.date.fromisoformat(lead["check_in"])
        assert lead["check_in"] < lead["check_out"]
        bought, ends = (dt.date.fromisoformat(lead[k]) for k in ("purchase_date", "warranty_end"))
        assert 365 <= (ends - bought).days <= 3 * 366
        assert 0 <= lead["quantity_received"] <= lead["quantity"]
        assert lead["amount_paid"] in {round(lead["total"] * f, 2) for f in (0, 0.25, 0.5, 1)}
        assert lead["metadata"] == {}  # free-form: nothing is made up
        visit = lead["visit"]  # a nested day is a day, a nested moment a moment, both past
        assert dt.date.fromisoformat(visit["on"]) <= world.now().date()
        assert _moment(visit["at"]) <= _now(world)


def test_values_derived_from_a_name_agree_with_it(seeded: tuple[World, dict]) -> None:
    pool = seed_pool()
    world, records = seeded
    spaces = records["spaces"]
    names = [s["name"] for s in spaces]
    assert len(set(names)) == len(names)
    assert [s["key"] for s in spaces] == pool.keys(names, 10)
    keys = [s["key"] for s in spaces]
    assert len(set(keys)) == len(keys) and all(k.isupper() and len(k) <= 10 for k in keys)
    for s in spaces:
        assert s["path"] == f"/{s['name']}" and s["host"] == pool.host(s["name"])
        assert s["mime_type"] == pool.mime(s["name"])
        assert pool.person_by_username(s["username"]) is not None
        assert re.fullmatch(rf"INV-{world.now().year}-[0-9]{{4}}", s["invoice_number"])
        assert re.fullmatch(r"[A-Z2-9]{6}", s["booking_reference"])
        assert re.fullmatch(r"[A-Z]{2}-[0-9]{4}", s["code"]) and s["file_name"]


def test_colleagues_and_outside_people_fill_the_roles_meant_for_them(
    seeded: tuple[World, dict],
) -> None:
    pool = seed_pool()

    def staff(email: str) -> bool:
        person = pool.person_by_email(email)
        assert person is not None, email
        return pool.is_staff(person)

    for r in records_of(seeded, "expense_reports"):  # our own process: our colleagues ask
        assert staff(r["requester_email"]) and staff(r["approver_email"])
        assert r["requester_email"] != r["approver_email"]
    assert not any(staff(r["reviewer_email"]) for r in records_of(seeded, "reviews"))
    copied = 0
    for mail in records_of(seeded, "emails"):  # mail in: from someone outside, to one of us
        assert not staff(mail["from"]) and staff(mail["to"])
        assert all(staff(c) for c in mail["cc"]) and len(set(mail["cc"])) == len(mail["cc"])
        assert mail["from"] not in mail["cc"] and mail["to"] not in mail["cc"]
        copied += len(mail["cc"])
    assert copied > 0


def records_of(seeded: tuple[World, dict], collection: str) -> list[dict]:
    records = seeded[1][collection]
    assert len(records) == SIZE
    return records


def test_a_flags_default_holds_for_most_records(seeded: tuple[World, dict]) -> None:
    spaces = records_of(seeded, "spaces")  # true by default for most, false for most
    assert sum(s["listed"] for s in spaces) > len(spaces) / 2 > sum(s["locked"] for s in spaces)


def test_a_product_is_one_of_the_catalogue(seeded: tuple[World, dict]) -> None:
    pool = seed_pool()
    catalogue = {p.sku: p for p in pool.products}
    _, records = seeded
    for p in records["products"]:
        assert p["sku"] in catalogue
        listed = catalogue[p["sku"]]
        assert (p["name"], p["price"]) == (listed.name, round(listed.price, 2))
        assert p["compare_at_price"] > p["price"]  # what it was: above what it is
        assert 2 <= len(p["summary"]) <= 6  # within its length bounds


def test_an_event_is_held_at_our_own_address(seeded: tuple[World, dict]) -> None:
    org = seed_pool().org
    assert org is not None
    _, records = seeded
    ours = {"street": org.street, "city": org.city, "postal_code": org.postal_code}
    for e in records["events"]:
        assert {k: e["venue_address"][k] for k in ours} == ours
        assert e["title"]


def test_a_seed_is_deterministic_and_another_seed_draws_another_world(compiled: type) -> None:
    first, again, other = (_seeded(compiled, s)[1] for s in (3, 3, 4))
    assert first == again
    assert first != other
