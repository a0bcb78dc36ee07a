"""One shared pool of people, companies and products that every service seeds from, so the
customer in the CRM is the sender in the mailbox and the attendee in the calendar.

People come in two kinds: ``staff`` work at our own organisation (``org``), with titles and
departments that fit staff roles (owner, assignee, recruiter, technician...); ``people`` are
the outside world (customers, contacts, candidates, guests) at client ``companies``. Every
person is one identity: a unique full name, e-mail, phone and username, each agreeing with
the others.
"""

from __future__ import annotations

import datetime as dt
import math
import random
import re
import unicodedata
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from faker import Faker

from library.seed import vocab


@dataclass(frozen=True, slots=True)
class Company:
    name: str
    domain: str
    industry: str
    country: str
    address: str  # one line: street, city, region postal code, country
    phone: str
    street: str = ""
    city: str = ""
    region: str = ""
    postal_code: str = ""

    @property
    def currency(self) -> str:
        return vocab.CURRENCY_OF.get(self.country, "USD")

    @property
    def timezone(self) -> str:
        return vocab.TIMEZONE_OF.get(self.country, "UTC")

    @property
    def website(self) -> str:
        return f"https://{self.domain}"


@dataclass(frozen=True, slots=True)
class Person:
    first_name: str
    last_name: str
    email: str
    phone: str
    company: str
    title: str
    city: str
    country: str
    department: str = ""  # staff only: the department of our organisation they work in
    username: str = ""
    street: str = ""
    region: str = ""
    postal_code: str = ""
    staff: bool = False
    joiner: bool = False  # staff only: starts soon (``JOINER_EVERY``); holds no work yet

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}"

    @property
    def display_name(self) -> str:
        return self.full_name

    @property
    def born(self) -> dt.datetime:
        """One birth date per person, the same in every service that records it (an adult
        of 23 to 64 on 2026-01-01), read from the address so no draw is spent."""
        h = zlib.crc32(self.email.encode())
        return dt.datetime(1962 + h % 42, 1 + (h >> 8) % 12, 1 + (h >> 12) % 28)

    @property
    def personal_email(self) -> str:
        """A private address (``employees.personal_email``): same name, a mail provider."""
        local = self.email.split("@", 1)[0]
        provider = vocab.EMAIL_PROVIDERS[sum(map(ord, local)) % len(vocab.EMAIL_PROVIDERS)]
        return f"{local}@{provider}"


BIRTH_FIELDS = frozenset({"date_of_birth", "birth_date", "birthdate", "birthday", "dob"})
# Roles of a record's own second addresses: its person's private e-mail or other phone.
_OWN_ADDRESSES = frozenset({"personal", "private", "home"})
# A colleague's own job on their own record (an HR file's job title, an account's department).
_OWN_JOB = frozenset({"job_title", "title", "position", "department"})


@dataclass(frozen=True, slots=True)
class Product:
    sku: str
    name: str
    category: str
    price: float
    currency: str


