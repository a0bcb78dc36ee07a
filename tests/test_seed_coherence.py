"""A coherent seeded world: bundled services compiled, seeded, and every record checked.

One person is one identity (names, e-mail, phone and username agree); staff roles are our
colleagues and the record's subject is an outside person; different roles are different
people; ranges are ordered with plausible spans; numbers fit their field; no value is a
``<Label> <n>`` placeholder; references point at records that exist, never at an id the
service will issue next. Composition literals come from the same vocabulary.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from library.compiler import compile_service, load_service
from library.compose.catalog import Param
from library.compose.corpus import bundled_specs
from library.compose.literals import literal
from library.rubric.values import timestamp
from library.runtime import World
from library.runtime.service import Service
from library.seed import seed_pool, vocab
from library.seed.pool import BIRTH_FIELDS
from library.services.calendar import Calendar
from library.services.crm import Crm
from library.services.files import Files
from library.services.mail import Mail

SERVICES = (
    "calendar", "car_rental", "code_hosting", "crm", "customer_success", "esign",
    "event_registration", "expenses", "field_service", "flights", "helpdesk", "hotels", "hr",
    "identity", "loyalty",
    "invoicing", "issue_tracker", "mail", "meetings", "payments", "payroll", "recruiting",
    "reviews", "shipping", "storefront", "subscriptions", "timesheets", "workplace",
)  # fmt: skip
SEEDS = (0, 5)
SIZE = 10

STAFF = frozenset(
    {"owner", "assignee", "approver", "manager", "recruiter", "host", "organizer", "technician",
     "agent", "created_by", "interviewer", "hiring_manager", "account_manager", "csm",
     "sales_rep", "head", "lead", "notify", "assigned_user", "booker", "requester_staff"}
)  # fmt: skip
EXTERNAL = frozenset(
    {"", "customer", "requester", "contact", "client", "guest", "candidate", "driver",
     "passenger", "respondent", "receipt", "billing", "subscriber", "attendee", "registrant",
     "recipient", "signer", "member_customer"}
)  # fmt: skip
STAFF_RESOURCES = frozenset({"employees", "users", "technicians", "database_users"})
MESSAGING = frozenset({"mail", "chat", "sms", "voice"})
# ``<Label> <n>``: a field's own words (or a generic word) and a counter.
GENERIC = r"value|item|name|title|user|label|text|field|topic|subject"


def placeholder(key: str, value: str) -> bool:
    label = r"[ _-]".join(re.escape(w) for w in re.split(r"[_\W]+", key.lower()) if w)
    label = rf"{label}|{GENERIC}" if label else GENERIC
    return re.fullmatch(rf"(?i)(?:{label})[ _-]?\d+", value.strip()) is not None


PAIRS = (
    ("start", "end"), ("starts", "ends"), ("pickup", "dropoff"), ("check_in", "check_out"),
    ("departure", "arrival"), ("valid_from", "valid_until"), ("period_start", "period_end"),
    ("issue_date", "due_date"), ("scheduled_start", "scheduled_end"), ("min", "max"),
    ("purchase_date", "warranty_end"),
)  # fmt: skip
NAME_ATTRS = {
    "first_name": "first_name", "last_name": "last_name", "full_name": "full_name",
    "display_name": "full_name", "name": "full_name", "username": "username",
}  # fmt: skip


# -- the world ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def classes() -> list[type[Service]]:
    specs = bundled_specs(SERVICES)
    return [load_service(compile_service(specs[name]).source) for name in sorted(specs)]


@pytest.fixture(scope="module", params=SEEDS)
def world(request: pytest.FixtureRequest, classes: list[type[Service]]) -> World:
    world = World([cls() for cls in classes], seed=request.param)
    world.seed_states(seed_pool(request.param), SIZE)
    return world


def records(world: World) -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(service, collection, record as JSON, its property schemas with $refs resolved)."""
    for name, service in world.services.items():
        for collection, items in service.state.collections().items():
            for record in items.values():
                schema = type(record).model_json_schema()
                yield name, collection, record.model_dump(mode="json", by_alias=True), schema