@dataclass(frozen=True, slots=True)
class SeedPool:
    seed: int
    people: tuple[Person, ...]  # outside people: customers, contacts, candidates, guests
    companies: tuple[Company, ...]  # client companies (``people`` work there)
    products: tuple[Product, ...]
    staff: tuple[Person, ...] = ()  # our organisation's colleagues
    org: Company | None = None  # our organisation
    _index: dict[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        # Lookups by name and e-mail, built once (the pool is cached and shared).
        everyone = (*self.staff, *self.people)
        index = self._index
        index["company"] = {c.name: c for c in (*self.companies, *([self.org] if self.org else []))}
        # A person is found by their private address too (``employees.personal_email``).
        index["email"] = {p.personal_email.casefold(): p for p in everyone}
        index["email"] |= {p.email.casefold(): p for p in everyone}
        index["name"] = {p.full_name.casefold(): p for p in everyone}
        index["phone"] = {p.phone: p for p in everyone}
        index["username"] = {p.username: p for p in everyone if p.username}
        at: dict[str, list[Person]] = {}
        for p in everyone:
            at.setdefault(p.company, []).append(p)
        index["at"] = at
        depts: dict[str, list[Person]] = {}
        for p in self.working:
            depts.setdefault(p.department, []).append(p)
        index["dept"] = depts

    # -- lookups ----------------------------------------------------------------------------
    @property
    def everyone(self) -> tuple[Person, ...]:
        return (*self.staff, *self.people)

    @property
    def working(self) -> tuple[Person, ...]:
        """Colleagues who have started: every one but the joiners, who hold no work yet."""
        return tuple(p for p in self.staff if not p.joiner)

    def company(self, name: str) -> Company:
        return self._index["company"][name]

    def people_at(self, company: str) -> list[Person]:
        return list(self._index["at"].get(company, ()))

    def person_by_email(self, email: str) -> Person | None:
        return self._index["email"].get(str(email).strip().casefold())

    def person_by_name(self, name: str) -> Person | None:
        return self._index["name"].get(" ".join(str(name).split()).casefold())

    def person_by_phone(self, phone: str) -> Person | None:
        return self._index["phone"].get(str(phone).strip())

    def person_by_username(self, username: str) -> Person | None:
        return self._index["username"].get(str(username).strip())

    def person_fields(
        self, person: Person, fields: dict[str, str | None], role: str = ""
    ) -> dict[str, Any]:
        """The values that make a record's ``role`` fields show ``person`` (``fields``: field
        name -> semantic key): every name part, e-mail, phone, username and company of that
        role, so a changed e-mail never keeps another person's name."""
        out: dict[str, Any] = {}
        for name, key in fields.items():
            low = name.lower()
            born = low in BIRTH_FIELDS  # ``date_of_birth``: the record's own person's
            owner = "" if born or low in ("company", "company_name") else vocab.role_of(low)
            if not role and person.staff and key is None and low in _OWN_JOB:
                # a colleague's own file says what they do (their HR file, their account):
                # the recruiter is a Recruiter in People, not the file's first holder's
                value = person.department if low == "department" else person.title
                if value:
                    out[name] = value
                continue
            private = owner in _OWN_ADDRESSES
            if owner != role and not (private and not role):
                continue  # another role's person (a record's personal e-mail is its own)
            part = next(
                (a for p, a in vocab.NAME_PARTS.items() if low == p or low.endswith("_" + p)),
                None,
            )
            if key == "email":
                out[name] = person.personal_email if private else person.email
            elif key == "phone" or low in ("phone", "mobile") or low.endswith("_phone"):
                out[name] = person.phone
            elif key == "company" or low in ("company", "company_name"):
                out[name] = person.company
            elif low == "username" or low.endswith("_username"):
                out[name] = person.username
            elif born:
                out[name] = person.born.date().isoformat()  # one birth date per person
            elif part is not None and (key == "person_name" or low != "name"):
                out[name] = getattr(person, part)
        return out

    @staticmethod
    def address_of(person: Person, current: dict[str, Any]) -> dict[str, Any]:
        """``current`` (a nested address) moved to ``person``'s own address part by part, so
        a record copied for them does not keep its first holder's street, or a street of
        Lyon in the US; parts it does not name (a label, a PO box) are kept."""
        if not (person.street and person.city):
            return current
        parts = {
            "street": person.street,
            "line2": "",
            "city": person.city,
            "region": person.region,
            "postal_code": person.postal_code,
        }
        out = dict(current)
        for key, value in current.items():
            low = key.lower()
            part = vocab.meaning(low)
            if part in parts and isinstance(value, str) and parts[part] is not None:
                out[key] = parts[part]
            elif low in ("country", "country_code") and isinstance(value, str):
                out[key] = person.country
        return out

    def is_staff(self, who: Person | str) -> bool:
        """Whether a person (or an e-mail, name or phone of one) is one of our colleagues."""
        if isinstance(who, Person):
            return who.staff
        person = self.person_by_email(who) or self.person_by_name(who) or self.person_by_phone(who)
        return person is not None and person.staff

    def staff_in(self, *departments: str) -> list[Person]:
        return [p for d in departments for p in self._index["dept"].get(d, ())]

    def staff_for(self, role: str) -> list[Person]:
        """Colleagues who would fill ``role`` (recruiters for ``recruiter``...), else all."""
        depts = vocab.ROLE_DEPARTMENTS.get(role.lower(), ())
        return self.staff_in(*depts) or list(self.working)

    # -- drawing for seeds ------------------------------------------------------------------
    def cast(self, rng: random.Random, staff: bool = False) -> Cast:
        """Who appears on the records of one collection (see ``Cast``)."""
        return Cast(self, rng, staff)

    def product_at(self, i: int) -> Product:
        """The ``i``-th product; past the list, colour variants keep SKUs distinct."""
        n = len(self.products)
        base = self.products[i % n]
        if i < n:
            return base
        colour = _VARIANTS[(i // n - 1) % len(_VARIANTS)]
        tail = "" if i < n * (len(_VARIANTS) + 1) else f"-{i // (n * (len(_VARIANTS) + 1))}"
        return Product(
            sku=f"{base.sku}-{colour[:3].upper()}{tail}",
            name=f"{base.name}, {colour}",
            category=base.category,
            price=base.price,
            currency=base.currency,
        )

    def text(
        self,
        kind: str,
        rng: random.Random,
        *about: Any,
        ref: str | None = None,
        asked: bool = False,
    ) -> str:
        """A value of ``kind`` (see ``vocab.meaning``) that may mention what it is about:
        a person, a company, a product; ``ref``: the number it cites (its record's own);
        ``asked``: the record is in its first state, so a body is its requester's own words,
        no note of work done on it (``vocab.WORK_NOTES``)."""
        ctx = self._ctx(rng, about, kind in _MENTIONS, kind)
        if ref is not None:
            ctx["ref"] = ref
        if asked:
            ctx["asked"] = True
        return vocab.render(kind, rng, ctx)

    @staticmethod
    def text_for(kind: str, of: Any, rng: random.Random) -> str:
        """A text of ``kind`` that fits its record's own kind ``of`` (an expansion CTA's
        reason is about growth, not a sponsor leaving)."""
        return rng.choice(vocab.BY_KIND[kind][str(of)])

    def distinct(
        self, kind: str, rng: random.Random, n: int, *about: Any, avoid: str | None = None
    ) -> list[str]:
        """``n`` different values of ``kind`` (for unique fields), qualified by client
        companies or cities once the vocabulary runs out; never ``avoid`` (the spec's own
        example, which a caller may create)."""
        ctx = self._ctx(rng, about)
        qualifiers = [c.name for c in self.companies[:12]] + list(vocab.LISTS["city"][:12])
        skip = (avoid,) if avoid else ()
        return vocab.distinct(kind, rng, n, ctx, qualifiers, avoid=skip)

    def keys(self, names: list[str], max_len: int = 10) -> list[str]:
        """Short distinct keys derived from names (``Platform Engineering`` -> ``PE``)."""
        taken: set[str] = set()
        return [vocab.key_for(name, taken, max_len) for name in names]

    def currency(self, options: tuple[str, ...], company: Company | None = None) -> str:
        """The currency a record is in: its client company's (or ours), when allowed."""
        want = company.currency if company is not None else (
            self.org.currency if self.org else "USD"
        )  # fmt: skip
        if want in options:
            return want
        return "USD" if "USD" in options else options[0]

    def currency_in(self, city: Any, options: tuple[str, ...]) -> str:
        """The currency of the country a city is in (a job in Edinburgh pays in GBP)."""
        country = vocab.COUNTRY_OF_CITY.get(str(city))
        want = vocab.CURRENCY_OF.get(country or "", "")
        if want and (want in options or not options):
            return want
        return self.currency(options or (self.org.currency if self.org else "USD",))

    @staticmethod
    def contract(title: Any, options: tuple[Any, ...], rng: random.Random) -> Any:
        """A kind of contract that fits a job title (no intern Head of Sales)."""
        return rng.choices(options, vocab.contract_weights(str(title), options))[0]

    @staticmethod
    def pay(rng: random.Random, title: Any, contract: Any = None) -> float:
        """A yearly pay that fits a job title, halved for part-time work."""
        level = 0 if vocab.contract_of(contract) == "intern" else vocab.seniority(str(title))
        low, high = vocab.PAY_BANDS[level]
        share = 0.5 if vocab.contract_of(contract) == "part" else 1.0
        return round(rng.uniform(low, high) * share, -2)

    @staticmethod
    def column(kind: str, value: str, column: str, options: tuple[Any, ...] = ()) -> Any:
        """A value that goes with a listed one (the code of the ``Travel`` account); among
        ``options`` when given."""
        found = vocab.row_value(kind, value, column)
        if found is None or (options and found not in options):
            return options[0] if options else vocab.slug(value, "_")
        return found

    @staticmethod
    def near(kind: str, rng: random.Random, start: str) -> str:
        """Where a trip that began at ``start`` ends: there again mostly, else another
        place of ``kind`` in the same region (a one-way rental stays in one country)."""
        regions = vocab.ROWS.get(kind, {}).get("region", {})
        same = [v for v, r in regions.items() if r == regions.get(start) and v != start]
        return rng.choice(same) if same and rng.random() < 0.4 else start

    @staticmethod
    def multiple_of(rng: random.Random, low: float, high: float, step: float) -> float:
        """A number in [low, high] that is a whole multiple of ``step`` as JSON Schema checks
        it (``value / step`` a whole number: 0.3 is no multiple of 0.1 in floating point)."""
        first, last = math.ceil(low / step), math.floor(high / step)
        last = max(first, last)
        for _ in range(20):
            k = rng.randint(first, last)
            value = round(k * step, 10)
            if value / step == int(value / step):
                return int(value) if value == int(value) and step == int(step) else value
        return float(first * step)

    @staticmethod
    def share_done(status: Any, done: str, rng: random.Random) -> float:
        """How much of a record's total is ``done`` ("paid", "refunded") as its status says:
        all once it is, part while partially so, none before."""
        state = str(status)
        if state == done:
            return 1.0
        return rng.choice((0.25, 0.5)) if "partial" in state and done in state else 0.0

    @staticmethod
    def only(reached: bool, value: Any) -> Any:
        """A value that exists once a record reached a state (a lost deal's reason)."""
        return value if reached else None

    @staticmethod
    def likelihood(status: Any, drawn: Any, stages: tuple[Any, ...] = ()) -> Any:
        """A win probability as the stage says: 100 once won, 0 once lost; an open stage's
        grows with how far along the pipeline (``stages``, in order) it is, else the drawn
        value is kept short of either (an open deal is neither certain nor hopeless)."""
        state = str(getattr(status, "value", status) or "").lower()
        if _closed_as(state) is not None:
            return type(drawn)(_closed_as(state))
        open_ = [s for s in stages if _closed_as(str(s).lower()) is None]
        if status in open_:
            share = (open_.index(status) + 1) / (len(open_) + 1)
            return type(drawn)(5 * round(share * 20))
        return min(max(drawn, type(drawn)(5)), type(drawn)(95))

    @staticmethod
    def letter(subject: str, rng: random.Random) -> str:
        """A message body that fits its subject line (``vocab.letter_body``)."""
        return vocab.letter_body(subject, rng)

    @staticmethod
    def band(score: Any, ordered: tuple[Any, ...], low: float, high: float) -> Any:
        """The label a score earns (an account's health beside its health score):
        ``ordered`` runs from the lowest score's label to the highest's and splits
        ``low``..``high`` evenly, so a score of 23 of 100 is "at_risk", not "healthy"."""
        if not isinstance(score, int | float) or high <= low:
            return ordered[0]
        share = min(max((score - low) / (high - low), 0.0), 1.0)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]

    @staticmethod
    def begun(rng: random.Random, ids: list[str], records: Any, now: dt.datetime) -> str:
        """One of ``ids`` whose happening (a meeting, a call) has begun and was not called
        off: what a recording or a transcript can be of. Any where none has."""
        held = [i for i in ids if _began(records[i], now)]
        return rng.choice(held or ids)

    @staticmethod
    def during(rng: random.Random, happening: Any, now: dt.datetime) -> dt.datetime:
        """A moment in the first part of ``happening`` (when its recording started): at
        or a few minutes after its start, never after now."""
        start = _as_datetime(_start_of(happening), now)
        length = _length_of(happening)
        offset = dt.timedelta(seconds=rng.randint(0, int(min(300.0, length / 4))))
        return min(start + offset, now)

    @staticmethod
    def lasting(rng: random.Random, happening: Any, unit: str) -> int:
        """How long a capture of ``happening`` runs, in ``unit`` ("seconds", "minutes"):
        most of it, never longer."""
        seconds = _length_of(happening) * rng.uniform(0.6, 0.98)
        return max(1, int(seconds / 60 if unit == "minutes" else seconds))

    @staticmethod
    def agreeing(status: Any, options: tuple[Any, ...], rng: random.Random) -> Any:
        """A second state of a record (an order's fulfillment) that agrees with its main
        one: the same word where both have it (a ``fulfilled`` order is ``fulfilled``), the
        first, initial one before the record got going or once it was called off (a
        pending or canceled order is ``unfulfilled``), else any."""
        state = str(getattr(status, "value", status) or "").lower()
        if status in options:
            return status
        if state in _NOT_STARTED:
            return options[0]
        return rng.choice(options)

    @staticmethod
    def per_month(amount: float, interval: Any, months: int = 1) -> float:
        """A recurring amount billed every ``interval`` (``year``, ``quarterly``...) as
        revenue per ``months`` months (1: MRR, 12: ARR)."""
        word = str(getattr(interval, "value", interval) or "month").lower()
        per = next((n for w, n in _INTERVAL_MONTHS if w in word), 1.0)
        return round(amount / per * months, 2)

    @staticmethod
    def began(span: tuple[Any, Any], status: Any, now: dt.datetime) -> Any:
        """When a happening (a booking, a stay) began, where its status says it has (checked
        in, under way, over) and its start is past: its record was last touched no earlier
        (checking in updates it). None otherwise."""
        state = str(getattr(status, "value", status) or "").lower()
        start = span[0] if span else None
        if state not in PAST_STATES | LIVE_STATES or start is None:
            return None
        return start if _as_datetime(start, now) <= now else None

    @staticmethod
    def field_of(records: Mapping[str, Any], rid: Any, attr: str) -> Any:
        """Field ``attr`` of record ``rid`` (None where there is no such record: a
        category with no parent)."""
        record = records.get(rid) if rid else None
        return getattr(record, attr, None) if record is not None else None

    @staticmethod
    def not_before(span: tuple[Any, Any], made: Any) -> tuple[Any, Any]:
        """``span`` moved whole days later where it began before ``made`` (a subscription's
        first period starts when it is created)."""
        start, end = span
        gap = (_as_datetime(made, _EPOCH).date() - _as_datetime(start, _EPOCH).date()).days
        if gap <= 0:
            return span
        return start + dt.timedelta(days=gap), end + dt.timedelta(days=gap)

    @staticmethod
    def on_terms(span: tuple[Any, Any], days: Any) -> tuple[Any, Any]:
        """A bill's (issued, due) ``span`` due ``days`` after it was issued, where its terms
        are stated (a customer's ``payment_terms_days``): due = issued + terms; else as it
        was."""
        if isinstance(days, bool) or not isinstance(days, int | float) or days <= 0:
            return span
        start = span[0]
        return start, start + dt.timedelta(days=int(days))

    @staticmethod
    def recurring(start: Any, rng: random.Random) -> str:
        """A recurrence rule (RFC 5545) that agrees with the first occurrence's day."""
        day = _as_datetime(start, _EPOCH)
        weekday = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")[day.weekday()]
        return rng.choice(
            (
                f"RRULE:FREQ=WEEKLY;BYDAY={weekday}",
                f"RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY={weekday}",
                f"RRULE:FREQ=MONTHLY;BYMONTHDAY={day.day}",
                "RRULE:FREQ=DAILY",
            )
        )

    @staticmethod
    def just_now(live: bool, created: Any, rng: random.Random, now: dt.datetime) -> Any:
        """When something that lasts minutes (a call ringing) was made: a few minutes ago
        while it is ``live``, else ``created``."""
        if not live:
            return created
        return now - dt.timedelta(minutes=rng.randint(1, 20), seconds=rng.randint(0, 59))

    @staticmethod
    def member(members: Any, drawn: Any, rng: random.Random) -> Any:
        """Who writes in a group (a channel): the one drawn where they are a member (or
        the group lists no one), else one of its members."""
        listed = list(members or ())
        return drawn if not listed or drawn in listed else rng.choice(listed)

    @staticmethod
    def until(sealed: Any, now: dt.datetime) -> dt.datetime:
        """The clock of a record under a parent that was sealed (a report submitted): what
        is on it happened before then, else before now."""
        return min(_as_datetime(sealed, now), now) if sealed is not None else now

    @staticmethod
    def sums(
        parents: Mapping[str, Any],
        lines: Any,
        ref: str,
        amount: str,
        total: str,
        touched: tuple[str, str] = ("", ""),
    ) -> dict[str, dict[str, Any]]:
        """What each parent whose ``total`` is the sum of its lines' ``amount`` (an expense
        report's total, its expenses) becomes once the lines are seeded: that sum (nothing
        on it: 0), and, with ``touched`` (the parent's update stamp, the line's creation
        stamp), last updated no earlier than its latest line was made."""
        added: dict[str, float] = {rid: 0.0 for rid in parents}
        latest: dict[str, Any] = {}
        for line in lines:
            rid = getattr(line, ref, None)
            if rid not in added:
                continue
            added[rid] += float(getattr(line, amount, None) or 0)
            made = getattr(line, touched[1], None) if touched[1] else None
            if made is not None:
                latest[rid] = SeedPool.latest(latest.get(rid), made)
        out: dict[str, dict[str, Any]] = {}
        for rid, parent in parents.items():
            whole = isinstance(getattr(parent, total, None), int)
            changes: dict[str, Any] = {total: round(added[rid]) if whole else round(added[rid], 2)}
            stamp = getattr(parent, touched[0], None) if touched[0] else None
            if stamp is not None and latest.get(rid) is not None:
                changes[touched[0]] = SeedPool.latest(stamp, latest[rid])
            out[rid] = changes
        return out

    @staticmethod
    def one_place(status: Any, options: tuple[Any, ...], busy: set[str], *people: Any) -> Any:
        """One person, one place: a record of a happening one attends (a meeting, a room
        booking, a call) that its ``status`` says is under way now, where someone on it is
        already in another such record of the collection (``busy``), is not under way but
        over (the first such state of ``options``), else ahead; else its people are busy."""
        state = str(getattr(status, "value", status) or "").lower()
        if place_of(state) != "live" and state not in CALLING:
            return status
        emails = _emails(people)
        if not emails & busy:
            busy.update(emails)
            return status
        for place in ("past", "ahead"):
            later = [o for o in options if place_of(str(o).lower()) == place]
            if later:
                return later[0]
        return status

    @staticmethod
    def happening_state(
        rng: random.Random, open_states: tuple[Any, ...], states: tuple[Any, ...]
    ) -> Any:
        """A seeded state of a happening one attends (a meeting, a stay, a rental, a flight,
        a call): under way now (live, checked in, ringing) for a few (``UNDER_WAY_SHARE``),
        else mostly an open one still ahead (confirmed, scheduled), now and then any (over,
        cancelled)."""
        live = [s for s in states if place_of(str(s).lower()) == "live" or s in CALLING]
        if live and rng.random() < UNDER_WAY_SHARE:
            return rng.choice(live)
        # a call is placed as it rings: none lies ahead, most are over (missed, voicemail)
        ahead = not any(s in CALLING for s in states)
        waiting = [s for s in open_states if s not in live and place_of(_word(s)) != "past"]
        waiting = waiting if ahead else []
        waiting = waiting or [s for s in open_states if s not in live] or list(open_states)
        rest = [s for s in states if s not in live] or list(states)
        return rng.choice(waiting) if rng.random() < 0.7 else rng.choice(rest)

    @staticmethod
    def apart(
        span: tuple[Any, Any],
        status: Any,
        held: dict[str, list[tuple[Any, Any]]],
        now: dt.datetime,
        *people: Any,
    ) -> tuple[Any, Any]:
        """One guest, one room a night; one driver, one rental car: ``span`` of a happening
        held alone (``HELD_ALONE``) moved clear of the spans the same people already hold in
        the collection (``held``: e-mail -> spans, updated), whatever its state: one that
        lies behind further back, one ahead further ahead; one under way begins once their
        last ended and ends the day their next begins (``one_place`` kept a second one of
        theirs from being under way). One called off holds no one."""
        state = str(getattr(status, "value", status) or "").lower()
        emails = sorted(_emails(people))
        if state in CALLED_OFF or not emails:
            return span
        start, end = (_as_datetime(t, now) for t in span)
        theirs = [(a, b) for e in emails for a, b in held.get(e, [])]
        if place_of(state) != "live":
            for _ in range(len(theirs) + 1):  # each move clears one span; the next is checked
                clash = [(a, b) for a, b in theirs if start < b and a < end]
                if not clash:
                    break
                if end < now:  # behind: to end the day before the earliest clash starts
                    first = min(a for a, _ in clash)
                    shift = dt.timedelta(days=(end.date() - first.date()).days + 1)
                    start, end = start - shift, end - shift
                else:  # ahead: to start the day after the latest clash ends
                    last = max(b for _, b in clash)
                    shift = dt.timedelta(days=(last.date() - start.date()).days + 1)
                    start, end = start + shift, end + shift
        else:  # under way: it began once their last one ended, ends as their next begins
            last = max((b for a, b in theirs if start < b and a < end and b <= now), default=None)
            if last is not None:
                start = max(start, last)
            first = min((a for a, b in theirs if start < b and a < end and a > now), default=None)
            if first is not None:
                cut = first.replace(hour=end.hour, minute=end.minute)
                end = cut if now < cut <= first and start < cut else end
        for e in emails:
            held.setdefault(e, []).append((start, end))
        if (start, end) == tuple(_as_datetime(t, now) for t in span):
            return span
        return start, end

    @staticmethod
    def as_parent_allows(
        status: Any, ended: tuple[Any, ...], parent_status: Any, rng: random.Random
    ) -> Any:
        """A record's state as its parent's allows: under a parent closed, cancelled,
        archived or filled nothing hangs open (an issue of a closed sprint is done or
        dropped, an application to a closed job hired or rejected, a registration for a
        cancelled event cancelled): one of its ``ended`` states, a cancelled one under a
        parent cancelled where it has one. As drawn otherwise."""
        parent = str(getattr(parent_status, "value", parent_status) or "").lower()
        state = str(getattr(status, "value", status) or "").lower()
        if parent not in PARENT_ENDED or not ended or state in {str(s).lower() for s in ended}:
            return status
        if parent in CALLED_OFF:
            off = [s for s in ended if str(s).lower() in CALLED_OFF]
            if off:
                return rng.choice(off)
        return rng.choice(ended)

    @staticmethod
    def as_parent_began(status: Any, waiting: Any, parent_start: Any, now: dt.datetime) -> Any:
        """A record's state as its parent's start allows: one that says its part began or is
        over (a registration checked in, an attendee's no-show) is ``waiting`` (confirmed)
        while the parent (an event, a session) lies ahead. As drawn otherwise."""
        if parent_start is None or _as_datetime(parent_start, now) <= now:
            return status
        return waiting if place_of(_word(status)) in ("live", "past") else status

    @staticmethod
    def behind_once_ended(
        when: Any,
        parent_state: Any,
        ended: tuple[Any, ...],
        rng: random.Random,
        now: dt.datetime,
        after: Any = None,
    ) -> Any:
        """A lone start (an interview's) of a record under a parent whose business ended
        (``ended``: an application hired or rejected) that lies behind: it took place in
        working hours on a day before today and after the day of ``after`` (the parent's
        making; its own record was made in between: ``created``); where no such day is left,
        as drawn."""
        if _word(parent_state) not in {_word(s) for s in ended} or _as_datetime(when, now) <= now:
            return when
        since = _as_datetime(after, now) if after is not None else now - dt.timedelta(days=40)
        first = (since + dt.timedelta(days=1)).date()
        last = (now - dt.timedelta(days=1)).date()
        if first > last:
            return when
        day = first + dt.timedelta(days=rng.randint(0, (last - first).days))
        hour, minute = rng.randint(9, 16), rng.choice((0, 30))
        at = dt.datetime(day.year, day.month, day.day, hour, minute, tzinfo=now.tzinfo)
        return at.date() if type(when) is dt.date else at

    @staticmethod
    def not_draft(rng: random.Random, ids: list[str], records: Mapping[str, Any], attr: str) -> str:
        """A parent picked among those past their draft (``ids`` of ``records``, whose state
        is ``attr``): a job not yet posted has no applicants, an event not yet published no
        registrations. Any where all are drafts."""
        posted = [i for i in ids if _word(getattr(records[i], attr, None)) != "draft"]
        return rng.choice(posted or ids)

    @staticmethod
    def charged(rng: random.Random, ids: list[str], records: Mapping[str, Any], attr: str) -> str:
        """The charge a refund gives money back from (``ids`` of ``records``, whose state is
        ``attr``): one that took money (``MONEY_TAKEN``: succeeded, paid, part refunded),
        never one only authorised, failed or cancelled. Any where none took money."""
        drawn = rng.choice(ids)  # (one draw, as any parent's: the stream after stays as it was)
        taken = [i for i in ids if _word(getattr(records[i], attr, None)) in MONEY_TAKEN]
        if drawn in taken or not taken:
            return drawn
        return taken[(ids.index(drawn) * 7) % len(taken)]  # another, chosen by the draw

    @staticmethod
    def given_back(amount: Any, charge: Any, before: Any, refunded: Any = None) -> Any:
        """A refund's ``amount`` as its charge allows: no more than what is left of the
        ``charge`` (of what it shows ``refunded``, where it shows any) once the refunds
        ``before`` it (amounts) are taken off."""
        if not isinstance(amount, int | float) or not isinstance(charge, int | float):
            return amount
        cap = refunded if isinstance(refunded, int | float) and 0 < refunded <= charge else charge
        left = round(cap - sum(a for a in before if isinstance(a, int | float)), 2)
        if left <= 0:  # (all of it went back already: at most that much)
            left = cap
        # over what is left: the unrefunded remainder, as a refund without an amount is
        return amount if amount <= left else type(amount)(left)

    @staticmethod
    def values_of(records: Mapping[str, Any], link: str, ident: str, attr: str) -> list[Any]:
        """The ``attr`` of every one of ``records`` whose ``link`` names ``ident`` (the
        amounts of the refunds of one payment)."""
        return [getattr(r, attr, None) for r in records.values() if getattr(r, link, None) == ident]

    @staticmethod
    def back_as_charge(status: Any, charge_status: Any, options: tuple[Any, ...]) -> Any:
        """A refund's state as its charge's shows it: one done (succeeded) only on a charge
        that says money went back (refunded, part refunded); on one that shows none, the
        refund is still under way (pending). As drawn otherwise."""
        if _word(status) not in MONEY_BACK_DONE or _word(charge_status) in MONEY_SENT_BACK:
            return status
        if _word(charge_status) not in MONEY_TAKEN:
            return status
        waiting = [o for o in options if _word(o) in MONEY_BACK_WAITING]
        return waiting[0] if waiting else status

    @staticmethod
    def currency_as(value: Any, options: tuple[str, ...]) -> Any:
        """A parent's currency for a record under it (an expense on a EUR report is in
        EUR), where the record allows it."""
        return value if not options or value in options else options[0]

    @staticmethod
    def latest(*times: Any) -> Any:
        """The latest of the given times that are set (stamps a record has not reached
        are None): what the next step of its lifecycle comes after."""
        known = [t for t in times if t is not None]
        if not known:
            return None
        stamps = [_as_datetime(t, _EPOCH) for t in known]
        return known[stamps.index(max(stamps))]

    @staticmethod
    def ref_for(rng: random.Random, ids: list[str], owners: dict[str, Any], owner: Any) -> str:
        """A record that belongs to ``owner`` (a person, or a company name) if one was
        seeded, else any: a deal's company is its contact's company."""
        mine = [rid for rid in ids if owners.get(rid) == owner]
        return rng.choice(mine or ids)

    @staticmethod
    def external_id(prefix: str, rng: random.Random) -> str:
        """The id of a record another service holds (``ord_3f9a1c2e``): 8 hex characters,
        never the 10 of ids this service issues, and never all digits."""
        while True:
            token = f"{rng.getrandbits(32):08x}"
            if not token.isdigit():
                return f"{prefix}{token}"

    @staticmethod
    def picks(rng: random.Random, ids: list[str], k: int) -> list[str]:
        """``k`` different records to refer to (a transfer's source and destination)."""
        if len(ids) >= k:
            return rng.sample(ids, k)
        return [rng.choice(ids) for _ in range(k)] if ids else [""] * k

    def sample(self, kind: str, rng: random.Random, k: int) -> list[str]:
        """``k`` different listed values of a kind (tags, labels, skills)."""
        values = vocab.values_of(kind)
        return rng.sample(values, min(k, len(values)))

    @staticmethod
    def slug(text: str) -> str:
        return vocab.slug(text)

    @staticmethod
    def secret(rng: random.Random) -> str:
        """Secret key material (a TSIG key, a shared secret): base64 of 32 random bytes."""
        import base64

        return base64.b64encode(rng.getrandbits(256).to_bytes(32, "big")).decode()

    def dns_content(self, rtype: str, rng: random.Random, dot: bool = False) -> str:
        """What a DNS record of type ``rtype`` holds: an A record an IPv4 address of the
        documentation ranges, AAAA one in 2001:db8::/32, a CNAME or NS a host name of ours,
        an MX a mail exchanger with its preference, a TXT an SPF policy, an SOA its fields;
        names end in a dot where ``dot`` (the zone's names are written absolute)."""
        zone = self.org.domain if self.org else "example.com"
        end = "." if dot else ""
        kind = rtype.upper()
        if kind == "AAAA":
            return f"2001:db8:{rng.randint(1, 0xFFFF):x}::{rng.randint(1, 0xFFFF):x}"
        if kind in ("CNAME", "PTR", "ALIAS", "DNAME"):
            host = rng.choice(("lb", "cdn", "web", "edge", "app", "origin"))
            return f"{host}.{zone}{end}"
        if kind == "NS":
            return f"ns{rng.randint(1, 3)}.{zone}{end}"
        if kind == "MX":
            return f"{rng.choice((10, 20))} mail.{zone}{end}"
        if kind in ("TXT", "SPF"):
            return f'"v=spf1 include:_spf.{zone} ~all"'
        if kind == "SOA":
            serial = f"{rng.randint(2024, 2026)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}01"
            return f"ns1.{zone}{end} hostmaster.{zone}{end} {serial} 10800 3600 604800 3600"
        if kind == "SRV":
            return f"10 5 443 sip.{zone}{end}"
        if kind == "CAA":
            return '0 issue "letsencrypt.org"'
        net = rng.choice(("192.0.2", "198.51.100", "203.0.113"))
        return f"{net}.{rng.randint(1, 254)}"

    @staticmethod
    def under(zone: str, rng: random.Random, rtype: str = "") -> str:
        """A DNS name held in the zone ``zone``: the zone's apex now and then, else a host
        under it (``www.blog.acme.com``), written as the zone is (absolute with its dot).
        A CNAME is never at the apex (it may not sit beside the zone's SOA and NS)."""
        if rtype.upper() not in ("CNAME", "DNAME") and rng.random() < 0.25:
            return zone
        return f"{rng.choice(vocab.LISTS['host_label'])}.{zone}"

    @staticmethod
    def token(field: str, rng: random.Random) -> str:
        """An identifier-like value for a field of no known meaning (``vocab.token``)."""
        return vocab.token(field, rng)

    @staticmethod
    def tokens(field: str, rng: random.Random, n: int) -> list[str]:
        """``n`` different identifier-like values (a unique name of no known meaning)."""
        return vocab.tokens_for(field, rng, n)

    def mailbox(self, rng: random.Random) -> str:
        """A mailbox of ours a team reads or a script sends from (``billing-alerts@acme.com``)."""
        org = self.org.domain if self.org else "example.com"
        return f"{vocab.token('mailbox', rng)}@{org}"

    @staticmethod
    def name_in(records: Mapping[str, Any], attr: str, rng: random.Random, other: str) -> str:
        """The name (``attr``) of one of ``records`` (a helm chart's ``namespace`` is one of
        the namespaces), else ``other`` where none has one."""
        names = [n for r in records.values() if (n := getattr(r, attr, None))]
        return str(rng.choice(names)) if names else other

    def image(self, rng: random.Random, name: str | None = None) -> str:
        """The container image a workload runs: its own build in our registry, tagged with a
        release (``registry.acme.com/checkout-service:1.14.2``); a public one without a
        name."""
        if name is None:
            return rng.choice(vocab.LISTS["container_image"])
        org = self.org.domain if self.org else "example.com"
        tag = f"{rng.randint(1, 4)}.{rng.randint(0, 24)}.{rng.randint(0, 9)}"
        return f"registry.{org}/{vocab.slug(name)}:{tag}"

    def fresh(self, taken: set[str], kind: str, rng: random.Random, *about: Any) -> str:
        """A value of ``kind`` (as ``text`` draws it) no record has yet (``taken``, which it
        joins): drawn again while taken, then qualified naturally (``-eu`` before a file's
        extension, ``(EMEA)`` after a title), never numbered."""
        value = self.text(kind, rng, *about)
        for _ in range(20):
            if value not in taken:
                break
            value = self.text(kind, rng, *about)
        base, qualifiers = value, list(vocab.QUALIFIERS)
        stem, dot, ext = base.rpartition(".")
        slug = re.fullmatch(r"[a-z0-9@][a-z0-9._/-]*", base) is not None
        while value in taken:
            q = rng.choice(qualifiers)
            if slug:
                value = f"{stem}-{vocab.slug(q)}{dot}{ext}" if dot else f"{base}-{vocab.slug(q)}"
            else:
                value = f"{base} ({q})"
            base = value if value in taken else base
        taken.add(value)
        return value

    def handles(self, rng: random.Random, n: int) -> list[str]:
        """``n`` different social handles, each a client company's (``@mannkelley``)."""
        made = {vocab.render("handle", rng, {"company": c.name}) for c in self.companies}
        out = sorted(made)
        rng.shuffle(out)
        while len(out) < n:  # more accounts than companies: a team's own
            handle = f"{rng.choice(out or ['@team'])}_{rng.choice(vocab.LISTS['city'])}"
            handle = vocab.slug(handle, "_").join(("@", ""))[:24]
            if handle not in out:
                out.append(handle)
        return out[:n]

    def host(self, name: str) -> str:
        """The host name of a named resource of ours (a database cluster)."""
        org = self.org.domain if self.org else "example.com"
        return f"{vocab.slug(name)}.db.{org}"

    @staticmethod
    def mime(name: str) -> str:
        """The MIME type of a file name, from its extension."""
        return vocab.mime_for(name)

    def url(self, kind: str, rng: random.Random, *about: Any) -> str:
        """A URL of a kind: a meeting link at our video host, a LinkedIn profile, or a page
        or file of a service (``about``: the service and the record's path)."""
        org = self.org.domain if self.org else "example.com"
        if kind == "meeting":
            return f"https://meet.{org}/j/{rng.randint(10**9, 10**10 - 1)}"
        person = next((a for a in about if isinstance(a, Person)), None)
        if kind == "linkedin" and person is not None:
            return f"https://www.linkedin.com/in/{vocab.slug(person.full_name)}"
        words = [a for a in about if isinstance(a, str)]
        service = vocab.slug(words[0]) if words else "app"
        path = words[1] if len(words) > 1 else "items"
        token = f"{rng.getrandbits(40):010x}"
        ext = next((e for k, e in _FILE_URLS if k in kind), "")
        tail = f"{vocab.slug(kind)}-{token}.{ext}" if ext else token
        return f"https://{service}.{org}/{path}/{tail}"

    def endpoint(self, service: str, path: str, rid: Any, sub: str = "") -> str:
        """A record's own API endpoint: the service's host, the collection's path and the
        record's id (``https://dns.acme.com/servers/ser_1f.../zones``)."""
        org = self.org.domain if self.org else "example.com"
        tail = f"/{sub}" if sub else ""
        return f"https://{vocab.slug(service)}.{org}/{path}/{rid}{tail}"

    @staticmethod
    def vary(example: str, rng: random.Random) -> str:
        """The example's format with other digits (``INV-2025-0042`` -> ``INV-2025-0317``);
        a four-digit year stays a year."""

        def digit_run(m: re.Match[str]) -> str:
            run = m.group(0)
            if len(run) == 4 and run.startswith("20"):
                return run
            low = 10 ** (len(run) - 1) if run[0] != "0" else 0
            return f"{rng.randint(low, 10 ** len(run) - 1):0{len(run)}d}"

        return re.sub(r"\d+", digit_run, example)

    def varied(self, example: str, rng: random.Random, n: int) -> list[str]:
        """``n`` different variations of a coded example (unique codes), never the
        example itself."""
        out: list[str] = []
        seen: set[str] = {example}
        for _ in range(n * 20):
            value = self.vary(example, rng)
            if value not in seen:
                seen.add(value)
                out.append(value)
            if len(out) == n:
                return out
        return out + [f"{example}-{rng.getrandbits(24):06x}" for _ in range(n - len(out))]

    @staticmethod
    def pattern(
        pattern: str, rng: random.Random, min_length: int = 0, max_length: int | None = None
    ) -> str:
        """A value matching a field's declared pattern within its length bounds."""
        from library.compiler.patterns import regex_sample  # no cycle: only at seed time

        return regex_sample(pattern, rng, min_length, max_length) or ""

    def patterned(
        self,
        pattern: str,
        rng: random.Random,
        n: int,
        min_length: int = 0,
        max_length: int | None = None,
    ) -> list[str]:
        """``n`` different values matching ``pattern`` within the length bounds."""
        out: list[str] = []
        seen: set[str] = set()
        for _ in range(n * 20):
            value = self.pattern(pattern, rng, min_length, max_length)
            if value not in seen:
                seen.add(value)
                out.append(value)
            if len(out) == n:
                break
        return out + out[: n - len(out)] if out else [""] * n

    def variants(self, base: str, rng: random.Random, n: int) -> list[str]:
        """``n`` different values built on ``base`` for a unique field whose meaning is
        unknown: qualified by client companies and cities, never numbered."""
        qualifiers = [c.name for c in self.companies] + list(vocab.LISTS["city"])
        rng.shuffle(qualifiers)
        return vocab.distinct("", rng, n, {}, qualifiers, seed=[base])

    def _ctx(
        self, rng: random.Random, about: tuple[Any, ...], fill: bool = True, kind: str = ""
    ) -> dict[str, Any]:
        ctx: dict[str, Any] = {"org": self.org.name.split(",")[0] if self.org else "Acme"}
        if self.org is not None:
            ctx["org_domain"] = self.org.domain
        for thing in about:
            if isinstance(thing, Person):
                ctx.setdefault("person", thing)
                ctx.setdefault("first", thing.first_name)
                ctx.setdefault("company", thing.company)
                ctx.setdefault("city", thing.city)
            elif isinstance(thing, Company):
                ctx["company"] = thing.name
                ctx.setdefault("city", thing.city)
            elif isinstance(thing, Product):
                ctx["product"] = thing.name
            elif isinstance(thing, dt.datetime):
                ctx["now"] = thing
            elif isinstance(thing, str):
                ctx.setdefault("carrier", thing)
        if not fill:
            return ctx
        if kind == "venue" and self.org is not None:  # events are held where we are
            ctx.setdefault("city", self.org.city)
        if "company" not in ctx and self.companies:
            company = rng.choice(self.companies)
            ctx["company"] = company.name
            ctx.setdefault("city", company.city)
        ctx.setdefault("product", rng.choice(self.products).name if self.products else "")
        return ctx

    # -- time -------------------------------------------------------------------------------
    def window(self, kind: str, rng: random.Random, now: dt.datetime) -> tuple[Any, Any]:
        """An ordered (start, end) pair with a plausible span for ``kind`` (see ``SPANS``)."""
        return window(kind, rng, now)

    def placed(
        self,
        span: tuple[Any, Any],
        status: Any,
        rng: random.Random,
        now: dt.datetime,
        kind: str = "",
        ahead: tuple[Any, ...] = (),
        not_now: tuple[Any, ...] = (),
        dates: bool = False,
    ) -> tuple[Any, Any]:
        """``span`` where its record's ``status`` puts it against now (see ``placed``)."""
        return placed(span, status, rng, now, kind, ahead, not_now, dates)

    def placed_at(
        self,
        when: Any,
        status: Any,
        rng: random.Random,
        now: dt.datetime,
        ahead: tuple[Any, ...] = (),
        not_now: tuple[Any, ...] = (),
    ) -> Any:
        """A lone start (a meeting's ``starts_at``) where its record's ``status`` puts it."""
        return placed((when, when), status, rng, now, "", ahead, not_now)[0]

    def moment(self, kind: str, rng: random.Random, now: dt.datetime, after: Any = None) -> Any:
        """A single time of ``kind``: ``past`` (between ``after`` and now), ``recent``,
        ``upcoming``, ``future``, ``scheduled``."""
        return moment(kind, rng, now, after)

    @staticmethod
    def parent(rng: random.Random, earlier: list[str]) -> str | None:
        """A parent among the records seeded before (a tree, never a cycle), or none."""
        return rng.choice(earlier) if earlier and rng.random() < 0.5 else None

    def stamp(
        self, rng: random.Random, now: dt.datetime, after: Any, reached: bool, date: bool = False
    ) -> Any:
        """When a record reached a state (``solved_at``), or None while it has not."""
        if not reached:
            return None
        when = moment("past", rng, now, after)
        return when.date() if date else when

    def epoch(
        self, kind: str, rng: random.Random, now: dt.datetime, after: Any = None, unit: int = 1
    ) -> int:
        """A time of ``kind`` (see ``moment``) as a Unix timestamp (``unit`` 1000: in ms)."""
        return int(moment(kind, rng, now, after).timestamp() * unit)

    def created(
        self, rng: random.Random, now: dt.datetime, before: Any = None, after: Any = None
    ) -> dt.datetime:
        """When a record was created: within the last ``CREATED_DAYS``, before ``before`` (the
        start of what it schedules) and after ``after`` (when what it refers to came to be:
        no application predates its job) when given."""
        stamp = now - dt.timedelta(days=rng.randint(1, CREATED_DAYS), minutes=rng.randint(0, 1439))
        limit = now
        if before is not None:
            limit = _as_datetime(before, now) - dt.timedelta(hours=rng.randint(1, 72))
            stamp = min(stamp, limit)
        if after is not None:
            since = _as_datetime(after, now)
            end = _as_datetime(before, now) if before is not None else now
            if limit <= since < end:  # hours between the two, not days: made halfway
                limit = since + (end - since) / 2
            first = since + dt.timedelta(minutes=rng.randint(5, 2880))
            if stamp < first:
                last = min(now, limit)
                if since < last < first:  # little time between the two: halfway
                    first = since + dt.timedelta(seconds=(last - since).total_seconds() // 2)
                span = max(0, int((last - first).total_seconds()))
                stamp = min(first + dt.timedelta(seconds=rng.randint(0, span)), now)
        return stamp

    @staticmethod
    def onboarded(person: Person, now: dt.datetime) -> dt.datetime:
        """The end of a colleague's first day: one day per person (read from their address,
        like ``born``) 3 to 24 months ago, before anything they handle (records are made
        within ``CREATED_DAYS``, see ``created``)."""
        h = zlib.crc32(f"joined:{person.email}".encode())
        first = now - dt.timedelta(days=CREATED_DAYS + 2 + h % JOINED_DAYS)
        if person.joiner:  # starts in the next weeks
            first = now + dt.timedelta(days=3 + h % 25)
        return first.replace(hour=17, minute=0, second=0, microsecond=0)

    @staticmethod
    def joined(
        rng: random.Random, person: Person, now: dt.datetime, after: Any = None
    ) -> dt.datetime:
        """When a colleague's own record (their account, their HR file) was made: in the
        two weeks up to their first day (``onboarded``), after ``after`` (what it is filed
        under) when given."""
        made = SeedPool.onboarded(person, now) - dt.timedelta(
            days=rng.randint(0, 14), minutes=rng.randint(0, 480)
        )
        if made >= now:  # a joiner's file: made in the days before now
            made = now - dt.timedelta(days=rng.randint(1, 10), minutes=rng.randint(0, 480))
        since = _as_datetime(after, now) if after is not None else None
        if since is not None and made <= since:
            made = min(since + dt.timedelta(minutes=rng.randint(5, 2880)), now)
        return made

    @staticmethod
    def handle_id(person: Person, rng: random.Random, pattern: str, taken: Any) -> str | None:
        """An id of the person's own name where the spec shows ids as handles ('sara_doe_496'
        for Sara Doe: their first and last names, then digits); None where their name does
        not fit ``pattern`` (``told_id``), so that a drawn one is used."""
        words = [_slug(person.first_name), _slug(person.last_name)]
        runs = re.findall(r"\[a-z\]\{\d+,\d+\}|\\d\{(\d+)\}|\\?([_.-])", pattern)
        for _ in range(5):
            names, text = iter(words), ""
            for digits, sep in runs:
                if digits:
                    text += "".join(str(rng.randrange(10)) for _ in range(int(digits)))
                else:
                    text += sep or next(names, "")
            if re.fullmatch(pattern, text) and text not in taken:
                return text
        return None

    @staticmethod
    def employed(person: Person, status: Any, options: tuple[Any, ...]) -> Any:
        """The state of a colleague's own record (their HR file, their account): a joiner's
        is the first state before one starts (``NOT_JOINED``: onboarding, staged) where the
        record has one; anyone else has started (they hold work): a state before starting
        drawn for them becomes the first active one."""
        state = str(getattr(status, "value", status) or "").lower()
        if person.joiner:
            return next((o for o in options if str(o).lower() in NOT_JOINED), status)
        if state not in NOT_JOINED:
            return status
        started = [o for o in options if str(o).lower() not in NOT_JOINED]
        active = [o for o in started if str(o).lower() in ACTIVE_STATES]
        return (active or started or [status])[0]

    @staticmethod
    def used(rng: random.Random, now: dt.datetime, after: Any, reached: bool, lately: bool) -> Any:
        """When an account was last used (``last_login_at``): None before any use; an
        active one lately (an hour to five days ago), after ``after``; else any time since."""
        if not reached:
            return None
        if not lately:
            return moment("past", rng, now, after)
        since = _as_datetime(after, now) if after is not None else now - dt.timedelta(days=5)
        when = now - dt.timedelta(minutes=rng.randint(60, 5 * 24 * 60))
        return max(when, min(since, now)).replace(microsecond=0)

    def established(self, rng: random.Random, now: dt.datetime, after: Any = None) -> Any:
        """When a unit our colleagues' own records are filed under (a department) was set
        up: before any of them joined (``joined``), after ``after`` (its parent unit)."""
        return self.created(
            rng, now - dt.timedelta(days=CREATED_DAYS + JOINED_DAYS + 17), after=after
        )


# States of a colleague's own record before they started; states of one at work.
NOT_JOINED = frozenset(
    {"onboarding", "staged", "invited", "provisioned", "pre_hire", "preboarding", "pending",
     "pending_activation", "new_hire", "not_started"}
)  # fmt: skip
ACTIVE_STATES = frozenset({"active", "enabled", "employed", "working"})
# Every JOINER_EVERY-th colleague of the pool starts soon (``Person.joiner``).
JOINER_EVERY = 10

# Records are made within the last CREATED_DAYS (``SeedPool.created``); a colleague's own
# record up to JOINED_DAYS before that (``SeedPool.joined``).
CREATED_DAYS = 90
JOINED_DAYS = 640


class Cast:
    """The people of one collection's records.

    ``subject()`` gives each record its own person (distinct while the pool lasts: unique
    e-mails stay unique), or the person/company a referenced record belongs to;
    ``colleagues(k, ...)`` gives ``k`` different staff for the record's staff roles, none of
    them anyone already on the record; ``others(k, ...)`` more people for lists (attendees,
    cc), again all different.
    """

    def __init__(self, pool: SeedPool, rng: random.Random, staff: bool = False) -> None:
        self.pool = pool
        self.rng = rng
        self.staff = staff
        self.source = pool.staff if staff else pool.people
        self.used: set[str] = set()

    def subject(self, like: Any = None) -> Person:
        """The next record's person; ``like``: the person (or company name) a referenced
        record belongs to."""
        if isinstance(like, Person):
            self.used.add(like.email)
            return like
        if isinstance(like, str):
            at = [p for p in self.pool.people_at(like) if p.staff == self.staff]
            free = [p for p in at if p.email not in self.used]
            if free:
                person = self.rng.choice(free)
                self.used.add(person.email)
                return person
        source = self.source
        for _ in range(8):  # random draws: cheap while most of the pool is free
            person = source[self.rng.randrange(len(source))]
            if person.email not in self.used:
                self.used.add(person.email)
                return person
        free = [p for p in source if p.email not in self.used]
        if not free:  # more records than people: identities repeat, never mix
            return source[self.rng.randrange(len(source))]
        person = self.rng.choice(free)
        self.used.add(person.email)
        return person

    def ref(self, ids: list[str], owners: dict[str, Any]) -> str:
        """A referenced record to tie a new record to: one whose person (or company) can
        still give this collection a person not used yet."""
        free = []
        for rid in ids:
            owner = owners.get(rid)
            if isinstance(owner, Person):
                fresh = owner.email not in self.used
            elif isinstance(owner, str):
                fresh = any(p.email not in self.used for p in self.pool.people_at(owner))
            else:
                fresh = False
            if fresh:
                free.append(rid)
        return self.rng.choice(free or ids)

    def colleagues(
        self, k: int, *exclude: Any, roles: tuple[str, ...] = (), team: bool = False
    ) -> list[Person]:
        """``k`` different colleagues, none of them in ``exclude`` (people or lists of
        them); ``roles`` prefers colleagues from the departments that fill each role;
        ``team``: the record names a department, that of its first colleague in a role any
        department fills (``follows``): the others in such roles are of it where the pool
        has any (a role of one department, a recruiter, keeps its own)."""
        taken = _emails(exclude)
        out: list[Person] = []
        dept = ""
        for j in range(k):
            role = roles[j] if j < len(roles) else ""
            pools = [self.pool.staff_for(role) if role else [], list(self.pool.working)]
            if team and dept and follows(role):
                pools.insert(0, self.pool.staff_in(dept))
            for pool in pools:
                free = [p for p in pool if p.email not in taken]
                if free:
                    person = self.rng.choice(free)
                    taken.add(person.email)
                    out.append(person)
                    if team and not dept and follows(role):
                        dept = person.department
                    break
        return out

    def others(
        self, k: int, *exclude: Any, staff: bool = False, company: str | None = None
    ) -> list[Person]:
        """``k`` more different people (staff or outside, at ``company`` first when
        given), none of them in ``exclude``."""
        taken = _emails(exclude)
        source = self.pool.working if staff else self.pool.people
        near = [p for p in self.pool.people_at(company) if p.staff == staff] if company else []
        out: list[Person] = []
        for pool in (near, source):
            if len(out) >= k:
                break
            free = [p for p in pool if p.email not in taken]
            for person in self.rng.sample(free, min(k - len(out), len(free))):
                taken.add(person.email)
                out.append(person)
        return out


def follows(role: str) -> bool:
    """Whether a colleague in ``role`` is of the department the record names: roles any
    department fills (an owner, a hiring manager), not one department's function (a
    recruiter, a technician: ``vocab.ROLE_DEPARTMENTS`` names one)."""
    return len(vocab.ROLE_DEPARTMENTS.get(role.lower(), ())) != 1


def _word(value: Any) -> str:
    """A state as its lower-case word (an enum's value, a string, or "")."""
    return str(getattr(value, "value", value) or "").lower()


# A parent's states once its business ended, under which nothing hanging on it is open
# (``SeedPool.under``): a closed job's applications were decided, a cancelled event's
# registrations cancelled. Not one paused or on hold: what hangs on it waits.
PARENT_ENDED = frozenset(
    {"closed", "canceled", "cancelled", "void", "voided", "archived", "filled", "expired",
     "terminated"}
)  # fmt: skip
# A charge's states once it took money (some may have gone back since), those that say
# money went back, and a refund's states done or still under way (``SeedPool.charged``).
MONEY_TAKEN = frozenset(
    {"succeeded", "paid", "captured", "settled", "completed", "partially_refunded", "refunded"}
)
MONEY_SENT_BACK = frozenset({"partially_refunded", "refunded"})
MONEY_BACK_DONE = frozenset({"succeeded", "completed", "processed", "paid", "refunded"})
MONEY_BACK_WAITING = frozenset({"pending", "processing", "requested", "in_progress"})
# Records that give money back from the charge they name (a refund of a payment).
MONEY_BACK_NOUNS = frozenset({"refund", "chargeback", "reversal"})
# States that call a record off: it holds no one (a cancelled stay books no room).
CALLED_OFF = frozenset(
    {"canceled", "cancelled", "void", "voided", "declined", "rejected", "withdrawn"}
)  # fmt: skip


def _emails(groups: tuple[Any, ...]) -> set[str]:
    out: set[str] = set()
    for g in groups:
        for p in g if isinstance(g, list | tuple) else (g,):
            if isinstance(p, Person):
                out.add(p.email)
    return out


# -- time spans ---------------------------------------------------------------------------
# kind -> (where the start falls, in days from now; the span: unit, low, high).
SPANS: dict[str, tuple[tuple[int, int], tuple[str, int, int]]] = {
    "meeting": ((-14, 30), ("minutes", 30, 120)),
    "interview": ((-14, 21), ("minutes", 30, 90)),
    "work": ((-7, 21), ("hours", 1, 4)),
    "event": ((-30, 90), ("hours", 2, 54)),
    "stay": ((-10, 60), ("nights", 1, 10)),
    "rental": ((-10, 45), ("days", 1, 14)),
    "flight": ((-10, 60), ("minutes", 60, 720)),
    "leave": ((-30, 60), ("days", 0, 9)),
    "sprint": ((-42, 14), ("days", 13, 13)),
    "billing": ((-30, 0), ("months", 1, 1)),
    "validity": ((-200, 0), ("months", 1, 12)),
    "pay_period": ((-75, -1), ("days", 13, 13)),
    "fiscal": ((-180, 0), ("months", 1, 1)),
    "terms": ((-60, 0), ("terms", 14, 60)),
    "warranty": ((-900, -10), ("years", 1, 3)),
    "employment": ((-2900, -30), ("days", 60, 1500)),
    "time": ((-14, 30), ("minutes", 30, 240)),
    "dates": ((-30, 60), ("days", 1, 14)),
}


# Which kind of span a (start, end) pair of fields holds, by the words of the pair and of
# the record's noun (``SPANS``): a rental's pickup and dropoff, a stay's check-in and out.
WINDOW_KINDS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("pickup", "dropoff", "rental"), "rental"),
    (("check_in", "checkin", "stay", "reservation"), "stay"),
    (("departure", "arrival", "depart", "flight"), "flight"),
    (("issue", "due", "invoice"), "terms"),
    (("purchase", "warranty"), "warranty"),
    (("pay_run", "payroll", "payslip"), "pay_period"),
    (("fiscal",), "fiscal"),
    (("sprint", "iteration"), "sprint"),
    (("leave", "absence", "time_off", "vacation"), "leave"),
    (("employee", "employment", "contract"), "employment"),
    (("valid", "effective", "expir"), "validity"),
    (("current_period", "billing", "subscription", "period"), "billing"),
    (("scheduled", "work_order", "visit"), "work"),
    (("interview",), "interview"),
)


# Spans of something that happens (a meeting, a stay, a flight): a record's state says whether
# it is over, under way or ahead. Periods (billing, validity, employment) are not placed so.
HAPPENING = frozenset(
    {"meeting", "interview", "work", "event", "stay", "rental", "flight", "leave", "sprint",
     "time", "dates", "employment"}
)  # fmt: skip


# Happenings one attends in person for a while (a meeting, a visit, a flight): one at a
# time; not a stay, a rental or an employment, that go on beside others. And the states of
# a call under way that ``place_of`` does not call live.
PRESENCE = frozenset({"meeting", "interview", "work", "flight"})
# Happenings one holds one at a time though others go on beside them: a guest is in one
# hotel stay at a time, a driver has one rental car (``SeedPool.one_place`` among them).
HELD_ALONE = frozenset({"stay", "rental"})
CALLING = frozenset({"ringing", "dialing", "connecting", "on_hold"})


def window_kind(start: str, end: str, noun: str, fields: Any, date: bool) -> str:
    """The ``SPANS`` kind of the pair ``start``/``end`` on a record called ``noun`` with
    ``fields`` (names); ``date``: the pair holds dates, not times."""
    text = f"{start} {end} {noun}"
    for words_, kind in WINDOW_KINDS:
        if any(w in text for w in words_):
            return kind
    if "venue_name" in fields or "capacity" in fields or "venue" in fields:
        return "event"
    if any(w in noun for w in ("meeting", "event", "booking", "appointment", "call")):
        return "meeting"
    return "dates" if date else "time"


def window(kind: str, rng: random.Random, now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    (lo, hi), (unit, a, b) = SPANS.get(kind, SPANS["time"])
    day = (now + dt.timedelta(days=rng.randint(lo, hi))).replace(
        hour=0, minute=0, second=0, microsecond=0
    )
    if unit in ("minutes", "hours"):
        start = day.replace(hour=rng.randint(8, 16), minute=rng.choice((0, 15, 30, 45)))
        if kind == "flight":
            start = day.replace(hour=rng.randint(6, 21), minute=rng.choice((0, 10, 25, 40, 55)))
        if unit == "minutes":
            step = 15 if kind != "flight" else 5
            length = dt.timedelta(minutes=rng.randrange(a, b + 1, step))
        else:
            length = dt.timedelta(hours=rng.randint(a, b))
        return start, start + length
    if kind == "billing" or kind == "fiscal":
        start = day.replace(day=1) if kind == "fiscal" else day
        return start, _add_months(start, 1) - dt.timedelta(days=1 if kind == "fiscal" else 0)
    if kind == "sprint":
        start = day - dt.timedelta(days=day.weekday())  # sprints start on a Monday
        return start, start + dt.timedelta(days=11)  # ... and end on the second Friday
    if unit == "months":
        return day, _add_months(day, rng.choice((1, 3, 6, 12)) if b > 1 else 1)
    if unit == "years":
        return day, _add_months(day, 12 * rng.randint(a, b))
    if unit == "terms":
        return day, day + dt.timedelta(days=rng.choice((14, 30, 30, 45, 60)))
    if unit == "nights":
        return day.replace(hour=15), day.replace(hour=11) + dt.timedelta(days=rng.randint(a, b))
    start = day.replace(hour=rng.randint(8, 12)) if unit == "days" else day
    return start, start + dt.timedelta(days=rng.randint(a, b))


# Where a span lies against now, by the state its record is in: a meeting that ended lies in
# the past, one that is live holds now, one scheduled lies ahead. Other states say nothing.
PAST_STATES = frozenset(
    {"ended", "completed", "complete", "done", "finished", "checked_out", "returned", "closed",
     "landed", "arrived", "attended", "held", "no_show", "missed", "hung_up", "past",
     "terminated"}
)  # fmt: skip
LIVE_STATES = frozenset(
    {"live", "in_progress", "ongoing", "started", "checked_in", "boarding", "departed",
     "in_flight", "picked_up", "active", "on_leave"}
)  # fmt: skip
AHEAD_STATES = frozenset(
    {
        "scheduled",
        "upcoming",
        "booked",
        "planned",
        "reserved",
        "not_started",
        "future",
        "onboarding",
    }
)  # fmt: skip  (not "confirmed": a confirmed meeting may be over; "onboarding": a new
# joiner's employment starts ahead)


TIMED_STATES = PAST_STATES | LIVE_STATES | AHEAD_STATES
# A record's lifecycle, stage by stage: stamps of a later stage come after earlier ones.
LIFECYCLE = (
    frozenset({"requested", "applied", "ordered", "purchased", "registered", "subscribed",
               "drafted", "joined"}),
    frozenset({"submitted", "sent", "published", "posted", "filed", "reported", "issued"}),
    frozenset({"viewed", "opened", "read", "acknowledged", "responded", "replied",
               "answered", "assigned", "escalated", "started"}),
    frozenset({"approved", "rejected", "declined", "accepted", "decided", "signed",
               "confirmed", "verified", "paid", "captured", "processed", "hired"}),
    frozenset({"shipped", "dispatched"}),
    frozenset({"delivered", "received", "returned", "refunded", "completed", "resolved",
               "solved", "closed", "merged", "converted", "ended", "finished", "cancelled",
               "canceled", "archived"}),
)  # fmt: skip


# Labels that grade a score, lowest score first: one scale per kind of grading. A label
# set is ordered by the first scale that ranks every one of its labels apart.
GRADE_SCALES: tuple[tuple[frozenset[str], ...], ...] = (
    (frozenset({"critical", "failing", "bad", "red", "churning"}),
     frozenset({"at_risk", "poor", "risky", "weak", "orange", "unhealthy"}),
     frozenset({"neutral", "fair", "average", "ok", "okay", "moderate", "yellow", "amber",
                "watch", "stable"}),
     frozenset({"healthy", "good", "strong", "green"}),
     frozenset({"excellent", "great", "champion", "thriving", "outstanding"})),
    (frozenset({"very_low", "minimal", "none"}),
     frozenset({"low", "minor"}),
     frozenset({"medium", "moderate", "normal"}),
     frozenset({"high", "major", "elevated"}),
     frozenset({"very_high", "critical", "severe", "extreme"})),
)  # fmt: skip


def grade_order(labels: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """``labels`` from the lowest score's to the highest's, or None when no scale ranks
    them all apart (a set of states, not grades)."""
    for scale in GRADE_SCALES:
        ranks: dict[Any, int] = {}
        for label in labels:
            word = str(label).lower().replace("-", "_").replace(" ", "_")
            rank = next((k for k, words in enumerate(scale) if word in words), None)
            if rank is None:
                break
            ranks[label] = rank
        else:
            if len(labels) >= 3 and len(set(ranks.values())) == len(labels):
                return tuple(sorted(labels, key=ranks.__getitem__))
    return None


_GRADE_SUFFIXES = ("_band", "_level", "_grade", "_label", "_tier", "_rating", "_category")


def graded_score(label: str, numbers: Any) -> str | None:
    """The number field (among ``numbers``) that the label field ``label`` grades:
    ``health`` -> ``health_score``, ``risk_level`` -> ``risk_score``, ``grade`` -> ``score``."""
    base = label
    for suffix in _GRADE_SUFFIXES:
        base = base.removesuffix(suffix)
    names = [f"{base}_{tail}" for tail in ("score", "index", "points")]
    if base != label or label in ("grade", "band", "level", "tier", "rating"):
        names.append("score")
    return next((n for n in names if n in numbers and n != label), None)


def score_range(low: Any, high: Any, description: str) -> tuple[float, float]:
    """A score's range: its declared bounds, else the two numbers its description gives
    ("from 0 (critical) to 100 (healthy)"), else 0-100."""
    told = [float(t) for t in re.findall(r"-?\d+(?:\.\d+)?", description)[:2]]
    ends = told if len(told) == 2 else [0.0, 100.0]
    return (low if low is not None else min(ends)), (high if high is not None else max(ends))


def in_band(label: Any, ordered: tuple[Any, ...], low: float, high: float, whole: bool) -> Any:
    """A score in the middle of ``label``'s band (the inverse of ``SeedPool.band``)."""
    width = (high - low) / len(ordered)
    value = low + (ordered.index(label) + 0.5) * width
    return int(value) if whole else round(value, 2)


# What a happening's start and end are called, and how long it lasts when it has no end.
START_FIELDS = ("starts_at", "start_time", "start_at", "start", "scheduled_at", "begins_at",
                "started_at", "scheduled_for")  # fmt: skip
_END_FIELDS = ("ends_at", "end_time", "end_at", "end", "ended_at")
_LENGTH_FIELDS = (("duration_minutes", 60), ("duration_seconds", 1), ("duration", 60),
                  ("length_minutes", 60))  # fmt: skip
_CALLED_OFF = frozenset({"canceled", "cancelled", "scheduled", "upcoming", "missed", "no_show",
                         "declined", "void"})  # fmt: skip


def _start_of(happening: Any) -> Any:
    return next((v for f in START_FIELDS if (v := getattr(happening, f, None)) is not None), None)


def _length_of(happening: Any) -> float:
    """How long ``happening`` lasts, in seconds (an hour where nothing says)."""
    start = _start_of(happening)
    end = next((v for f in _END_FIELDS if (v := getattr(happening, f, None)) is not None), None)
    if isinstance(start, dt.datetime) and isinstance(end, dt.datetime) and end > start:
        return (end - start).total_seconds()
    for name, scale in _LENGTH_FIELDS:
        value = getattr(happening, name, None)
        if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
            return float(value * scale)
    return 3600.0


def _began(happening: Any, now: dt.datetime) -> bool:
    start = _start_of(happening)
    status = getattr(happening, "status", None)
    state = str(getattr(status, "value", status) or "").lower()
    return start is not None and _as_datetime(start, now) <= now and state not in _CALLED_OFF


def lifecycle_rank(name: str) -> int | None:
    """Where a stamp (``approved_at``) lies in a record's lifecycle (``LIFECYCLE``), or
    None for times that are no step of it (a due date, a last login)."""
    tokens = set(name.split("_"))
    ranks = [k for k, stage in enumerate(LIFECYCLE) if tokens & stage]
    return max(ranks) if ranks else None


# States before a record got going, or once it was called off: nothing of it has happened.
_NOT_STARTED = frozenset(
    {"pending", "draft", "new", "open", "requested", "unpaid", "authorized", "canceled",
     "cancelled", "void", "voided", "declined", "rejected", "failed"}
)  # fmt: skip
# Billing intervals by a word of their name -> months each covers.
_INTERVAL_MONTHS = (
    ("week", 12 / 52), ("quarter", 3.0), ("semi", 6.0), ("half", 6.0), ("year", 12.0),
    ("annual", 12.0), ("month", 1.0), ("day", 12 / 365),
)  # fmt: skip
_EPOCH = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)


# Numbers a record's state fixes (``SeedPool.likelihood``): a deal's win probability.
LIKELIHOOD_FIELDS = re.compile(r"(^|_)(probability|likelihood|win_chance)$")


def _closed_as(state: str) -> int | None:
    """The win probability a closed stage fixes: 100 once won, 0 once lost."""
    words = set(state.split("_"))
    if words & {"won", "win", "converted"}:
        return 100
    if words & {"lost", "lose", "dead", "disqualified"}:
        return 0
    return None


# Where a bill's terms (issued, due) lie by its state: an overdue invoice's due date has
# passed, a sent one's has not; a draft is dated today or before (a record's own issue date
# is never in the future), due ahead.
TERMS_PLACES = {
    "overdue": "past", "past_due": "past", "sent": "live", "open": "live", "unpaid": "live",
    "issued": "live", "partially_paid": "live", "draft": "live",
}  # fmt: skip


def place_of(state: str, kind: str = "") -> str:
    """``past``, ``live``, ``ahead`` or ``""``: where a record in ``state`` lies against now."""
    if kind == "terms":
        return TERMS_PLACES.get(state, "")
    if state in PAST_STATES:
        return "past"
    if state in AHEAD_STATES:
        return "ahead"
    return "live" if state in LIVE_STATES else ""


def placed(
    span: tuple[Any, Any],
    status: Any,
    rng: random.Random,
    now: dt.datetime,
    kind: str = "",
    ahead: tuple[Any, ...] = (),
    not_now: tuple[Any, ...] = (),
    dates: bool = False,
) -> Any:
    """``span`` moved, whole days at a time (a live one to the quarter hour), so that it lies
    where its record's ``status`` says: over, under way, or ahead; as it was otherwise.
    ``kind``: the span's ``SPANS`` kind, where it reads states its own way (``terms``).
    ``ahead``, ``not_now``: states that say nothing of time alone but do beside the others of
    their record (``waiting_states``): a stay "confirmed" where "checked_in" says the guest
    is there and "completed" that they left lies ahead; a flight "confirmed" where only
    "checked_in" says anything does not hold now (it may lie behind: no state says flown).
    ``dates``: the span is kept as dates, so one ahead begins after today (a stay checking in
    at three today is under way by its dates)."""
    start, end = (_as_datetime(t, now) for t in span)
    state = str(status.value if hasattr(status, "value") else status or "").lower()
    place = place_of(state, kind)
    holds = start.date() <= now.date() <= end.date() if dates else start <= now <= end
    waits = {str(s).lower() for s in (*ahead, *(not_now if holds else ()))}
    if not place and state in waits:
        place = "ahead"
    if place == "past" and kind == "terms" and end.date() >= now.date():  # due before today
        shift = -dt.timedelta(days=(end.date() - now.date()).days + 1 + rng.randint(0, 20))
    elif place == "past" and end > now:
        shift = -dt.timedelta(days=(end - now).days + 1 + rng.randint(0, 20))
    elif place == "ahead" and (start.date() <= now.date() if dates else start <= now):
        # to a day after today's
        shift = dt.timedelta(days=(now.date() - start.date()).days + 1 + rng.randint(0, 20))
    elif place == "live" and not start <= now <= end:
        length = end - start
        # a lone start (a call under way) began a little while ago
        begin = now - (length * rng.uniform(0.2, 0.8) or dt.timedelta(minutes=rng.randint(5, 50)))
        rounded = [  # on the quarter hour, else the minute, where the span still holds now
            begin.replace(minute=begin.minute - begin.minute % 15, second=0, microsecond=0),
            begin.replace(second=0, microsecond=0),
        ]
        begin = next((b for b in rounded if not length or b + length >= now), begin)
        shift = begin - start
    else:
        return span
    return start + shift, end + shift


def waiting_states(options: tuple[Any, ...], ended: frozenset[str]) -> tuple[tuple[Any, ...], bool]:
    """The states of a happening's record (``options``) that wait for it: ones no word of
    which places it in time, not ``ended`` (cancelled, released), in a record where another
    says someone is there now (checked in, picked up, live). With them, whether the record
    has a state for once it is over (checked out, completed): then the waiting ones lie
    ahead, else they are only not under way (``placed``'s ``ahead`` or ``not_now``)."""
    words = [str(o).lower() for o in options]
    if not any(place_of(w) == "live" or w in CALLING for w in words):
        return (), False
    waiting = tuple(o for o, w in zip(options, words, strict=True) if not place_of(w))
    waiting = tuple(o for o in waiting if str(o).lower() not in ended | CALLING)
    return waiting, any(place_of(w) == "past" for w in words)


# Of seeded happenings one attends (a meeting, a stay, a rental, a flight, a call), the share
# under way at the moment the world starts: a few, as at any hour of a working day, where a
# plain draw of open states puts one in three (a stay is either "confirmed" or "checked_in").
UNDER_WAY_SHARE = 0.08


def moment(kind: str, rng: random.Random, now: dt.datetime, after: Any = None) -> dt.datetime:
    if kind == "past":
        start = _as_datetime(after, now) if after is not None else now - dt.timedelta(days=60)
        if start >= now:
            return now
        seconds = int((now - start).total_seconds())
        return start + dt.timedelta(seconds=rng.randint(0, seconds))
    if kind == "recent":
        return now - dt.timedelta(days=rng.randint(0, 14), minutes=rng.randint(0, 1439))
    if kind == "upcoming":  # due dates: mostly ahead, some overdue, after ``after``
        base = now + dt.timedelta(days=rng.randint(-5, 30))
        if after is not None:  # (due a day or more after the record was made)
            base = max(base, _as_datetime(after, now) + dt.timedelta(days=rng.randint(1, 10)))
        return base.replace(hour=17, minute=0, second=0, microsecond=0)
    if kind == "future":
        base = now + dt.timedelta(days=rng.randint(7, 180))
        if after is not None:
            base = max(base, _as_datetime(after, now) + dt.timedelta(days=rng.randint(7, 30)))
        return base.replace(hour=9, minute=0, second=0, microsecond=0)
    day = now + dt.timedelta(days=rng.randint(-14, 30))  # scheduled
    if after is not None:  # not before what it is for was there (an interview's application)
        day = max(day, _as_datetime(after, now) + dt.timedelta(days=rng.randint(1, 7)))
    return day.replace(hour=rng.randint(8, 17), minute=rng.choice((0, 30)), second=0, microsecond=0)


def _as_datetime(value: Any, now: dt.datetime) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=now.tzinfo)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=now.tzinfo)
    return now


def _add_months(day: dt.datetime, months: int) -> dt.datetime:
    month = day.month - 1 + months
    year = day.year + month // 12
    month = month % 12 + 1
    return day.replace(year=year, month=month, day=min(day.day, 28))


# -- the pool -----------------------------------------------------------------------------
_INDUSTRIES = (
    "software",
    "logistics",
    "healthcare",
    "retail",
    "finance",
    "manufacturing",
    "education",
    "media",
    "energy",
    "hospitality",
)
_PRODUCTS = (
    ("Laptop Stand", "accessory"),
    ("Noise-Cancelling Headset", "hardware"),
    ("4K Monitor", "hardware"),
    ("Ergonomic Chair", "hardware"),
    ("Mesh Router", "hardware"),
    ("Conference Webcam", "hardware"),
    ("Docking Station", "accessory"),
    ("Mechanical Keyboard", "accessory"),
    ("Analytics Suite", "software license"),
    ("Cloud Backup", "subscription"),
    ("Premium Support", "service"),
    ("Onboarding Workshop", "training"),
    ("Security Audit", "service"),
    ("CRM Seat", "subscription"),
    ("Label Printer", "hardware"),
    ("Barcode Scanner", "hardware"),
    ("Standing Desk", "hardware"),
    ("Data Migration", "service"),
)
_TIERS = ("Lite", "Plus", "Pro", "Max", "Enterprise")
_VARIANTS = ("Black", "White", "Silver", "Graphite", "Blue", "Green", "Red", "Sand")
_COUNTRIES = ("US", "GB", "DE", "FR", "CA", "NL", "AU")
# Price ranges by product category, so a support contract does not cost what a cable does.
_PRICES = {
    "accessory": (19, 249),
    "hardware": (79, 1899),
    "software license": (290, 2400),
    "subscription": (9, 120),
    "service": (450, 2500),
    "training": (350, 1500),
}