def semantic(node: dict[str, Any], defs: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """(the semantic type of a property, the property with $ref/anyOf resolved)."""
    for branch in node.get("anyOf") or ():
        if branch.get("type") != "null":
            node = {**node, **branch}
    ref = node.get("$ref")
    if isinstance(ref, str):
        node = {**defs.get(ref.rsplit("/", 1)[-1], {}), **node}
    return node.get("x-semantic-type"), node


def role_of(name: str) -> str:
    low = name.lower()
    own = ("email", "phone", "mobile", "phone_number")
    if low in NAME_ATTRS or low in own or low in BIRTH_FIELDS:
        return ""
    for part in ("first_name", "last_name", "full_name", "display_name", "name", "username"):
        if low.endswith("_" + part):
            return low.removesuffix("_" + part)
    for suffix in ("_emails", "_email", "_phone", "_number"):
        if low.endswith(suffix):
            return low.removesuffix(suffix)
    return low


def objects(
    data: dict[str, Any], schema: dict[str, Any], defs: dict[str, Any], path: str = ""
) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """The record and every nested object in it, with their property schemas."""
    props = schema.get("properties") or {}
    yield path, data, props
    for key, value in data.items():
        _, node = semantic(props.get(key) or {}, defs)
        if isinstance(value, dict):
            yield from objects(value, node, defs, f"{path}{key}.")
        elif isinstance(value, list) and value and isinstance(value[0], dict):
            _, item = semantic(node.get("items") or {}, defs)
            for v in value:
                yield from objects(v, item, defs, f"{path}{key}[].")


def people_of(
    data: dict[str, Any], props: dict[str, Any], defs: dict[str, Any], collection: str
) -> dict[str, dict[str, Any]]:
    """Person values of one object by role: ``{role: {attribute: value}}``."""
    out: dict[str, dict[str, Any]] = {}
    for key, value in data.items():
        if not isinstance(value, str):
            continue
        sem, _ = semantic(props.get(key) or {}, defs)
        low = key.lower()
        role = role_of(low)
        if sem == "email":
            attr = "email"
        elif sem == "phone" or low in ("phone", "mobile", "phone_number") or low.endswith("_phone"):
            attr = "phone"  # a phone the spec constrains by pattern is still the person's
        elif low in BIRTH_FIELDS:
            attr = "born"
        elif low in NAME_ATTRS or any(low.endswith("_" + p) for p in NAME_ATTRS):
            attr = next(a for p, a in NAME_ATTRS.items() if low == p or low.endswith("_" + p))
            named = attr == "full_name" and sem != "person_name" and low not in NAME_ATTRS
            if named and role not in STAFF | EXTERNAL:
                continue  # ``product_name``, ``venue_name``: not a person
            if low == "name" and not vocab.is_person_resource(collection):
                continue
        else:
            continue
        out.setdefault(role, {})[attr] = value
    return out


def identify(pool: Any, values: dict[str, Any]) -> Any:
    email = values.get("email")
    if email:
        person = pool.person_by_email(email)
        if person is None:  # a private address: the same name at a mail provider
            local = email.split("@", 1)[0]
            person = next((p for p in pool.everyone if p.email.startswith(local + "@")), None)
        return person
    if values.get("full_name"):
        return pool.person_by_name(values["full_name"])
    if values.get("phone"):
        return pool.person_by_phone(values["phone"])
    return None


# -- people ---------------------------------------------------------------------------------
def test_every_person_on_a_record_is_one_identity(world: World) -> None:
    pool = seed_pool(world.seed)
    bad = []
    for service, collection, data, schema in records(world):
        defs = schema.get("$defs") or {}
        for path, obj, props in objects(data, schema, defs):
            where = path.rstrip(".").split(".")[-1].rstrip("[]") or collection
            for role, values in people_of(obj, props, defs, where).items():
                person = identify(pool, values)
                if person is None:
                    if "email" in values or "full_name" in values:
                        bad.append((service, collection, path + role, values, "not in the pool"))
                    continue
                for attr, value in values.items():
                    want = {getattr(person, attr, None)}
                    if attr == "born":  # one birth date per person, as a date or a time
                        want, value = {person.born.date().isoformat()}, str(value)[:10]
                    if attr == "email":
                        want.add(person.personal_email)
                    if value not in want:
                        bad.append((service, collection, path + role, attr, value, want))
    assert not bad, bad[:10]


def test_staff_roles_are_colleagues_and_subjects_are_outside_people(world: World) -> None:
    pool = seed_pool(world.seed)
    bad = []
    for service, collection, data, schema in records(world):
        defs = schema.get("$defs") or {}
        if service in MESSAGING:
            continue
        people = people_of(data, schema.get("properties") or {}, defs, collection)
        found = {role: identify(pool, values) for role, values in people.items()}
        staff = {r: p for r, p in found.items() if p is not None and r in STAFF}
        for role, person in staff.items():
            if not person.staff:
                bad.append((service, collection, role, person.email, "not staff"))
        if len({p.email for p in staff.values()}) != len(staff):
            bad.append((service, collection, sorted(staff), "one colleague in two roles"))
        subject = found.get("")
        if subject is not None and collection not in STAFF_RESOURCES and subject.staff:
            bad.append((service, collection, subject.email, "subject is a colleague"))
        if subject is not None and any(p.email == subject.email for p in staff.values()):
            bad.append((service, collection, subject.email, "subject holds a staff role"))
        for role, person in found.items():
            if person is not None and role in EXTERNAL - {""} and person.staff:
                bad.append((service, collection, role, person.email, "customer is a colleague"))
    assert not bad, bad[:10]


def test_lists_of_people_hold_different_people_and_cc_differs_from_to(world: World) -> None:
    bad = []
    for service, collection, data, _ in records(world):
        lists = {
            k: v
            for k, v in data.items()
            if isinstance(v, list) and v and isinstance(v[0], str) and "@" in v[0]
        }
        for key, emails in lists.items():
            if len(set(emails)) != len(emails):
                bad.append((service, collection, key, emails))
        to = set(data.get("to") or ()) if isinstance(data.get("to"), list) else set()
        for key in ("cc", "bcc"):
            if to & set(data.get(key) or ()):
                bad.append((service, collection, key, "repeats a recipient"))
        if set(data.get("cc") or ()) & set(data.get("bcc") or ()):
            bad.append((service, collection, "cc/bcc overlap"))
        sender = data.get("from")
        if isinstance(sender, str) and (sender in to or sender == data.get("to")):
            bad.append((service, collection, "writes to the sender"))
        attendees = [a.get("email") for a in data.get("attendees") or () if isinstance(a, dict)]
        if data.get("organizer_email") in attendees:
            bad.append((service, collection, "the organizer attends as a guest"))
    assert not bad, bad[:10]


def test_the_pool_keeps_staff_apart_from_outside_people() -> None:
    pool = seed_pool(0)
    assert pool.staff and pool.people and pool.org is not None
    staff, people = {p.email for p in pool.staff}, {p.email for p in pool.people}
    assert not staff & people
    assert all(p.staff and p.company == pool.org.name and p.department for p in pool.staff)
    assert all(not p.staff and p.company != pool.org.name for p in pool.people)
    assert all(p.title in vocab.DEPARTMENTS[p.department] for p in pool.staff)
    everyone = pool.everyone
    for attr in ("email", "full_name", "username", "phone"):
        values = [getattr(p, attr) for p in everyone]
        assert len(set(values)) == len(values), attr
    for p in everyone:
        assert pool.person_by_email(p.email.upper()) is p
        assert pool.person_by_name(p.full_name) is p
        local = p.email.split("@")[0]
        assert local == f"{vocab.slug(p.first_name, '')}.{vocab.slug(p.last_name, '')}"
        assert p.email.endswith("@" + pool.company(p.company).domain)
    assert pool.is_staff(pool.staff[0].email) and not pool.is_staff(pool.people[0].email)
    # Changing a record's e-mail to another person's carries that person's whole identity.
    other = pool.people[5]
    fields = {"reviewer_email": "email", "reviewer_name": None, "email": "email", "phone": None}
    assert pool.person_fields(other, fields, "reviewer") == {
        "reviewer_email": other.email,
        "reviewer_name": other.full_name,
    }
    assert set(pool.staff_for("recruiter")) <= set(pool.staff_in("People"))


# Where a few cities' postcodes start, known independently of the vocabulary's table.
_POSTCODE_STARTS = {"Paris": "750", "Lyon": "6900", "Hamburg": "2", "Berlin": "1", "Munich": "8",
                    "Amsterdam": "1", "Rotterdam": "30", "London": "", "Manchester": "M",
                    "Sydney": "2", "Perth": "6", "Toronto": "M", "Vancouver": "V",
                    "Montreal": "H", "San Francisco": "941", "New York": "10"}  # fmt: skip


def _street(place: Any) -> str:
    """The street of an address line, without its number ("Yonge Street")."""
    return re.sub(r"^\d+ | \d+$", "", getattr(place, "street", "") or "")


def test_an_address_names_one_real_place() -> None:
    """Street, city, region and postcode of every person and company agree: the city is
    in the country, the region is the city's, the postcode lies in the city's range (a
    Paris address is 750xx, not a random five digits), and a street that is one city's own
    is in that city."""
    pool = seed_pool(0)
    places = [*pool.everyone, *pool.companies]
    seen = set()
    own_streets = 0
    for place in places:
        country = getattr(place, "country", "")
        assert (place.city, place.region) in vocab.CITIES[country], place
        area = vocab.POSTAL_AREAS[place.city]
        postal = place.postal_code
        if isinstance(area, range):
            assert int(postal.split(" ")[0]) in area, place
        else:
            assert any(postal == a or postal.startswith(a + " ") for a in area), place
        assert postal.startswith(_POSTCODE_STARTS.get(place.city, "")), place
        # ... and a street that is one city's own is in that city (no Yonge Street, Ottawa)
        owner = next((c for c, ss in vocab.CITY_STREETS.items() if _street(place) in ss), None)
        assert owner in (None, place.city), place
        own_streets += owner is not None
        seen.add(place.city)
    assert len(seen & set(_POSTCODE_STARTS)) >= 5 and own_streets >= 1


# -- times and numbers ----------------------------------------------------------------------
def _time(value: Any) -> dt.datetime | None:
    if not isinstance(value, str) or not re.match(r"\d{4}-\d{2}-\d{2}", value):
        return None
    stamp = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=dt.UTC)