def _slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "", ascii_text.lower())


# Kinds whose values may mention a company or a product (the rest need no context).
_MENTIONS = frozenset([*vocab.TEMPLATES, "file_name", "handle", "company_name", "product_name"])
# URL kinds that name a file, and its extension.
_FILE_URLS = (
    ("receipt", "pdf"), ("invoice", "pdf"), ("pdf", "pdf"), ("resume", "pdf"), ("label", "pdf"),
    ("document", "pdf"), ("image", "png"), ("photo", "jpg"), ("logo", "png"), ("audio", "mp3"),
    ("recording", "mp4"), ("transcript", "txt"), ("attachment", "pdf"), ("download", "pdf"),
    ("media", "jpg"),
)  # fmt: skip
_GB = "ABDEFGHJLNPQRSTUWXYZ"  # letters of British postcodes' inward part
_CA = "ABCEGHJKLMNPRSTVWXYZ"  # letters Canada Post uses
_NL = "ABCEGHJKLMNPRSTVWXZ"


def _phone(rng: random.Random, country: str) -> str:
    code = vocab.DIALING.get(country, "1")
    digits = 10 if code == "1" else 9 if code in ("33", "31", "61") else 10
    first = str(rng.randint(2, 9))
    return f"+{code}{first}{rng.randint(0, 10 ** (digits - 1) - 1):0{digits - 1}d}"


def _place(rng: random.Random, country: str) -> tuple[str, str, str, str]:
    """(street, city, region, postal code) in ``country``."""
    city, region = rng.choice(vocab.CITIES[country])
    street = rng.choice(vocab.STREETS[country] + vocab.CITY_STREETS.get(city, ()))
    number = rng.randint(1, 480)
    if country in ("DE", "NL"):
        line = f"{street} {number}"
    elif country == "FR":
        line = f"{number} {street}"
    else:
        line = f"{number} {street}"
    postal = _postcode(rng, country, city)
    return line, city, region, postal


def _postcode(rng: random.Random, country: str, city: str) -> str:
    """A postcode of ``city``: in its real range, so the address names one place."""
    area = vocab.POSTAL_AREAS[city]
    if isinstance(area, tuple):
        outward = rng.choice(area)
        if country == "GB":
            return f"{outward} {rng.randint(1, 9)}{rng.choice(_GB)}{rng.choice(_GB)}"
        if country == "CA":
            return f"{outward} {rng.randint(1, 9)}{rng.choice(_CA)}{rng.randint(0, 9)}"
        return outward
    number = rng.choice(area)
    if country == "NL":
        return f"{number} {rng.choice(_NL)}{rng.choice(_NL)}"
    return f"{number:04d}" if country == "AU" else f"{number:05d}"