def ordered_pairs(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for key in data:
        for start, end in PAIRS:
            if start in key:
                other = key.replace(start, end, 1)
                if other != key and other in data:
                    yield key, other


def test_ranges_are_ordered_with_plausible_spans(world: World) -> None:
    now = world.now()
    bad, pairs = [], 0
    for service, collection, data, _ in records(world):
        created, updated = _time(data.get("created_at")), _time(data.get("updated_at"))
        if created and updated and not created <= updated <= now:
            bad.append((service, collection, "created/updated", created, updated))
        for start, end in ordered_pairs(data):
            a, b = data[start], data[end]
            if a is None or b is None:
                continue
            pairs += 1
            if isinstance(a, int | float):
                if b < a:
                    bad.append((service, collection, start, a, end, b))
                continue
            ta, tb = _time(a), _time(b)
            if ta is None or tb is None:
                continue
            if tb < ta:
                bad.append((service, collection, start, a, end, b))
                continue
            span = tb - ta
            limit = {
                "check_in": dt.timedelta(days=11), "pickup": dt.timedelta(days=15),
                "departure": dt.timedelta(hours=13),
            }.get(start.split("_at")[0])  # fmt: skip
            if (
                collection in ("events", "bookings", "meetings")
                and "T" in a
                and not (dt.timedelta(minutes=15) <= span <= dt.timedelta(days=4))
            ):
                bad.append((service, collection, "span", span))
            if limit is not None and span > limit:
                bad.append((service, collection, start, "span", span))
        for key, value in data.items():  # a stamp of something done is not in the future
            stamp = _time(value)
            done = key.endswith(("sent_at", "solved_at", "resolved_at", "merged_at", "paid_at"))
            if stamp and done and not (created or stamp) <= stamp <= now:
                bad.append((service, collection, key, value))
    assert pairs > 20  # the sample holds ranges at all
    assert not bad, bad[:10]


def test_numbers_fit_their_field(world: World) -> None:
    now = world.now()
    bad = []
    for service, collection, data, schema in records(world):
        for _, obj, _ in objects(data, schema, schema.get("$defs") or {}):
            for key, value in obj.items():
                if not isinstance(value, int | float) or isinstance(value, bool):
                    continue
                low = key.lower()
                limits = [
                    (r"(^|_)(rating|stars)$", 1, 5),
                    (r"probability|percent|health_score", 0, 100),
                    (r"(^|_)quantity$", 1, 100),
                    (r"year", now.year - 3, now.year + 6),
                    (r"duration_minutes", 5, 600),
                    (r"^hours$", 0, 24),
                    (r"amount|price|total|cost|salary|rate|balance|arr|mrr|pay", 0, 10**9),
                    (r"count|seats|capacity|rooms|passengers", 0, 10**6),
                ]
                for pattern, lo, hi in limits:
                    if re.search(pattern, low):
                        if not lo <= value <= hi:
                            bad.append((service, collection, key, value))
                        break
        seats, used = data.get("seats"), data.get("seats_used")
        if isinstance(seats, int) and isinstance(used, int) and used > seats:
            bad.append((service, collection, "seats_used > seats"))
    assert not bad, bad[:10]


# -- values ---------------------------------------------------------------------------------
def strings(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """(field name, text) for every string in a value."""
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v, key)


def test_no_value_is_a_placeholder(world: World) -> None:
    found = []
    titles: dict[tuple[str, str], list[str]] = {}
    for service, collection, data, _ in records(world):
        for key, text in strings({k: v for k, v in data.items() if k != "id"}):
            if placeholder(key, text):
                found.append((service, collection, key, text))
        for key in ("title", "subject", "name", "summary", "topic"):
            if isinstance(data.get(key), str):
                titles.setdefault((service, collection), []).append(data[key])
    assert not found, found[:10]
    # Titles come from their field's meaning: a job title is one, a ticket reads like one.
    jobs = titles[("recruiting", "jobs")]
    assert set(jobs) <= set(vocab.LISTS["staff_title"])
    events = titles[("calendar", "events")]
    assert not set(events) & set(vocab.LISTS["event_name"])  # meetings, not conferences
    assert set(titles[("issue_tracker", "issues")]) <= set(vocab.LISTS["issue_summary"])


def test_unique_fields_stay_unique_without_counters(classes: list[type[Service]]) -> None:
    world = World([cls() for cls in classes], seed=3)
    world.seed_states(seed_pool(3), 50)  # past the end of most vocabulary lists
    keys = {
        ("code_hosting", "repositories"): "name",
        ("identity", "users"): "username",
        ("storefront", "products"): "sku",
        ("issue_tracker", "projects"): "key",
        ("crm", "contacts"): "email",
        ("invoicing", "invoices"): "invoice_number",
    }
    for (service, collection), key in keys.items():
        values = [
            getattr(r, key) for r in getattr(world.services[service].state, collection).values()
        ]
        values = [v for v in values if v is not None]
        assert len(set(values)) == len(values), (service, collection, key)
        assert not any(placeholder(key, v) for v in values)


# -- references -----------------------------------------------------------------------------
def next_ids(service: Service, prefixes: set[str], ahead: int = 30) -> set[str]:
    """The ids the service's next creates will get (``Service.new_id``)."""
    out = set()
    for prefix in prefixes:
        for k in range(1, ahead + 1):
            digest = hashlib.blake2b(
                f"{service.name}:{prefix}:{service.state.seq + k}".encode(), digest_size=5
            ).hexdigest()
            out.add(f"{prefix}_{digest}")
    return out


def test_references_exist_and_never_name_an_id_not_issued_yet(world: World) -> None:
    bad = []
    for name, service in world.services.items():
        colls = service.state.collections()
        prefixes = {rid.rpartition("_")[0] for items in colls.values() for rid in items}
        future = next_ids(service, prefixes)
        for collection, items in colls.items():
            for record in items.values():
                data = record.model_dump(mode="json", by_alias=True)
                schema = type(record).model_json_schema()
                props = schema.get("properties") or {}
                for key, value in data.items():
                    texts = {t for _, t in strings(value)}
                    if texts & future:
                        bad.append((name, collection, key, "names an id not issued yet"))
                    node = props.get(key) or {}
                    ref = semantic(node, schema.get("$defs") or {})[1].get("x-ref")
                    target = ref if ref in colls else next(
                        (c for c in colls if isinstance(ref, str) and ref.endswith("_" + c)), None
                    )  # fmt: skip
                    if target and isinstance(value, str) and value not in colls[target]:
                        bad.append((name, collection, key, value, "dangles"))
    assert not bad, bad[:10]


def test_a_reference_shares_the_person_of_the_record_it_names(world: World) -> None:
    invoicing = world.services["invoicing"].state
    for invoice in invoicing.invoices.values():
        if invoice.customer_id and invoice.customer_email:
            assert invoicing.customers[invoice.customer_id].email == invoice.customer_email
    crm = world.services["crm"].state
    pool = seed_pool(world.seed)
    for contact in crm.contacts.values():
        if contact.company_id:
            company = crm.companies[contact.company_id].company_name
            assert pool.person_by_email(contact.email).company == company
    projects = world.services["issue_tracker"].state.projects
    for issue in world.services["issue_tracker"].state.issues.values():
        if issue.key and issue.project_id:
            assert issue.key.startswith(projects[issue.project_id].key + "-")


WHOSE = frozenset({"employee", "customer", "client", "guest", "candidate", "applicant",
                   "patient", "traveler", "passenger", "buyer", "payer", "subscriber"})  # fmt: skip


def test_a_record_under_a_parent_is_for_the_parents_person(world: World) -> None:
    """An expense on a report is the report's employee's (it named another colleague)."""
    checked, bad = 0, []
    for name, service in world.services.items():
        colls = service.state.collections()
        for collection, items in colls.items():
            for record in items.values():
                data = record.model_dump(mode="json", by_alias=True)
                props = type(record).model_json_schema().get("properties") or {}
                for key, value in data.items():
                    ref = semantic(props.get(key) or {}, {})[1].get("x-ref")
                    parent = colls.get(str(ref), {}).get(value) if isinstance(value, str) else None
                    if parent is None:
                        continue
                    above = parent.model_dump(mode="json", by_alias=True)
                    for field, mine in data.items():
                        if role_of(field) in WHOSE and field in above and above[field]:
                            checked += 1
                            if mine != above[field]:
                                bad.append((name, collection, field, mine, above[field]))
    assert checked and not bad, bad[:5]


# -- the hand-written services -------------------------------------------------------------
def test_reference_services_seed_coherent_records() -> None:
    world = World([Crm(), Mail(), Calendar(), Files()], seed=2)
    world.seed_states(seed_pool(2), 12)
    pool = seed_pool(2)
    now = world.now()
    for contact in world.services["crm"].state.contacts.values():
        person = pool.person_by_email(contact.email)
        assert person is not None and contact.name == person.full_name
        assert contact.title == person.title and contact.company == person.company
    for deal in world.services["crm"].state.deals.values():
        contact = world.services["crm"].state.contacts[deal.contact_id]
        assert contact.company in deal.title
    mail = world.services["mail"].state
    for m in mail.messages.values():
        sender = pool.person_by_email(m.from_address)
        assert sender is not None and m.from_name == sender.full_name
        assert m.from_address not in m.to and not set(m.cc) & set(m.to)
        assert m.sent_at <= now
    calendar = world.services["calendar"].state
    for event in calendar.events.values():
        assert event.start < event.end <= event.start + dt.timedelta(hours=2)
        assert event.organizer not in event.attendees
        assert event.created_at <= now
        companies = {
            pool.person_by_email(a).company for a in event.attendees if a != calendar.owner
        }
        assert len(companies) <= 1  # a meeting with one client company at a time
    files = world.services["files"].state
    for f in files.files.values():
        assert f.created_at <= f.modified_at <= now


# -- composition literals -------------------------------------------------------------------
def test_literals_come_from_the_vocabulary_by_field_meaning() -> None:
    now = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
    cases = {
        ("title", "recruiting.jobs"): vocab.LISTS["staff_title"],
        ("subject", "helpdesk.tickets"): None,
        ("summary", "issue_tracker.issues"): vocab.LISTS["issue_summary"],
        ("topic", "meetings.meetings"): None,
        ("name", "issue_tracker.projects"): vocab.LISTS["project_name"],
        ("name", "chat.channels"): vocab.LISTS["channel_name"],
    }
    for (name, where), allowed in cases.items():
        p = Param(name, True, "string")
        for seed in range(30):
            value = literal(p, random.Random(seed), now, where=where)
            assert isinstance(value, str) and value, (name, where)
            assert not placeholder(name, value) and not re.search(r" \d+$", value), value
            if allowed is not None:
                assert value in allowed, (name, where, value)
    for seed in range(50):
        rng = random.Random(seed)
        for name in ("title", "name", "subject", "description", "notes", "reason", "location",
                     "label", "code", "tag", "vehicle_class", "office", "comment"):  # fmt: skip
            value = literal(Param(name, True, "string"), rng, now)
            assert value is None or not placeholder(name, str(value)), (name, value)
            assert value is None or not re.search(r"\D \d{1,2}$", str(value)), (name, value)
        for name in ("first_name", "last_name", "full_name", "contact_name", "username"):
            assert literal(Param(name, True, "string"), rng, now) is None  # never made up
        tags = literal(Param("tags", True, "array", item_type="string"), rng, now)
        assert tags and all(t in vocab.LISTS["tag"] for t in tags)


def test_literals_respect_the_schema() -> None:
    now = dt.datetime(2026, 3, 2, 9, tzinfo=dt.UTC)
    for seed in range(40):
        rng = random.Random(seed)
        slug = literal(Param("name", True, "string", pattern=r"^[a-z0-9_-]{1,80}$"), rng, now)
        assert slug is None or re.fullmatch(r"[a-z0-9_-]{1,80}", slug)
        short = literal(Param("title", True, "string", max_length=12), rng, now)
        assert short is None or len(short) <= 12
        key = literal(Param("key", True, "string", pattern=r"^[A-Z][A-Z0-9]{1,9}$"), rng, now)
        assert key is None or re.fullmatch(r"[A-Z][A-Z0-9]{1,9}", key)
        qty = literal(Param("quantity", True, "integer"), rng, now)
        assert isinstance(qty, int) and 1 <= qty <= 20
        rating = literal(Param("rating", True, "integer", minimum=1, maximum=5), rng, now)
        assert 1 <= rating <= 5
        assert literal(Param("title", True, "string", min_length=500), rng, now) is None
        other = literal(Param("title", True, "string"), rng, now, avoid="Sprint planning")
        assert other != "Sprint planning"


def test_a_channel_s_topic_is_what_its_name_says() -> None:
    """#finance-ops is about invoices and the month-end close, not "Open roles and interview
    scheduling": a chat channel's topic is read from its name, qualified names included
    (more channels than names: "sales-eu" is still a sales channel)."""
    specs = bundled_specs(("chat",))
    world = World([load_service(compile_service(specs["chat"]).source)()], seed=3)
    world.seed_states(seed_pool(3), 40)
    channels = list(world.services["chat"].state.collections()["channels"].values())
    assert len(channels) > len(vocab.LISTS["channel_name"])
    for channel in channels:
        base = next(n for n in vocab.CHANNEL_TOPICS if channel.name.startswith(n))
        assert channel.topic == vocab.CHANNEL_TOPICS[base], (channel.name, channel.topic)


# A reference to what the record turned into (a lead's converted contact) points forward.
FORWARD = re.compile(r"converted|merged|replaced|superseded|successor|renewed")


def test_a_record_comes_after_the_records_it_refers_to(world: World) -> None:
    """No order predates its customer, no deal its company or contact, no sub-category or
    reply its parent: a record's creation follows that of every record of its service it
    refers to (except what it turned into: a lead predates the contact it became)."""
    checked = 0
    for name, service in world.services.items():
        born: dict[str, str] = {}
        for items in service.state.collections().values():
            for rid, record in items.items():
                stamp = record.model_dump(mode="json").get("created_at")
                if isinstance(stamp, str):
                    born[str(rid)] = stamp
        for collection, items in service.state.collections().items():
            for rid, record in items.items():
                data = record.model_dump(mode="json")
                mine = data.get("created_at")
                if not isinstance(mine, str):
                    continue
                for field, value in data.items():
                    if not isinstance(value, str) or field == "id" or value == rid:
                        continue
                    if value not in born or FORWARD.search(field):
                        continue
                    checked += 1
                    assert timestamp(mine) >= timestamp(born[value]), (
                        name, collection, rid, field, mine, born[value]
                    )  # fmt: skip
    assert checked > 200, checked


def test_an_employment_lies_where_its_status_says(world: World) -> None:
    """An active employee (or one on leave) is employed now, not until 2021; a new joiner
    still onboarding starts ahead; a terminated one's employment is over."""
    today = world.now().date()
    seen = 0
    for employee in world.services["hr"].state.employees.values():
        start, end, status = employee.start_date, employee.end_date, str(employee.status)
        if start is None or end is None:
            continue
        seen += 1
        if status in ("active", "on_leave"):
            assert start <= today <= end, (status, start, end, today)
        elif status == "onboarding":
            assert start > today, (status, start, today)
        elif status == "terminated":
            assert end <= today, (status, end, today)
    assert seen >= 5, seen


def test_an_account_not_yet_activated_was_never_logged_into(world: World) -> None:
    """A staged (provisioned, not yet activated) account has no last login; one in use
    has."""
    users = list(world.services["identity"].state.users.values())
    staged = [u for u in users if str(u.status) == "staged"]
    assert staged and all(u.last_login_at is None for u in staged), staged
    assert any(u.last_login_at is not None for u in users if str(u.status) == "active")


def test_a_record_made_a_person_s_takes_their_birth_date_too() -> None:
    """A record copied for someone (a customer's profile) shows their birth date with their
    name and e-mail: one person, one birth date."""
    pool = seed_pool(0)
    person = pool.everyone[3]
    fields = pool.person_fields(person, {"email": "email", "date_of_birth": "date", "dob": "date"})
    born = person.born.date().isoformat()
    assert fields == {"email": person.email, "date_of_birth": born, "dob": born}, fields