def _one_line(street: str, city: str, region: str, postal: str, country: str) -> str:
    if country in ("DE", "FR", "NL"):
        return f"{street}, {postal} {city}, {country}"
    if country == "GB":
        return f"{street}, {city} {postal}, {country}"
    return f"{street}, {city}, {region} {postal}, {country}"


def _company(fake: Faker, rng: random.Random, name: str, country: str) -> Company:
    street, city, region, postal = _place(rng, country)
    domain = f"{_slug(name.split(',')[0].split(' and ')[0].split(' ')[0])[:20]}"
    return Company(
        name=name,
        domain=domain,  # completed by the caller (it must be unique)
        industry=rng.choice(_INDUSTRIES),
        country=country,
        address=_one_line(street, city, region, postal, country),
        phone=_phone(rng, country),
        street=street,
        city=city,
        region=region,
        postal_code=postal,
    )


@lru_cache(maxsize=8)
def seed_pool(
    seed: int = 0, people: int = 120, companies: int = 30, products: int = 40, staff: int = 60
) -> SeedPool:
    """The deterministic pool for a seed (cached: every service of a World shares it)."""
    fake = Faker("en_US")
    fake.seed_instance(seed)
    rng = random.Random(f"pool:{seed}")
    comps: list[Company] = []
    names: set[str] = set()
    domains: set[str] = set()
    while len(comps) < companies + 1:  # the first is our own organisation
        name = fake.company()
        if name in names:
            continue
        country = "US" if not comps else _COUNTRIES[len(comps) % len(_COUNTRIES)]
        company = _company(fake, rng, name, country)
        stem = company.domain or "company"
        tld = {"GB": "co.uk", "DE": "de", "FR": "fr", "NL": "nl", "AU": "com.au"}.get(
            country, "com"
        )
        domain = f"{stem}.{tld}"
        k = 2
        while domain in domains:  # two companies sharing a surname: a longer domain
            domain = f"{stem}{_slug(name.split(' ')[-1])[:8] if k == 2 else k}.{tld}"
            k += 1
        names.add(name)
        domains.add(domain)
        comps.append(replace(company, domain=domain))
    org, clients = comps[0], comps[1:]
    taken_names: set[str] = set()
    taken_users: set[str] = set()

    def person(company: Company, department: str, title: str, is_staff: bool) -> Person:
        while True:
            first, last = fake.first_name(), fake.last_name()
            if f"{first} {last}" not in taken_names:
                break
        taken_names.add(f"{first} {last}")
        f, lst = _slug(first), _slug(last)
        username = next(
            u for u in (f"{f[0]}{lst}", f"{f}{lst[0]}", f"{f}.{lst}", f"{f}{lst}")
            if u not in taken_users
        )  # fmt: skip
        taken_users.add(username)
        home_country = company.country
        street, city, region, postal = _place(rng, home_country)
        if not is_staff:  # a contact is reached at the office of their company
            street, city, region, postal = (
                company.street,
                company.city,
                company.region,
                company.postal_code,
            )
        return Person(
            first_name=first,
            last_name=last,
            email=f"{f}.{lst}@{company.domain}",
            phone=_phone(rng, home_country),
            company=company.name,
            title=title,
            city=city,
            country=home_country,
            department=department,
            username=username,
            street=street,
            region=region,
            postal_code=postal,
            staff=is_staff,
        )

    departments = list(vocab.DEPARTMENTS)
    colleagues = []
    for i in range(staff):
        dept = departments[i % len(departments)]
        titles = vocab.DEPARTMENTS[dept]
        title = titles[(i // len(departments)) % len(titles)]
        colleague = person(org, dept, title, True)
        if i % JOINER_EVERY == JOINER_EVERY - 1:  # starts soon: holds no work yet
            colleague = replace(colleague, joiner=True)
        colleagues.append(colleague)
    persons = []
    for i in range(people):
        company = clients[i % len(clients)]
        persons.append(person(company, "", rng.choice(vocab.CLIENT_TITLES), False))
    prods = []
    for i in range(products):
        base, category = _PRODUCTS[i % len(_PRODUCTS)]
        low, high = _PRICES[category]
        tier = _TIERS[(i // len(_PRODUCTS)) % len(_TIERS)]
        code = "".join(w[:3] for w in re.findall(r"[A-Za-z0-9]+", base))[:6].upper()
        extra = f"-{i // (len(_PRODUCTS) * len(_TIERS)) + 1}" if i >= 90 else ""
        prods.append(
            Product(
                sku=f"{code}-{tier[:3].upper()}{extra}",  # LAPSTA-LIT: model and tier
                name=f"{base} {tier}",
                category=category,
                price=round(rng.uniform(low, high), 0) - 0.01,
                currency="USD",
            )
        )
    return SeedPool(
        seed=seed,
        people=tuple(persons),
        companies=tuple(clients),
        products=tuple(prods),
        staff=tuple(colleagues),
        org=org,
    )
