"""The generated ``seed()``: records drawn from the shared pool, coherent record by record.

Every record takes its people, companies and products from the one pool every service seeds
from (so the customer in the CRM is the sender in the mailbox):

- the record's subject (the customer of an order, the guest of a reservation, the employee of
  an HR record) is one person, and every name, e-mail, phone, company and address on the
  record that belongs to that role is that same person's;
- staff roles (owner, assignee, approver, host, recruiter...) are filled by our own
  colleagues, different roles by different colleagues, never the subject;
- lists of people (attendees, cc, members) are further people, none already on the record;
- a record that references another one shares its person (an invoice's customer e-mail is
  its customer's) or its company (a contact of a company works there);
- times come in ordered pairs with plausible spans for what they measure (a meeting lasts
  30-120 minutes, a stay 1-10 nights), and ``created_at <= updated_at <= now``;
- a colleague's own record (their account, their HR file) was made when they joined, before
  anything they handle, and what it is filed under (their department) before that;
- numbers and texts come from the field's meaning (``library.seed.vocab``): a job title
  reads like one, a quantity is 1-20, ``min <= max``; no ``<Label> <n>`` placeholders.

References point only at records seeded before them (collections are seeded parents
first), so no seeded record refers to an id the service has not issued yet.
"""

from __future__ import annotations

import json
import math
import random
import re
from dataclasses import dataclass, field
from typing import Any

from library.compiler.actions import STATUS_FIELDS, TARGETS, TERMINAL, action_word
from library.compiler.ids import is_handle, new_id_source
from library.compiler.model import (
    FieldPlan,
    Kind,
    ModelPlan,
    RecordPlan,
    Role,
    ServicePlan,
    TypeSpec,
)
from library.compiler.naming import words
from library.compiler.patterns import regex_sample
from library.compiler.source import INDENT, WIDTH, Call, Expr, docstring, render
from library.compiler.values import (
    example_of,
    fallback_text,
    of_format,
    pattern_args,
    patterned_text,
)
from library.ingest.infer_output import TOLD_BY
from library.ingest.naming import singular
from library.ingest.semantics import by_name
from library.ingest.stated_values import kept_for
from library.seed import seed_pool, vocab
from library.seed.pool import (
    ACTIVE_STATES,
    CALLING,
    HAPPENING,
    HELD_ALONE,
    LIKELIHOOD_FIELDS,
    LIVE_STATES,
    MONEY_BACK_NOUNS,
    MONEY_TAKEN,
    NOT_JOINED,
    PARENT_ENDED,
    PRESENCE,
    START_FIELDS,
    TERMS_PLACES,
    TIMED_STATES,
    follows,
    grade_order,
    graded_score,
    lifecycle_rank,
    place_of,
    score_range,
    waiting_states,
    window_kind,
)
from library.seed.vocab import role_of

# Roles filled by a colleague (our organisation's staff), never by the record's subject.
STAFF_ROLES = frozenset(
    {"owner", "assignee", "approver", "manager", "recruiter", "host", "organizer", "organiser",
     "technician", "agent", "created_by", "updated_by", "uploaded_by", "admin", "sales_rep",
     "rep", "interviewer", "hiring_manager", "account_manager", "csm", "reviewer", "author",
     "assigned_to", "approved_by", "requested_by", "submitted_by", "coordinator", "handler",
     "lead", "head", "employee", "user", "assigned_user", "notify", "reply_to", "booker",
     "collaborator", "mention", "member", "watcher", "follower", "sender_user",
     "dispatcher", "supervisor", "creator", "editor", "moderator", "uploader", "presenter",
     "reporter"}
)  # fmt: skip
# Roles naming the outside party the record is about: the record's subject.
EXTERNAL_ROLES = frozenset(
    {"customer", "contact", "client", "guest", "candidate", "driver", "requester", "patient",
     "buyer", "billing", "shipping", "traveler", "traveller", "passenger", "applicant",
     "subscriber", "vendor", "supplier", "tenant", "signer", "respondent", "receipt",
     "attendee", "participant", "registrant", "personal", "lead_contact", "purchaser", "payer",
     "invitee", "visitor", "caller", "sender", "recipient"}
)  # fmt: skip
# Roles that say whose a record is (not who works on it): a record under a parent names
# the parent's person in them.
_WHOSE = (EXTERNAL_ROLES - {"sender", "recipient", "caller", "attendee", "participant",
                             "invitee", "visitor", "respondent", "signer", "vendor",
                             "supplier", "personal", "receipt"}) | {"employee"}  # fmt: skip
# Fields that name who did or owns something, whatever type the spec gives them: a user of
# ours (``createdBy``: "dsmith", not a sentence).
_WHO_DID = frozenset(
    {"owner", "creator", "author", "created_by", "updated_by", "modified_by", "uploaded_by",
     "submitted_by", "approved_by", "assignee", "assigned_to", "requested_by"}
)  # fmt: skip
_NAME_PARTS = vocab.NAME_PARTS
_MESSAGE_LIKE = ("message", "draft", "email", "mail", "call", "voicemail", "sms", "text")
_STAFF_WORDS = re.compile(r"\b(employee|staff|colleague|team member|agent|switchboard user)\b")
_ONE_OF = re.compile(r"\bone of:?\s*((?:[\w-]+,\s*)+(?:or\s+)?[\w-]+)", re.IGNORECASE)
_ID_LIKE = re.compile(r"^([A-Za-z][A-Za-z0-9]*[_-])[A-Za-z0-9]{4,}$")
# Reserved local names of a generated ``_seed_<collection>`` method.
_LOCALS = frozenset(
    {"pool", "rng", "size", "now", "owners", "cast", "person", "company", "staff", "product",
     "created", "updated", "record_id", "i", "p", "self", "dt", "random"}
)  # fmt: skip

# Time fields by what they record.
_PAST = frozenset(
    {"sent", "submitted", "published", "resolved", "solved", "closed", "merged", "completed",
     "accepted", "recorded", "applied", "subscribed", "occurred", "signed", "paid", "delivered",
     "shipped", "cancelled", "canceled", "approved", "rejected", "returned", "received",
     "joined", "hired", "processed", "captured", "refunded", "archived", "converted", "opened",
     "read", "viewed", "last", "seen", "login", "uploaded", "modified", "spent", "work",
     "worked", "entry", "posted", "ordered", "purchased", "registered", "started", "ended",
     "answered", "responded", "verified", "activated", "deactivated", "checked", "logged",
     "reported", "filed", "transferred", "acknowledged", "assigned", "escalated", "replied"}
)  # fmt: skip
_FUTURE = frozenset(
    {"due", "deadline", "expires", "expiry", "expiration", "expire", "renewal", "renews",
     "redeem", "target", "close", "estimated", "expected", "next", "until", "remind",
     "follow", "valid", "trial", "eta", "scheduled_end"}
)  # fmt: skip
# Start tokens and the end tokens that close them, for ordered pairs.
_PAIR_TOKENS = (
    ("start", ("end", "finish", "stop")), ("starts", ("ends",)), ("begin", ("end",)),
    ("begins", ("ends",)), ("from", ("to", "until", "through")),
    ("pickup", ("dropoff", "return", "drop_off")), ("check_in", ("check_out",)),
    ("checkin", ("checkout",)), ("departure", ("arrival",)), ("depart", ("arrive",)),
    ("departs", ("arrives",)), ("issue", ("due",)), ("issued", ("due", "expires")),
    ("opened", ("closed",)), ("effective", ("expiry", "expiration", "expires", "end")),
    ("purchase", ("warranty_end", "warranty_expiry", "warranty_until")),
    ("min", ("max",)), ("minimum", ("maximum",)), ("low", ("high",)), ("lower", ("upper",)),
)  # fmt: skip
# Numbers by field meaning: (name pattern, low, high, integer, step).
_NUMBERS: tuple[tuple[str, float, float, bool, float], ...] = (
    (r"(^|_)(rating|stars|score_5)$", 1, 5, True, 1),
    (r"story_points|(^|_)estimate$", 1, 13, True, 1),
    (r"discount_percent|percent_off", 5, 30, False, 5),  # before any percentage: 5-30
    (r"(^|_)(probability|percent|percentage|pct|health_score|completion)$", 0, 100, True, 5),
    (r"tax_rate|vat_rate", 5, 25, False, 0.5),
    (r"(open|click|conversion|bounce|churn)_rate", 0.02, 0.6, False, 0.01),
    (r"(^|_)(quantity|qty|units)(_|$)", 1, 20, True, 1),
    (r"quantity_change", 1, 25, True, 1),
    (r"employee_count|headcount", 5, 5000, True, 5),
    (r"subscriber_count|recipients|audience", 50, 20000, True, 10),
    (r"(profile|member|user)_count", 10, 5000, True, 1),
    (r"response_count|unsubscribes|unread_count|thumbsup|reply_count", 0, 60, True, 1),
    (r"orders_count|order_count|purchase_count", 1, 40, True, 1),
    (r"parcel_count|package_count|rooms|passengers|guests|adults|nights", 1, 4, True, 1),
    (r"(^|_)seats(_|$)", 5, 200, True, 5),
    (r"node_count|replicas", 1, 5, True, 1),
    (r"(^|_)(ttl|ttl_seconds)$", 300, 86400, True, 300),  # a DNS record's lifetime
    (r"(^|_)(lat|latitude)$", -90, 90, False, 0.000001),  # a place on Earth
    (r"(^|_)(lng|lon|long|longitude)$", -180, 180, False, 0.000001),
    (r"(^|_)(port|local_port|pod_port|container_port)$", 1024, 65535, True, 1),
    (r"(^|_)(odometer|mileage)(_km|_miles)?$", 5000, 150000, True, 1),
    (r"capacity", 4, 20, True, 2),
    (r"points_balance", 0, 8000, True, 10),
    (r"points_cost", 100, 5000, True, 50),
    (r"(^|_)points$", 10, 500, True, 10),
    (r"reorder_point|min_stock|safety_stock", 5, 50, True, 5),
    (r"storage_gb|disk_gb", 20, 500, True, 10),
    (r"size_gb", 1, 200, True, 1),
    (r"size_bytes|file_size|bytes|^size$", 20000, 25000000, True, 1),
    (r"(^|_)(width|height)(_px)?$", 64, 2048, True, 1),
    (r"weight_grams|weight_g$", 100, 15000, True, 50),
    (r"weight_kg", 0.2, 30, False, 0.1),
    (r"duration_minutes|minutes", 15, 120, True, 15),
    (r"duration_seconds|seconds|talk_time", 30, 1800, True, 1),
    (r"budget_hours", 20, 400, True, 10),
    (r"(^|_)hours$", 0.5, 8, False, 0.25),
    (r"entitled_days|allowance_days|vacation_days", 20, 30, True, 1),
    (r"trial_days", 7, 30, True, 7),
    (r"(terms|payment_terms)_days|net_days", 15, 60, True, 15),
    (r"(^|_)days$", 1, 30, True, 1),
    (r"(^|_)(position|sort_order|order|rank|index|row_number|routing_order)$", 1, 10, True, 1),
    (r"(^|_)version$", 1, 8, True, 1),
    (r"(^|_)floor$", 0, 12, True, 1),
    (r"helpful_votes|votes|likes", 0, 150, True, 1),
    (r"word_count", 150, 4000, True, 10),
    (r"exp_month|(^|_)month$", 1, 12, True, 1),
    (r"(^|_)age$", 21, 68, True, 1),
    (r"(^|_)number$", 12, 980, True, 1),
    (r"employee_count", 5, 200, True, 1),
)  # fmt: skip
# Money by field meaning: (name pattern, low, high).
_MONEY: tuple[tuple[str, float, float], ...] = (
    (r"annual_revenue|revenue_annual", 1_000_000, 500_000_000),
    (r"(^|_)arr$|annual_recurring", 5_000, 500_000),
    (r"(^|_)mrr$|monthly_recurring", 50, 25_000),
    (r"salary|(^|_)compensation", 45_000, 180_000),
    (r"hourly_rate|(^|_)rate$", 60, 250),
    (r"ticket_price|entry_fee|registration_fee", 0, 1500),
    (r"postage|shipping|delivery_fee|freight", 5, 80),
    (r"(^|_)balance$", 0, 250_000),
    (r"contract_value|deal_value|(^|_)amount$", 200, 60_000),
    (r"annual_cost|license_cost", 500, 60_000),
    (r"purchase_price|(^|_)cost$|total_cost", 150, 3_500),
    (r"lifetime_value|(^|_)ltv$|total_spent", 50, 20_000),
    (r"(^|_)revenue$", 10, 2_000),
    (r"total_gross|gross_total", 50_000, 900_000),
    (r"gross_pay|gross$", 2_500, 12_000),
    (r"debit|credit", 100, 20_000),
    (r"(^|_)value$", 5, 100),
    (r"amount_off|discount", 5, 100),
    (r"(^|_)tax", 10, 2_000),
    (r"deduction", 50, 800),
    (r"(^|_)(price|unit_price|list_price|fee)$", 5, 2_500),
    (r"subtotal|total|(^|_)amount", 20, 8_000),
)  # fmt: skip
# "Part of a whole": part field -> whole field; the part never exceeds the whole.
_PART_OF = {
    "seats_used": "seats", "amount_refunded": "amount", "amount_paid": "total",
    "quantity_received": "quantity", "total_net": "total_gross", "net_pay": "gross_pay",
    "tax": "gross_pay", "deductions": "gross_pay", "tax_total": "subtotal",
    "used": "total", "spent": "budget",
}  # fmt: skip
# Stamps that only make sense once the record reached a state: stamp word -> states.
_STAMP_STATES = {
    "solved": ("solved", "closed"), "resolved": ("resolved", "closed", "done"),
    "merged": ("merged",), "published": ("published",), "sent": ("sent", "delivered", "opened"),
    "completed": ("completed", "signed", "done"), "accepted": ("accepted",),
    "closed": ("closed", "closed_won", "closed_lost", "won", "lost"),
    "submitted": ("submitted", "approved", "rejected", "reimbursed", "paid"),
    "signed": ("signed", "completed"), "paid": ("paid",), "shipped": ("shipped", "delivered"),
    "delivered": ("delivered",), "cancelled": ("cancelled", "canceled"),
    "canceled": ("canceled", "cancelled"), "approved": ("approved", "reimbursed", "paid"),
    "archived": ("archived",), "refunded": ("refunded",), "converted": ("converted",),
    "hired": ("hired",), "ended": ("ended", "completed"), "started": ("started", "in_progress",
    "ended", "completed", "answered"), "answered": ("answered", "completed", "ended"),
}  # fmt: skip


# Stamps of use (a last login), and the states of an account before any use: a staged or
# invited account has never been logged into.
_USE_STAMPS = frozenset({"login", "signin", "seen"})
_BEFORE_USE = frozenset(
    {"staged", "provisioned", "invited", "pending", "pending_activation", "not_activated",
     "unverified"}
)  # fmt: skip


class SeedWriter:
    """Writes ``seed`` and one ``_seed_<collection>`` method per collection."""

    def __init__(self, plan: ServicePlan) -> None:
        self.plan = plan
        self.models = {m.name: m for m in plan.models}
        self.order = seed_order(plan.records)
        self.helpers: set[str] = set()  # module-level helpers the seed code calls
        # What a collection's records belong to, for records that reference them.
        self.carriers: dict[str, str] = {}
        # What our colleagues' own records are filed under (their department): set up
        # before any of them joined (``SeedPool.established``).
        self.established = {
            str(target)
            for record in plan.records.values()
            if _colleagues_own(record)
            for f in record.fields.values()
            if (target := resolve_ref(_ref_of(f.type), plan.records)) not in (None, record.resource)
        }

    def methods(self) -> list[str]:
        state = f"{self.plan.cls}State"
        head = f"{INDENT}def seed(self, pool: SeedPool, rng: random.Random, size: int) -> {state}:"
        if len(head) > WIDTH:
            head = (
                f"{INDENT}def seed(\n{INDENT * 2}self, pool: SeedPool, rng: random.Random, "
                f"size: int\n{INDENT}) -> {state}:"
            )
        lines = [
            head,
            *docstring(
                "Records drawn from the shared pool; references point at records seeded "
                "before them.",
                2,
            ),
            f"{INDENT * 2}self.state = {state}()",
        ]
        bodies: list[list[str]] = []
        for record in self.order:
            writer = _RecordWriter(self, record)
            bodies.append(writer.method())
            if writer.carrier:
                self.carriers[record.resource] = writer.carrier
        if self.order:
            lines.append(f"{INDENT * 2}now = self.now()")
            lines.append(f"{INDENT * 2}owners: dict[str, Any] = {{}}  # record id -> its person")
        for record in self.order:
            lines.append(f"{INDENT * 2}self._seed_{record.resource}(pool, rng, size, now, owners)")
        lines.append(f"{INDENT * 2}return self.state")
        for body in bodies:
            lines += ["", *body]
        return lines


def put_call(
    resource: str,
    cls: str,
    args: list[tuple[str | None, Expr]],
    indent: int,
    head: str = "self.put",
) -> list[str]:
    """``self.put("contacts", Contact(...))``, laid out as ruff format would."""
    return render(Call(head, [(None, json.dumps(resource)), (None, Call(cls, args))]), indent)


def seed_order(records: dict[str, RecordPlan]) -> list[RecordPlan]:
    """Collections ordered so that a record's references are seeded before it (required
    ones first; optional ones too where no cycle forbids it)."""
    deps: dict[str, set[str]] = {}
    soft: dict[str, set[str]] = {}
    for name, record in records.items():
        deps[name], soft[name] = set(), set()
        for f in record.fields.values():
            target = resolve_ref(_ref_of(f.type), records)
            if target is None or target == name:
                continue
            (deps if f.required else soft)[name].add(target)
    order: list[str] = []
    pending = list(records)
    while pending:
        done = set(order)
        ready = [n for n in pending if deps[n] | soft[n] <= done]
        ready = ready or [n for n in pending if deps[n] <= done] or [pending[0]]
        for name in ready[:1] if len(ready) < len(pending) else ready:
            order.append(name)
            pending.remove(name)
    return [records[n] for n in order]


def resolve_ref(ref: str | None, collections: Any) -> str | None:
    """The collection a reference names: itself, or one its name ends with
    (``parent_folders`` -> ``folders``, ``to_warehouses`` -> ``warehouses``)."""
    if not ref:
        return None
    if ref in collections:
        return ref
    matches = [c for c in collections if ref.endswith(f"_{c}")]
    return max(matches, key=len) if matches else None


def _ref_of(spec: TypeSpec) -> str | None:
    if spec.semantic == "id" and spec.kind in (Kind.STR, Kind.INT):
        return spec.ref
    if spec.kind is Kind.LIST and spec.item is not None:
        return _ref_of(spec.item)
    return None


def _matches(role: str, roles: frozenset[str]) -> bool:
    if not role:
        return False
    if role in roles or singular(role) in roles:
        return True
    parts = role.split("_")
    return parts[-1] in roles or singular(parts[-1]) in roles or parts[0] in roles


@dataclass(slots=True)
class _Group:
    """A list of people on a record (attendees, cc, members)."""

    var: str
    staff: bool
    with_subject: bool
    low: int
    high: int
    after: list[str] = field(default_factory=list)  # groups seeded before it: excluded


class _RecordWriter:
    """The ``_seed_<collection>`` method of one record: analyse its fields, then write."""

    def __init__(self, writer: SeedWriter, record: RecordPlan) -> None:
        self.w = writer
        self.record = record
        self.resource = record.resource
        self.noun = singular(record.resource)
        order = writer.order
        self.seeded = {r.resource for r in order[: order.index(record)]}
        self.collections = set(writer.plan.records)
        self.models = writer.models
        # A user who holds orders or reservations is a customer's account, not a colleague.
        self.staff_subject = vocab.is_staff_resource(self.resource) and not any(
            set(words(name).split()) & _CUSTOMER_HOLDINGS for name in record.fields
        )
        self.colleague = _colleagues_own(record)  # made when they joined
        # A company's own record: its phone and address are the company's, not a person's.
        self.company_subject = self.noun.split("_")[-1] in _COMPANY_NOUNS
        service = writer.plan.service
        self.sms = service == "sms" or self.noun == "sms"
        self.message_like = (
            self.sms
            or service in ("voice", "mail", "chat")
            or any(w in self.noun.split("_") for w in _MESSAGE_LIKE)
        )
        self.refs: dict[str, str] = {}  # collection -> ids variable
        self.pre: list[str | tuple[str, Expr]] = []  # statements (or assignments) before the loop
        self.body: list[tuple[str, Expr]] = []  # (target, value) in the loop, before the record
        self.uses: set[str] = set()  # person, company, product, created, updated
        self.staff_roles: list[str] = []
        self.groups: dict[str, _Group] = {}
        self.comprehensions: list[tuple[str, Call, str]] = []  # (variable, item, group)
        self.windows: dict[tuple[str, str], str] = {}  # (start, end) -> window variable
        self.window_kinds: list[tuple[str, str]] = []  # (variable, kind)
        self.date_windows: set[str] = set()  # starts of windows kept as dates
        self.hoisted: dict[str, str] = {}  # field name -> local variable
        self.hoist_lines: list[tuple[str, Expr]] = []
        self.distinct: dict[str, str] = {}  # field name -> list variable
        self.forced: dict[str, Expr] = {}  # field name -> expression planned ahead
        # model name -> {nested field -> expression}: a line item's quantity and price, that
        # the record's subtotal is computed from
        self.item_forced: dict[str, dict[str, Expr]] = {}
        self.priced: dict[str, str] = {}  # subtotal, tax_total -> their sum of line items
        self.names: set[str] = set(_LOCALS)
        self.subject_ref: tuple[str, str] | None = None  # (ids variable, chosen id variable)
        self.tree: str | None = None  # ids of this collection seeded so far (parents)
        self.shows_person = False
        self.shows_company = False
        self.status_var: str | None = None
        self.status_field = ""
        self.status_enum: tuple[Any, ...] = ()
        self.status_expr: Expr = ""
        self.status_options = ""  # ``get_args(<its type>)``
        # the status's options where it says a happening one attends is under way now
        # (``pool.one_place``), else ""
        self.one_place = ""
        # the status field of a happening one attends (drawn by ``pool.happening_state``:
        # a few under way now), else ""
        self.attended_status = ""
        # (local holding a parent record, "state" or "start", its attribute): what of its
        # parent this record's own state follows: its ended state (``pool.as_parent_allows``)
        # or its start (``pool.as_parent_began``)
        self.parent_states: list[tuple[str, str, str]] = []
        # ... for a record whose state is drawn in its call: (its attribute, *as above)
        self.wrapped_states: list[tuple[str, str, str, str]] = []
        # (parent local, its state attribute, its ended states): parents whose end puts this
        # record's lone start behind (``pool.behind_once_ended``)
        self.parent_ended: list[tuple[str, str, tuple[Any, ...]]] = []
        # states that follow the main one: (variable, values), and their drawing lines
        self.sub_states: list[tuple[str, tuple[Any, ...]]] = []
        self.follow_lines: list[tuple[str, Expr]] = []
        self.stamp_lines: list[tuple[str, Expr]] = []  # lifecycle stamps, in order
        self.captured: dict[str, str] = {}  # a capture's field -> its local (``_captures``)
        self.moments: set[str] = set()  # of those, the moments it was made at
        self.parents: dict[str, str] = {}  # local holding a referenced record -> collection
        self.after_times: list[str] = []  # creation times of referenced records
        self.before: str | None = None  # a window start created_at must precede
        self.start_var: str | None = None  # a lone scheduled start (``_plan_start``)
        self.pay_by: tuple[str, str] | None = None  # (title, contract) locals (``_plan_pay``)
        self.until: str | None = None  # when the parent was sealed (``_follow_parent``)
        # (parent local, its collection, its state attribute, the reference's attribute): the
        # charge a refund gives money back from (``_parent_pick``, ``_given_back``)
        self.gives_back: tuple[str, str, str, str] | None = None
        # (parent collection, reference, parent total, line amount, parent update stamp,
        # line creation stamp): the parent's total is its lines' sum (``_lines_of``)
        self.lines: tuple[str, str, str, str, str, str] | None = None
        self._required_now = False  # whether the value being written is required
        self.scope: list[str] = []  # nested models being written (``questions``)
        # the record types of the DNS record sets being written: (variable, names end in ".")
        self.record_types: list[tuple[str, bool]] = []
        # the local holding the record's own DNS name (a zone's), that names nested in it
        # fall under (``_plan_domain``), else None
        self.domain_var: str | None = None
        # how a referenced record's field is read, by collection: target -> attr -> expression
        # (``_parent_picks``), and the days of terms the record's bill follows (``_plan_terms``)
        self.parent_reads: dict[str, Any] = {}
        self.terms_days: str | None = None
        self.where = f"{writer.plan.service}.{record.resource}"
        self._plan_times()

    @property
    def carrier(self) -> str | None:
        """What a record of this collection belongs to, for records that reference it."""
        if self.shows_person:
            return "person"
        return "company" if self.shows_company else None

    def _local(self, base: str) -> str:
        name = re.sub(r"\W+", "_", base).strip("_").lower() or "value"
        if name[0].isdigit():
            name = f"v_{name}"
        while name in self.names or name in _KEYWORDS:
            name += "_"
        self.names.add(name)
        return name

    # -- the method -------------------------------------------------------------------------
    def method(self) -> list[str]:
        fields = [f for f in self.record.fields.values() if not self._change_set(f)]
        for f in fields:  # staff roles in field order, so titles can ask for them early
            person = self._person_attr(f.name, f.type) is not None or f.type.semantic == "email"
            if f.type.kind is Kind.STR and person:
                role = role_of(_snake(f.name))
                description = str(f.type.schema.get("description") or "")
                if self._side(role, description) == "staff":
                    self._staff(role or "colleague")
        self._plan_status(fields)
        self._plan_start(fields)
        self._plan_flags(fields)
        self._plan_pay(fields)
        self._plan_kind_texts(fields)
        self._plan_numbers(fields)
        self._plan_bands(fields)
        self._plan_letter(fields)
        self._plan_derived(fields)
        self._plan_places(fields)
        self._plan_domain(fields)
        self._plan_only_for(fields)
        self._plan_own_terms(fields)
        self._plan_refs(fields)
        self._plan_inherited(fields)
        self._plan_members(fields)
        self._plan_ancestors(fields)
        self._plan_carrier(fields)
        self._plan_reference(fields)
        values: list[tuple[str | None, Expr]] = []
        for f in fields:
            if f.name in self.forced:
                values.append((f.attr, self._bound(f, self.forced[f.name])))
                continue
            unique = f.unique or self._names_record(f)
            expr = self.value(f.name, f.type, f.required, unique, 0, "")
            if expr is not None:
                values.append((f.attr, self._bound(f, expr)))
        values = self._chain_stamps(self._parent_picks(values))
        self._plan_terms()
        return self._write(values)

    def _change_set(self, f: FieldPlan) -> bool:
        """Whether optional field ``f`` is what a write is told rather than what a record
        holds, so that no seeded record has it: an object of the record's own fields (an
        update's ``updates: {title, priority}``), or a request body's copy of a field
        renamed beside a parameter of the same name (``body_rrsets`` beside ``rrsets``)."""
        if f.required:
            return False
        own = self.record.fields
        bare = f.name.removeprefix("body_")
        twin = own.get(bare) if bare != f.name else None
        if twin is not None and twin.type.kind is f.type.kind:
            return True
        model = self.models.get(f.type.model or "") if f.type.kind is Kind.MODEL else None
        if model is None or not model.fields:
            return False
        return all(g.name in own and g.name != f.name for g in model.fields)

    def _runs_image(self, f: FieldPlan) -> bool:
        """Whether text field ``f`` is the container image a record runs: ``image`` of a
        workload (a deployment, a pod), ``containerImage``, or an ``image`` its description
        calls a container's or Docker's."""
        if f.type.kind is not Kind.STR or f.type.semantic is not None:
            return False
        if vocab.meaning(f.name, self.where) == "container_image":
            return True
        said = str(f.type.schema.get("description") or "")
        return "image" in vocab.tokens(f.name) and bool(_CONTAINER_WORDS.search(said))

    def _names_record(self, f: FieldPlan) -> bool:
        """Whether ``f`` is what a record of this collection is called by (its ``name``,
        ``title``, ``displayName``; a server's host name): no two records of one collection
        share it (three deployments called "admin-portal" are one too many). An optional
        name of no known meaning stays unset rather than made up."""
        if f.type.kind is not Kind.STR or f.type.semantic is not None:
            return False
        kind = vocab.meaning(f.name, self.where)
        low = _snake(f.name)
        # a server's host name, a domain's ``domain``, a tag's ``tag``: what it is called
        itself = kind == "hostname" or low == self.noun
        if (low not in _RECORD_NAMES and not itself) or str(kind).startswith("body:"):
            return False  # (a note's ``note`` is its text: what it says, not its name)

        return kind is not None or f.required

    def _parent_picks(self, values: list[tuple[str | None, Expr]]) -> list[tuple[str | None, Expr]]:
        """A record comes into being after the records it refers to (no application
        predates its job): a referenced record is picked whole, and its creation time is
        what this one's follows (see ``_after_parents``)."""
        by_attr = {f.attr: f for f in self.record.fields.values()}
        out: list[tuple[str | None, Expr]] = []
        for attr, expr in values:
            f = by_attr.get(attr or "")
            target = resolve_ref(f.type.ref, self.collections) if f else None
            parent = self.w.plan.records.get(target or "")
            born = parent.fields.get("created_at") if parent else None
            if f is None or f.type.kind is not Kind.STR or born is None:
                out.append((attr, expr))
                continue
            if born.type.kind not in (Kind.DATE, Kind.DATETIME) or _became(f.name):
                out.append((attr, expr))
                continue
            ids = self.refs.get(str(target))
            if target == self.resource:
                # a sub-category, a reply to a comment: after the parent, when it has one
                if self.tree and expr == f"pool.parent(rng, {self.tree})":
                    var = self._local(_snake(f.name))
                    self.body.append((var, expr))
                    self._born_after(str(target), var, born.attr)
                    expr = var
                out.append((attr, expr))
                continue
            if self.subject_ref is not None and expr == self.subject_ref[1] and ids:
                # the record the person was drawn from (an order's customer)
                self._born_after(str(target), str(expr), born.attr)
                out.append((attr, expr))
                continue
            if isinstance(expr, Call) and expr.head == "pool.ref_for" and ids:
                # another record of the same person (a deal's company is its contact's)
                var = self._local(_snake(f.name))
                self.body.append((var, expr))
                self._born_after(str(target), var, born.attr)
                out.append((attr, var))
                continue
            local = re.fullmatch(r"(\w+)\.id", expr) if isinstance(expr, str) else None
            if ids and expr == f"rng.choice({ids})":
                var = self._local(singular(str(target)))
                captures = self._captures(parent)
                if captures:  # a recording is of a meeting that took place
                    expr = f"pool.begun(rng, {ids}, self.state.{target}, now)"
                else:
                    expr = self._parent_pick(str(target), ids, var)
                    if self.gives_back is not None and self.gives_back[0] == var:
                        self.gives_back = (*self.gives_back[:3], f.attr)
                self.body.append((var, f"self.state.{target}[{expr}]"))
                self.parents[var] = str(target)
                self.parent_reads.setdefault(str(target), lambda a, v=var: f"{v}.{a}")
                expr = f"{var}.id"
                for local, capture in captures.items():
                    self.body.append((local, capture.format(parent=var)))
                    if local in self.moments:  # created once it was recorded
                        self.after_times.append(local)
            elif local is None or self.parents.get(local.group(1)) != target:
                out.append((attr, expr))
                continue
            self.after_times.append(f"{expr.removesuffix('.id')}.{born.attr}")
            out.append((attr, expr))
        for own, parent, kind, attr in self.wrapped_states:  # (a status not drawn ahead)
            field_ = next(f for f in self.record.fields.values() if f.attr == own)
            out = [
                (a, _as_parent(e, field_.type.enum, parent, kind, attr)) if a == own else (a, e)
                for a, e in out
            ]
        if self.gives_back is not None and self.gives_back[3]:
            out = self._given_back(out)
        if self.captured:  # the capture's moment and length, from the happening picked
            names = {f.attr: f.name for f in self.record.fields.values()}
            out = [(a, self.captured.get(names.get(a or "", ""), e)) for a, e in out]
        return out

    def _outsiders(self) -> bool:
        """Whether a record names someone outside our organisation, who takes part in what
        it hangs on (an application's candidate, a registration's attendee)."""
        for f in self.record.fields.values():
            target = resolve_ref(f.type.ref, self.collections) if f.type.ref else None
            if target and vocab.is_person_resource(target) and not vocab.is_staff_resource(target):
                return True
        return "person" in self.uses and not self.staff_subject

    def _follows_state(self, parent: str, kind: str, attr: str) -> None:
        """This record's own state follows its parent's (the record in local ``parent``):
        its state (``kind`` "state", in ``attr``: nothing hangs open under one closed) or its
        start ("start": no one checked in to an event that lies ahead)."""
        status = next((f for f in self.record.fields.values() if _state_field_is(f)), None)
        if status is None or _as_parent("", status.type.enum, parent, kind, attr) is None:
            return
        if self.status_var is not None:
            self.parent_states.append((parent, kind, attr))
        else:
            self.wrapped_states.append((status.attr, parent, kind, attr))

    def _born_after(self, target: str, ref: str, attr: str) -> None:
        """This record's creation follows that of ``target``'s record ``ref`` (a local
        holding its id, or None): read into a local of its own, a line short enough."""
        self.parent_reads.setdefault(
            target, lambda a: f"pool.field_of(self.state.{target}, {ref}, {json.dumps(a)})"
        )
        var = self._local(f"{singular(target)}_born")
        args: list[tuple[str | None, Expr]] = [
            (None, f"self.state.{target}"), (None, ref), (None, json.dumps(attr)),
        ]  # fmt: skip
        self.body.append((var, Call("pool.field_of", args)))
        self.after_times.append(var)

    def _captures(self, parent: RecordPlan | None) -> dict[str, str]:
        """What a capture of a happening (a meeting's recording, a call's transcript) takes
        from it: a moment (``recorded_at``) in its first minutes and a length no longer
        than it lasts. Empty unless this record is such a capture and ``parent`` has a
        start. Keys are local names bound to the field values; ``{parent}`` is the parent."""
        if parent is None or self.noun.rsplit("_", 1)[-1] not in _CAPTURES:
            return {}
        if not any(
            n in START_FIELDS and f.type.kind is Kind.DATETIME for n, f in parent.fields.items()
        ):
            return {}
        out: dict[str, str] = {}
        for f in self.record.fields.values():
            tokens = set(_snake(f.name).split("_"))
            if f.type.kind is Kind.DATETIME and tokens & _CAPTURE_MOMENTS:
                local = self._local(f.name)
                self.moments.add(local)
                self.captured[f.name] = local
                out[local] = "pool.during(rng, {parent}, now)"
            elif f.type.kind is Kind.INT and tokens & {"duration", "length"}:
                unit = "minutes" if "minutes" in tokens else "seconds"
                local = self._local(f.name)
                self.captured[f.name] = local
                out[local] = f'pool.lasting(rng, {{parent}}, "{unit}")'
        return out

    def _after_parents(self) -> str:
        """What ``created`` must follow: the latest creation of the records referred to."""
        times = list(dict.fromkeys(self.after_times))
        if len(times) > 1:
            return f"pool.latest({', '.join(times)})"
        return times[0] if times else ""

    def _chain_stamps(self, values: list[tuple[str | None, Expr]]) -> list[tuple[str | None, Expr]]:
        """Lifecycle stamps on one record are ordered: created <= applied/submitted/sent <=
        approved/decided <= shipped <= delivered/closed <= updated. Each past stamp is drawn
        after the latest one before it in the lifecycle (one not reached is None, skipped)."""
        by_attr = {f.attr: f for f in self.record.fields.values()}
        ranked: list[tuple[int, int, str | None, Expr]] = []
        for k, (attr, expr) in enumerate(values):
            f = by_attr.get(attr or "")
            if f is None or f.type.kind not in (Kind.DATE, Kind.DATETIME):
                continue
            rank = lifecycle_rank(_snake(f.name))
            flat = expr.flat() if isinstance(expr, Call) else expr
            drawn_after = ("pool.stamp(rng, now, created", '"past", rng, now, created)')
            past = any(text in flat for text in drawn_after)  # a past stamp, after creation
            if rank is not None and past:
                ranked.append((rank, k, attr, expr))
        if not ranked:
            return values
        out = list(values)
        earlier: list[str] = []
        for _, k, attr, expr in sorted(ranked, key=lambda r: (r[0], r[1])):
            after = f"pool.latest(created, {', '.join(earlier)})" if earlier else "created"
            var = self._local(f"{_snake(by_attr[str(attr)].name)}")
            self.stamp_lines.append((var, _after(expr, after)))
            earlier.append(var)
            out[k] = (attr, var)
        return out

    def _bound(self, f: FieldPlan, expr: Expr) -> Expr:
        """An optional field that exists only in some states (a lost deal's reason, a
        shipment's tracking number): set only on records in those states, of the main
        status or of one that follows it (an order's fulfillment)."""
        low = _snake(f.name)
        if self.start_var and not f.required and set(low.split("_")) & _VERDICTS:
            return Call("pool.only", [(None, f"{self.start_var} < now"), (None, expr)])
        if f.required or self.status_var is None:
            return expr
        told = _told_states(f.type.schema)  # a value an action is told (a cancel's reason)
        for word, states in [*_STATE_BOUND.items(), *(("", told),) * bool(told)]:
            if word not in low:
                continue
            for var, values in [*self.sub_states, (self.status_var, self.status_enum)]:
                reached = [s for s in values if s in states]
                if not reached:
                    continue
                listed = ", ".join(json.dumps(s) for s in reached)
                listed = f"({listed},)" if len(reached) == 1 else f"({listed})"
                return Call("pool.only", [(None, f"{var} in {listed}"), (None, expr)])
            return expr
        return expr

    def _plan_domain(self, fields: list[FieldPlan]) -> None:
        """A record named by a DNS name (a zone, a sending domain) holds only names at or
        under it: ``blog.acme.com``'s record sets are ``blog.acme.com`` and
        ``www.blog.acme.com``, never ``careers.acme.com``. Its name is drawn first, into
        a local the nested names are drawn under (``_text``)."""
        if not any(f.type.kind in (Kind.MODEL, Kind.LIST) for f in fields):
            return
        for f in fields:
            if f.name in self.forced or not self._names_record(f):
                continue
            if vocab.meaning(f.name, self.where) != "domain":
                continue
            expr = self.value(f.name, f.type, f.required, True, 0, "")
            if expr is None:
                return
            self.domain_var = self._local(f"{_snake(f.name)}_domain")
            self.body.append((self.domain_var, expr))
            self.forced[f.name] = self.domain_var
            return

    def _plan_only_for(self, fields: list[FieldPlan]) -> None:
        """A list its description keeps for one kind of record ("List of IP addresses
        configured as a master for this zone ("Slave" type zones only)") holds items on
        records of that kind, one at least, and none on the others: the kind (an enum value
        of the record) is drawn first, the list follows it."""
        enums = [f for f in fields if f.type.kind is Kind.ENUM and f.name not in self.forced]
        for f in fields:
            if f.type.kind is not Kind.LIST or f.type.item is None or f.name in self.forced:
                continue
            said = str(f.type.schema.get("description") or f.description or "")
            told = kept_for(said)
            if told is None:
                continue
            value = told.lower()
            kind = next((e for e in enums if value in {str(v).lower() for v in e.type.enum}), None)
            if kind is None:
                continue
            exact = next(v for v in kind.type.enum if str(v).lower() == value)
            if _IP_SAID.search(said):
                one: Expr | None = 'pool.dns_content("A", rng)'
            else:
                self._required_now = True
                one = self._value(singular(f.name), f.type.item, True, False, 1, "")
            if one is None:
                continue
            var = self.hoisted.get(kind.name) or self._local(_snake(kind.name))
            if kind.name not in self.hoisted:
                self.body.append((var, self._enum(_snake(kind.name), kind.type)))
                self.forced[kind.name] = var
            items = Call("", [(None, one)], brackets="[]")
            self.forced[f.name] = f"{items.flat()} if {var} == {_lit(exact)} else []"

    def _terms_window(self) -> str | None:
        """The local of the record's bill terms window (issued, due), else None."""
        return next((v for v, k in self.window_kinds if k == "terms"), None)

    def _plan_own_terms(self, fields: list[FieldPlan]) -> None:
        """A bill that states its own terms in days (``payment_terms_days``) is due that many
        days after it was issued: the field holds the length of its terms window."""
        span = self._terms_window()
        if span is None:
            return
        for f in fields:
            if f.name not in self.forced and _terms_days(f):
                self.forced[f.name] = f"({span}[1] - {span}[0]).days"

    def _plan_terms(self) -> None:
        """A bill whose terms its record's customer (or account) states is due that many
        days after it was issued (``pool.on_terms``): due = issued + terms."""
        if self._terms_window() is None:
            return
        for target, read in self.parent_reads.items():
            parent = self.w.plan.records.get(target)
            stated = parent.fields.values() if parent is not None else ()
            days = next((f for f in stated if _terms_days(f)), None)
            if days is not None:
                self.terms_days = read(days.attr)
                return

    def _plan_refs(self, fields: list[FieldPlan]) -> None:
        """Two references to one collection (a transfer's source and destination) name two
        different records."""
        by_target: dict[str, list[FieldPlan]] = {}
        for f in fields:
            if f.type.semantic != "id" or f.type.kind is not Kind.STR or f.name in self.forced:
                continue
            target = resolve_ref(f.type.ref, self.collections)
            if target in self.seeded:
                by_target.setdefault(str(target), []).append(f)
        for target, group in by_target.items():
            group = [f for f in group if set(_snake(f.name).split("_")) & _DIRECTIONS]
            if len(group) < 2:
                continue
            ids = self.refs.get(target) or self._local(f"{target}_ids")
            self.refs[target] = ids
            var = self._local(f"{singular(target)}_picks")
            self.body.append((var, f"pool.picks(rng, {ids}, {len(group)})"))
            for k, f in enumerate(group):
                self.forced[f.name] = f"{var}[{k}]"

    def _plan_inherited(self, fields: list[FieldPlan]) -> None:
        """A record under a parent is for the parent's person: an expense on a report is
        the report's employee's, a line of an order its customer's. A person field the
        parent holds too, in a role that says whose the parent is, is copied from it."""
        for f in fields:
            if f.name in self.forced or f.type.semantic != "id" or f.type.kind is not Kind.STR:
                continue
            ref = resolve_ref(f.type.ref, self.collections)
            target = self.w.plan.records.get(ref or "")
            if target is None or ref not in self.seeded or ref == self.resource:
                continue
            if self.w.carriers.get(str(ref)):  # a person's own record: drawn as the subject's
                continue
            lines = self._lines_of(target, fields)
            shared = [
                (g, kept)
                for g in fields
                if g.name not in self.forced
                and g.type.kind is Kind.STR
                and (kept := target.fields.get(g.name)) is not None
                and (kept.required or (lines is not None and not g.required))
                and kept.type.semantic == g.type.semantic
                and self._person_attr(g.name, g.type) is not None
                # a line of a parent (an expense on a report) is its person's in every role
                # they share: the report's employee, submitter, owner
                and (role_of(_snake(g.name)) in _WHOSE or lines is not None)
            ]
            if not shared and lines is None:
                continue
            parent = self._parent_record(str(ref))
            self.forced[f.name] = f"{parent}.id"
            for g, kept in shared:
                self.forced[g.name] = f"{parent}.{kept.attr}"
            self._follow_parent(parent, target, fields)
            if lines is not None:
                self.lines = (str(ref), f.attr, *lines)
            return

    def _lines_of(
        self, target: RecordPlan, fields: list[FieldPlan]
    ) -> tuple[str, str, str, str] | None:
        """Whether this record is a line of ``target`` (an expense on a report): the parent
        has a total its lines add up to (by its name, or its description saying it is a
        sum), the record an amount in the parent's currency. Then (the parent's total, the
        line's amount, the parent's update stamp, the line's creation stamp; "" where
        absent), and the parent's total is set to the sum once its lines are seeded."""
        numeric = (Kind.INT, Kind.FLOAT)
        held = {_snake(g.name): g for g in target.fields.values()}
        total = next(
            (
                g
                for name, g in held.items()
                if g.type.kind in numeric
                and (name in _TOTALS or _SUMMED.search(str(g.type.schema.get("description") or "")))
            ),
            None,
        )
        mine = {_snake(g.name): g for g in fields}
        amount = next((mine[n] for n in _LINE_AMOUNTS if n in mine), None)
        if total is None or amount is None or amount.type.kind not in numeric:
            return None
        if total.type.kind is Kind.INT and amount.type.kind is not Kind.INT:
            return None
        whole = _snake(total.name)
        if "subtotal" in held or any(held.get(p) and w == whole for p, w in _PART_OF.items()):
            return None  # a total made of other parts (a subtotal and tax, an amount paid)
        theirs, ours = held.get("currency"), mine.get("currency")
        if ours is not None and (theirs is None or not _same_money(theirs.type, ours.type)):
            return None  # lines in a currency of their own do not add up
        stamps = [
            next(
                (g.attr for n, g in source.items() if n == name and g.type.kind is Kind.DATETIME),
                "",
            )
            for source, name in ((held, "updated_at"), (mine, "created_at"))
        ]
        return total.attr, amount.attr, stamps[0], stamps[1]

    def _plan_members(self, fields: list[FieldPlan]) -> None:
        """A post in a channel (a message in a team's thread) is written by one of the
        channel's members: no one posts where they cannot read the answer."""
        for f in fields:
            if f.type.semantic != "id" or f.type.kind is not Kind.STR:
                continue
            ref = resolve_ref(f.type.ref, self.collections)
            target = self.w.plan.records.get(ref or "")
            if target is None or ref not in self.seeded or ref == self.resource:
                continue
            members = next(
                (
                    g
                    for g in target.fields.values()
                    if g.type.kind is Kind.LIST
                    and g.type.item is not None
                    and g.type.item.semantic == "email"
                    and set(_snake(g.name).split("_")) & _MEMBER_WORDS
                ),
                None,
            )
            authors = [
                g
                for g in fields
                if g.name not in self.forced
                and g.type.semantic == "email"
                and role_of(_snake(g.name)) in _AUTHORS
            ]
            if members is None or not authors:
                continue
            forced = self.forced.get(f.name)
            parent = str(forced)[: -len(".id")] if str(forced).endswith(".id") else None
            if parent not in self.parents:
                parent = self._parent_record(str(ref))
                self.forced[f.name] = f"{parent}.id"
            for g in authors:
                drawn = self.value(g.name, g.type, g.required, g.unique, 0, "")
                if drawn is not None:
                    self.forced[g.name] = _call(
                        "pool.member", f"{parent}.{members.attr}", drawn, "rng"
                    )
            return

    def _single_refs(self, record: RecordPlan) -> dict[str, FieldPlan]:
        """The collections ``record`` names by one id field each, and those fields (a pair
        naming one collection twice, a transfer's source and destination, is left out)."""
        out: dict[str, FieldPlan] = {}
        twice: set[str] = set()
        for f in record.fields.values():
            if f.type.semantic != "id" or f.type.kind not in (Kind.STR, Kind.INT):
                continue
            target = resolve_ref(f.type.ref, self.collections)
            if target is None or target == record.resource:
                continue
            if target in out:
                twice.add(target)
            out[target] = f
        return {t: f for t, f in out.items() if t not in twice}

    def _plan_ancestors(self, fields: list[FieldPlan]) -> None:
        """A record under a parent that itself hangs under an ancestor the record names
        too (a zone's crypto key names its zone and its server) names the parent's own
        ancestor: the key's server is its zone's server. The parent is picked first, the
        ancestor read from it; parents that name the most of this record's other
        references come first (the deepest). People's own records are left to the subject
        (``pool.ref_for`` already picks another record of the same person)."""
        mine = self._single_refs(self.record)
        names = {f.name for f in fields}
        candidates: list[tuple[str, FieldPlan, dict[str, FieldPlan]]] = []
        for target, f in mine.items():
            parent = self.w.plan.records.get(target)
            if parent is None or target not in self.seeded or self.w.carriers.get(target):
                continue
            if f.name == self.record.parent_key or f.name not in names:
                continue
            held = {
                a: h
                for a, h in self._single_refs(parent).items()
                if a in mine and a != target and a in self.seeded and not self.w.carriers.get(a)
            }
            if held:
                candidates.append((target, f, held))
        candidates.sort(key=lambda c: -len(c[2]))
        done: set[str] = set()
        for target, f, held in candidates:
            forced = self.forced.get(f.name)
            local = str(forced).removesuffix(".id") if forced is not None else None
            if forced is not None and self.parents.get(str(local)) != target:
                continue  # drawn otherwise (two picks of one collection): not ours to tie
            if target in done:
                continue
            if local is None:
                local = self._parent_record(target)
                self.forced[f.name] = f"{local}.id"
            done.add(target)
            for ancestor, h in held.items():
                g = mine[ancestor]
                if g.name in self.forced or ancestor in done or g.name == self.record.parent_key:
                    continue
                expr = f"{local}.{h.attr}"
                if g.required and not h.required:  # the parent may name none: any one then
                    ids = self.refs.get(ancestor) or self._local(f"{ancestor}_ids")
                    self.refs[ancestor] = ids
                    expr = f"{expr} or rng.choice({ids})"
                self.forced[g.name] = expr
                done.add(ancestor)

    def _follow_parent(self, parent: str, target: RecordPlan, fields: list[FieldPlan]) -> None:
        """A record on a parent is in the parent's currency, and if the parent was sealed
        (a report submitted, an invoice sent) it happened before then."""
        by_name = {_snake(g.name): g for g in target.fields.values()}
        money = by_name.get("currency")
        mine = next((g for g in fields if _snake(g.name) == "currency"), None)
        if money is not None and mine is not None and mine.name not in self.forced:
            options = f"get_args({mine.type.annotation})" if mine.type.kind is Kind.ENUM else "()"
            self.forced[mine.name] = _call("pool.currency_as", f"{parent}.{money.attr}", options)
        sealed = next(
            (
                g
                for name, g in by_name.items()
                if g.type.kind in (Kind.DATE, Kind.DATETIME) and set(name.split("_")) & _SEALS
            ),
            None,
        )
        if sealed is not None:
            self.until = self._local("until")
            self.body.append((self.until, f"pool.until({parent}.{sealed.attr}, now)"))

    def _parent_record(self, ref: str) -> str:
        """A local holding the seeded parent record (of collection ``ref``) this record
        is drawn under; its id fills the reference."""
        var = self.refs.get(ref) or self._local(f"{ref}_ids")
        self.refs[ref] = var
        parent = self._local(singular(ref))
        self.body.append((parent, f"self.state.{ref}[{self._parent_pick(ref, var, parent)}]"))
        self.parents[parent] = ref
        return parent

    def _parent_pick(self, ref: str, ids: str, var: str) -> str:
        """How the parent record of collection ``ref`` (its ids in ``ids``), held in local
        ``var``, is picked, its state permitting: no one applies to a job not yet posted
        (``pool.not_draft``); and this record's own state then follows the parent's
        (``_follows_state``)."""
        expr = f"rng.choice({ids})"
        parent = self.w.plan.records.get(ref)
        start = next(
            (
                f
                for f in parent.fields.values()
                if f.name in START_FIELDS and f.type.kind in (Kind.DATE, Kind.DATETIME)
            )
            if parent is not None
            else (),
            None,
        )
        if start is not None:  # an event that lies ahead has no one checked in yet
            self._follows_state(var, "start", start.attr)
        state = _state_field(parent)
        if state is None:
            return expr
        if self._outsiders() and _opens(state):
            expr = f'pool.not_draft(rng, {ids}, self.state.{ref}, "{state.attr}")'
        if set(map(str, state.type.enum)) & PARENT_ENDED:
            self._follows_state(var, "state", state.attr)
        if _ended(state.type.enum):  # no interview ahead for a candidate hired or rejected
            self.parent_ended.append((var, state.attr, _ended(state.type.enum)))
        if (
            self.noun.rsplit("_", 1)[-1] in MONEY_BACK_NOUNS
            and {str(v).lower() for v in state.type.enum} & MONEY_TAKEN
        ):  # a refund is of a charge that took money
            self.gives_back = (var, ref, state.attr, "")
            pick = self._local(f"{singular(ref)}_id")
            how = _call("pool.charged", "rng", ids, f"self.state.{ref}", json.dumps(state.attr))
            self.body.append((pick, how))
            expr = pick
        return expr

    def _given_back(self, values: list[tuple[str | None, Expr]]) -> list[tuple[str | None, Expr]]:
        """A refund tells one story with the charge it gives money back from (``gives_back``):
        it is in the charge's currency, no more than what is left of it once the refunds
        before it are taken off, and done (succeeded) only where the charge shows money
        went back (``pool.given_back``, ``pool.back_as_charge``)."""
        assert self.gives_back is not None
        var, ref, state_attr, link = self.gives_back
        theirs = {_snake(g.name): g for g in self.w.plan.records[ref].fields.values()}
        charge = theirs.get("amount") or theirs.get("total")
        mine = {f.attr: f for f in self.record.fields.values()}
        out: list[tuple[str | None, Expr]] = []
        for attr, expr in values:
            f = mine.get(attr or "")
            low = _snake(f.name) if f is not None else ""
            if f is None:
                pass
            elif low == "currency" and "currency" in theirs:
                options = f"get_args({f.type.annotation})" if f.type.kind is Kind.ENUM else "()"
                expr = _call("pool.currency_as", f"{var}.{theirs['currency'].attr}", options)
            elif low == "amount" and charge is not None and f.type.kind in (Kind.INT, Kind.FLOAT):
                before = _call(
                    "pool.values_of",
                    f"self.state.{self.resource}",
                    json.dumps(link),
                    f"{var}.id",
                    json.dumps(f.attr),
                )
                back = theirs.get("amount_refunded")  # what the charge shows went back
                shown = [f"{var}.{back.attr}"] if back is not None else []
                expr = _call("pool.given_back", expr, f"{var}.{charge.attr}", before, *shown)
            elif _state_field_is(f) and expr != self.status_var:
                options = f"get_args({f.type.annotation})"
                expr = _call("pool.back_as_charge", expr, f"{var}.{state_attr}", options)
            out.append((attr, expr))
        return out

    def _plan_carrier(self, fields: list[FieldPlan]) -> None:
        """A tracking number in the format of the record's carrier."""
        by_name = {f.name: f for f in fields}
        carrier = by_name.get("carrier")
        tracking = next((f for f in fields if vocab.meaning(f.name) == "tracking_number"), None)
        if carrier is None or tracking is None or carrier.type.kind is not Kind.ENUM:
            return
        var = self._local("carrier")
        self.body.append((var, self._enum("carrier", carrier.type)))
        self.forced["carrier"] = var
        self.forced[tracking.name] = f'pool.text("tracking_number", rng, {var})'

    def _plan_reference(self, fields: list[FieldPlan]) -> None:
        """A text that cites a number (a payment's "Wagner LLC invoice INV-2026-3116")
        cites the record's own invoice number, not one of its own."""
        kinds = {f.name: vocab.meaning(f.name, self._where()) for f in fields}
        number = next(
            (
                f
                for f in fields
                if kinds[f.name] in _CITED
                and f.type.kind is Kind.STR
                and not f.unique
                and f.name not in self.forced
                and _kind_fits(str(kinds[f.name]), f.type.schema)
            ),
            None,
        )
        texts = [
            f
            for f in fields
            if f.type.kind is Kind.STR
            and f.name not in self.forced
            and "{ref}" in " ".join(vocab.TEMPLATES.get(str(kinds[f.name]), ()))
            and _kind_fits(str(kinds[f.name]), f.type.schema)
        ]
        if number is None or not texts:
            return
        var = self._local(singular(str(kinds[number.name])))
        self.body.append((var, f'pool.text("{kinds[number.name]}", rng, now)'))
        self.forced[number.name] = var
        for f in texts:
            kind = str(kinds[f.name])
            args = [json.dumps(kind), "rng", *self._about(kind)]
            self.forced[f.name] = Call("pool.text", [*((None, a) for a in args), ("ref", var)])

    def _write(self, values: list[tuple[str | None, Expr]]) -> list[str]:
        pad = INDENT * 2
        head = (
            f"{INDENT}def _seed_{self.resource}("
            "self, pool: SeedPool, rng: random.Random, size: int, now: dt.datetime, owners: "
            "dict[str, Any]) -> None:"
        )
        if len(head) > WIDTH:
            head = "\n".join(
                [
                    f"{INDENT}def _seed_{self.resource}(",
                    *(f"{pad}{a}," for a in _PARAMS),
                    f"{INDENT}) -> None:",
                ]
            )
        lines = [head]
        for ref, var in sorted(self.refs.items()):
            lines.append(f"{pad}{var} = list(self.state.{ref})")
        person = bool({"person", "company"} & self.uses)
        cast_at = len(lines)  # the cast line goes here if the loop draws people
        for stmt in self.pre:
            if isinstance(stmt, tuple):
                lines += render(stmt[1], 2, prefix=f"{stmt[0]} = ")
            else:
                lines += render(stmt, 2)
        steps: list[tuple[str, Expr]] = []
        if self.subject_ref is not None:
            ids, var = self.subject_ref
            steps.append((var, f"cast.ref({ids}, owners)"))
        if person:
            like = f"owners.get({self.subject_ref[1]})" if self.subject_ref else ""
            steps.append(("person", f"cast.subject({like})"))
        if "company" in self.uses:
            steps.append(("company", "pool.company(person.company)"))
        if self.staff_roles:
            args: list[tuple[str | None, Expr]] = [(None, str(len(self.staff_roles)))]
            if person:
                args.append((None, "person"))
            roles = [(None, json.dumps(r)) for r in self.staff_roles]
            args.append(("roles", Call("", roles)))
            if self._names_department():  # its colleagues are of the department it names
                args.append(("team", "True"))
            steps.append(("staff", Call("cast.colleagues", args)))
        for g in self.groups.values():
            count = str(g.low) if g.low == g.high else f"rng.randint({g.low}, {g.high})"
            args = [(None, count)]
            args += [(None, v) for v in ["person"] * person + ["staff"] * bool(self.staff_roles)]
            args += [(None, v) for v in g.after]
            if g.staff:
                args.append(("staff", "True"))
            elif person:
                args.append(("company", "person.company"))
            call = Call("cast.others", args)
            if g.with_subject and person:
                steps.append((g.var, Call("", [(None, "person"), (None, _star(call))], "[]")))
            else:
                steps.append((g.var, call))
        if "product" in self.uses:
            pick = "pool.product_at(i)" if self.product_by_index else "rng.choice(pool.products)"
            steps.append(("product", pick))
        steps += self.body
        for var, kind in self.window_kinds:
            steps.append((var, f'pool.window("{kind}", rng, now)'))
            if kind == "terms" and self.terms_days:  # due = issued + the stated terms
                steps.append((var, _call("pool.on_terms", var, self.terms_days)))
        if self.status_var is not None:
            steps.append((self.status_var, self.status_expr))
            if self.one_place and (person or self.staff_roles or self.groups):
                # one person, one place: who is in one live meeting is in no other
                busy = self._local("busy")
                lines.append(f"{pad}{busy}: set[str] = set()")  # before the loop
                people = ["person"] * person + ["staff"] * bool(self.staff_roles)
                people += [g.var for g in self.groups.values()]
                args = [self.status_var, self.one_place, busy, *people]
                steps.append((self.status_var, _call("pool.one_place", *args)))
            for parent, kind, attr in self.parent_states:
                # nothing hangs open under a parent closed or cancelled; no one checked in
                # to an event ahead
                call = _as_parent(self.status_var, self.status_enum, parent, kind, attr)
                steps.append((self.status_var, call))
            if self.colleague and person:
                # a joiner's own record says they start soon; anyone else's that they started
                employed = _call("pool.employed", "person", self.status_var, self.status_options)
                steps.append((self.status_var, employed))
            steps += self.follow_lines
            for var, kind in self.window_kinds if self._timed_status() else ():
                if kind in HAPPENING:  # a meeting that ended lies in the past
                    args = [(None, var), (None, self.status_var), (None, "rng"), (None, "now")]
                    args += self._waiting()
                    starts = [s for (s, _), v in self.windows.items() if v == var]
                    if set(starts) & self.date_windows:  # one ahead begins after today
                        args.append(("dates", "True"))
                    steps.append((var, Call("pool.placed", args)))
            for var, kind in self.window_kinds:
                if kind == "terms" and set(map(str, self.status_enum)) & set(TERMS_PLACES):
                    # an overdue invoice is past its due date, a sent one not yet
                    placed = f'pool.placed({var}, {self.status_var}, rng, now, "terms")'
                    steps.append((var, placed))
        for var, kind in self.window_kinds if person else ():
            if kind in HELD_ALONE:  # one guest, one room a night, whatever the state
                held = self._local("held")
                lines.append(f"{pad}{held}: dict[str, list[Any]] = {{}}")  # before the loop
                state = self.status_var or "None"
                steps.append((var, _call("pool.apart", var, state, held, "now", "person")))
        after = self._after_parents()
        for var, expr in self.hoist_lines:
            if var == self.start_var and after:  # scheduled once what it is for was there
                expr = f'pool.moment("scheduled", rng, now, {after})'
            for parent, attr, ended in self.parent_ended if var == self.start_var else ():
                # what hangs on a record whose business ended took place before it did
                args = [expr, f"{parent}.{attr}", _lit(ended), "rng", "now", after or "None"]
                expr = _call("pool.behind_once_ended", *args)
            steps.append((var, expr))
        if {"created", "updated"} & self.uses:
            before = f", {self.before}" if self.before else ""
            after = self._after_parents()
            after = f", after={after}" if after else ""
            made = f"pool.created(rng, {self.clock}{before}{after})"
            if self.colleague and "person" in self.uses and not before:
                # a colleague's own record (their account, their HR file) is as old as their
                # employment: made when they joined, before anything they handle
                made = f"pool.joined(rng, person, now{after})"
            elif self.resource in self.w.established and not before:
                made = f"pool.established(rng, now{after})"  # their department: before them
            steps.append(("created", made))
            for var, kind in self.window_kinds:
                if kind == "billing" and before:  # a period begins once the record exists
                    steps.append((var, f"pool.not_before({var}, created)"))
            ringing = [v for v in self.status_enum if str(v) in _MOMENTARY]
            if self.status_var is not None and {"ringing", "dialing"} & set(map(str, ringing)):
                # a call ringing or under way began minutes ago, not weeks
                listed = ", ".join(json.dumps(v) for v in ringing)
                live = f"{self.status_var} in ({listed}{',' * (len(ringing) == 1)})"
                steps.append(("created", _call("pool.just_now", live, "created", "rng", "now")))
        steps += self.stamp_lines
        if "updated" in self.uses:  # after every step of the record's lifecycle
            stamps = [v for v, _ in self.stamp_lines]
            if self.status_var is not None and self._timed_status():
                # ... and once a happening began, after its start (a check-in touches it)
                stamps += [
                    f"pool.began({var}, {self.status_var}, now)"
                    for var, kind in self.window_kinds
                    if kind in HAPPENING
                ]
            if self.colleague or self.resource in self.w.established:
                # who manages a colleague, who heads a department, is who does now: such a
                # record, made before they may have joined, was updated once they had
                stamps += [f"pool.onboarded(staff[{k}], now)" for k in range(len(self.staff_roles))]
            last = f"pool.latest(created, {', '.join(stamps)})" if stamps else "created"
            steps.append(("updated", f'pool.moment("past", rng, now, {last})'))
        steps = _created_first(steps)
        keep = self.carrier is not None and person
        new_id = new_id_source(self.record.id_style, self.record.id_prefix, self.record.resource)
        if keep and self.carrier == "person" and is_handle(self.record.id_style.pattern):
            # a person's handle is their own name ('sara_doe_496'), not drawn letters
            pattern, taken = json.dumps(self.record.id_style.pattern), f"self.state.{self.resource}"
            new_id = f"(pool.handle_id(person, rng, {pattern}, {taken}) or {new_id})"
        record_id = new_id
        if keep or self.tree or any(_uses(e, "record_id") for _, e in values):
            steps.append(("record_id", new_id))
            record_id = "record_id"
        tail: list[Expr] = [v for _, v in values]
        tail += [e for _, item, group in self.comprehensions for e in (item, group)]
        if keep:
            value = "person" if self.carrier == "person" else "person.company"
            tail.append(f"owners[record_id] = {value}")
        steps = _prune(steps, tail)
        if any(_uses(e, "cast") for _, e in steps):
            staff = ", staff=True" if self.staff_subject else ""
            lines.insert(cast_at, f"{pad}cast = pool.cast(rng{staff})")
        out: list[str] = []
        for target, expr in steps:
            out += render(expr, 3, prefix=f"{target} = ")
        for var, item, group in self.comprehensions:
            out += _comprehension(var, item, group, 3)
        args_: list[tuple[str | None, Expr]] = [("id", record_id), *values]
        out += put_call(self.resource, self.record.cls, args_, 3)
        if keep:
            out.append(f"{INDENT * 3}owners[record_id] = {value}")
        if self.tree:
            out.append(f"{INDENT * 3}{self.tree}.append(record_id)")
        uses_i = any(re.search(r"(?<![\w.])i\b", line) for line in out)
        count = "1" if self.record.singleton else "size"
        lines.append(f"{pad}for {'i' if uses_i else '_'} in range({count}):")
        return lines + out + self._sum_lines()

    def _sum_lines(self) -> list[str]:
        """After the loop: each parent's total is the sum of its lines (``_lines_of``)."""
        if self.lines is None:
            return []
        parent, ref, total, amount, updated, created = self.lines
        sums, rid, changes = self._local("sums"), self._local("rid"), self._local("changes")
        args = [
            f"self.state.{parent}", f"self.state.{self.resource}.values()", json.dumps(ref),
            json.dumps(amount), json.dumps(total),
        ]  # fmt: skip
        if updated and created:
            args.append(f"({json.dumps(updated)}, {json.dumps(created)})")
        record = f"self.state.{parent}[{rid}].model_copy(update={changes})"
        return [
            *render(_call("pool.sums", *args), 2, prefix=f"{sums} = "),
            f"{INDENT * 2}for {rid}, {changes} in {sums}.items():",
            *render(_call("self.put", json.dumps(parent), record), 3),
        ]

    @property
    def clock(self) -> str:
        """What the record's past times are before: now, or when its parent was sealed."""
        return self.until or "now"

    @property
    def product_by_index(self) -> bool:
        """Whether each record is another product: its SKU is unique, or it is named by its
        product (a catalogue lists no product twice)."""
        return any(
            (f.unique and (f.name == "sku" or f.name.endswith("_sku")))
            or (self._names_record(f) and self._product_named(_snake(f.name)))
            for f in self.record.fields.values()
        )

    def _product_named(self, low: str) -> bool:
        """Whether text field ``low`` shows the record's product's name (see ``_text``)."""
        return low in ("product_name", "product_title") or (
            low in ("title", "name", "product") and self.noun in _PRODUCT_NOUNS
        )

    # -- people -----------------------------------------------------------------------------
    def _staff(self, role: str) -> str:
        if role not in self.staff_roles:
            self.staff_roles.append(role)
        return f"staff[{self.staff_roles.index(role)}]"

    def _side(self, role: str, description: str = "") -> str:
        """Who fills a person role: ``subject`` (the record's own person) or ``staff``."""
        if not role:
            return "subject"
        if role in ("from", "sender"):
            return "staff" if self.sms or not self.message_like else "subject"
        if role in ("to", "recipient"):
            return "subject" if self.sms or not self.message_like else "staff"
        if role in ("cc", "bcc"):  # copied in: a colleague, never the sender themself
            return "staff"
        if role in ("reviewer", "author") and self.noun in ("review", "rating"):
            return "subject"
        if role in ("employee", "user") and self.staff_subject:
            return "subject"
        if role in ("requester", "requested_by", "submitter") and self.noun in _INTERNAL:
            return "staff"  # who asks for a purchase or leave is one of us
        if role in ("personal", "home", "work", "private", "primary", "secondary", "alternate"):
            return "subject"
        if _matches(role, STAFF_ROLES):
            return "staff"
        if _matches(role, EXTERNAL_ROLES):
            return "subject"
        if _STAFF_WORDS.search(description.lower()):
            return "staff"
        return "subject"

    def _who(self, role: str, description: str = "") -> str:
        """The person variable for a role (subject or a colleague)."""
        if self._side(role, description) == "staff":
            return self._staff(role or "colleague")
        self.uses.add("person")
        return "person"

    def _person_attr(self, name: str, spec: TypeSpec) -> str | None:
        """The Person attribute a person-valued field shows, or None for other fields."""
        low = _snake(name)
        sem = spec.semantic
        if sem is None and spec.meant in ("email", "phone") and set(low.split("_")) & _OWN_WORDS:
            sem = spec.meant  # a patterned ``phone`` is still theirs; a line's ``number`` not
        role = role_of(low)
        if sem == "email":
            return "personal_email" if role in ("personal", "private", "home") else "email"
        if sem == "phone":
            return "phone"
        if low in ("username", "user_name", "login") or low.endswith("_username"):
            return "username"
        part = next((v for k, v in _NAME_PARTS.items() if low == k or low.endswith("_" + k)), None)
        if part in ("first_name", "last_name"):
            return part
        if low in ("full_name", "contact_name"):
            return "full_name"
        if low == "display_name":  # a person's shown name; a group's is the group's own
            return "full_name" if vocab.meaning(name, self.where) == "display_name" else None
        person_resource = vocab.is_person_resource(self.resource)
        if low == "name":
            return "full_name" if person_resource and sem in ("person_name", None) else None
        if part == "full_name" or sem == "person_name":
            if role and self._person_role(role):
                return "full_name"
            return "full_name" if sem == "person_name" and person_resource else None
        return None

    @staticmethod
    def _person_role(role: str) -> bool:
        return (
            _matches(role, STAFF_ROLES)
            or _matches(role, EXTERNAL_ROLES)
            or role in ("from", "to", "sender", "recipient", "contact")
        )

    # -- times ------------------------------------------------------------------------------
    def _plan_times(self) -> None:
        """Ordered pairs among the record's top-level time fields, each drawn as one window
        of a kind that fits the record."""
        fields = {
            f.name: f
            for f in self.record.fields.values()
            if f.type.kind in (Kind.DATE, Kind.DATETIME)
            and f.name not in ("created_at", "updated_at")
        }
        taken: set[str] = set()
        for name in sorted(fields):
            if name in taken:
                continue
            end = _pair_end(name, fields)
            if end is None or end in taken:
                continue
            taken |= {name, end}
            kind = self._window_kind(name, end, fields[name].type.kind is Kind.DATE)
            if fields[name].type.kind is Kind.DATE:
                self.date_windows.add(name)
            var = self._local("span" if not self.window_kinds else f"span{len(self.windows) + 1}")
            self.window_kinds.append((var, kind))
            self.windows[(name, end)] = var
            if kind not in ("validity", "fiscal", "warranty", "employment"):
                self.before = self.before or f"{var}[0]"  # (a billing period too)

    def _window_kind(self, start: str, end: str, date: bool) -> str:
        return window_kind(start, end, self.noun, self.record.fields, date)

    def _time(self, name: str, spec: TypeSpec, required: bool) -> Expr | None:
        low = _snake(name)
        suffix = ".date()" if spec.kind is Kind.DATE else ""
        for (start, end), var in self.windows.items():
            if low == _snake(start):
                return f"{var}[0]{suffix}"
            if low == _snake(end):
                return f"{var}[1]{suffix}"
        if low in ("created_at", "created", "creation_date", "date_created", "created_on"):
            self.uses.add("created")
            return f"created{suffix}"
        if low in ("updated_at", "updated", "modified_at", "last_modified", "updated_on"):
            self.uses.add("updated")
            return f"updated{suffix}"
        tokens = set(low.replace("-", "_").split("_"))
        if "birth" in tokens or low in ("dob", "birthday", "birthdate"):
            return f"{self._who(role_of(low))}.born{suffix}"  # one birth date per person
        if tokens & _BORN_WITH and len(tokens) <= 3:  # ``applied_at``: when it came to be
            self.uses.add("created")
            return f"created{suffix}"
        pay = next((v for v, k in self.window_kinds if k == "pay_period"), None)
        if low == "pay_date" and pay is not None:
            return f"({pay}[1] + dt.timedelta(days=3)){suffix}"
        if tokens & _PAST:
            self.uses.add("created")
            past = f'pool.moment("past", rng, {self.clock}, created){suffix}'
            return self._stamp(tokens, past, required)
        if tokens & _FUTURE:
            far = tokens & {"expires", "expiry", "expiration", "renewal", "redeem", "valid",
                            "until", "renews"}  # fmt: skip
            self.uses.add("created")  # due after the record was made, never before it
            kind = "future" if far else "upcoming"
            return f'pool.moment("{kind}", rng, now, created){suffix}'
        if tokens & _SCHEDULED and self.status_var is not None and self._timed_status():
            moment = 'pool.moment("scheduled", rng, now)'  # a meeting that ended began before
            args = [(None, moment), (None, self.status_var), (None, "rng"), (None, "now")]
            at = Call("pool.placed_at", args + self._waiting())
            return f"{at.flat()}{suffix}" if suffix else at
        if tokens & _SCHEDULED:
            return f'pool.moment("scheduled", rng, now){suffix}'
        self.uses.add("created")
        return f'pool.moment("past", rng, {self.clock}, created){suffix}'

    def _stamp(self, tokens: set[str], stamp: str, required: bool) -> Expr:
        """A past stamp (``solved_at``) only on records whose status has reached it; a
        stamp of use (``last_login_at``) only on those past the states before any use."""
        if required or self.status_var is None:
            return stamp
        if tokens & _USE_STAMPS:
            used = [s for s in self.status_enum if str(s).lower() not in _BEFORE_USE]
            if not 0 < len(used) < len(self.status_enum):
                return stamp
            live = [s for s in used if str(s).lower() in ACTIVE_STATES | LIVE_STATES]
            if not live or stamp.endswith(".date()"):
                return self._stamp_in(stamp, used)
            # an account in use now was used lately (hours to days ago), not months
            reached = self._stamp_in(stamp, used).args[3][1]
            lately = self._stamp_in(stamp, live).args[3][1]
            return _call("pool.used", "rng", "now", "created", reached, lately)
        for word, states in _STAMP_STATES.items():
            if word in tokens:
                reached = [s for s in self.status_enum if s in states]
                if reached:
                    return self._stamp_in(stamp, reached)
        return stamp

    def _stamp_in(self, stamp: str, states: list[Any]) -> Call:
        """``stamp`` drawn where the record's status is one of ``states``, else None."""
        listed = ", ".join(json.dumps(s) for s in states)
        listed = f"({listed},)" if len(states) == 1 else f"({listed})"
        args: list[tuple[str | None, Expr]] = [
            (None, "rng"), (None, "now"), (None, "created"),
            (None, f"{self.status_var} in {listed}"),
        ]  # fmt: skip
        if stamp.endswith(".date()"):
            args.append(("date", "True"))
        return Call("pool.stamp", args)

    def _plan_status(self, fields: list[FieldPlan]) -> None:
        """Hoist the status when a stamp depends on it."""
        status = next(
            (
                f
                for f in fields
                if f.name in STATUS_FIELDS and f.type.kind is Kind.ENUM and f.type.is_text
            ),
            None,
        )
        if status is None:
            return
        stamps = [
            f
            for f in fields
            if f.type.kind in (Kind.DATE, Kind.DATETIME)
            and not f.required
            and set(_snake(f.name).split("_")) & (set(_STAMP_STATES) | _USE_STAMPS)
        ]
        bound = [
            f
            for f in fields
            if not f.required
            and (any(w in _snake(f.name) for w in _STATE_BOUND) or _told_states(f.type.schema))
        ]
        paired = {n for pair in self.windows for n in pair}
        lone = any(
            f.type.kind in (Kind.DATE, Kind.DATETIME)
            and f.name not in paired
            and set(_snake(f.name).split("_")) & _SCHEDULED
            for f in fields
        )  # a lone start of something that happens (a meeting's ``starts_at``)
        happening = lone or any(kind in HAPPENING for _, kind in self.window_kinds)
        # something one is at, for a while, in person (a meeting, a call, a flight)
        presence = lone or any(kind in PRESENCE | HELD_ALONE for _, kind in self.window_kinds)
        presence = presence or bool({"ringing", "dialing"} & set(map(str, status.type.enum)))
        # ... or a record its noun says is one (a flight booking kept without its dates)
        presence = presence or window_kind("", "", self.noun, (), False) in PRESENCE | HELD_ALONE
        under_way = [v for v in status.type.enum if place_of(str(v)) == "live" or v in CALLING]
        if presence and under_way:  # under way now for a few only (``pool.happening_state``)
            self.attended_status = status.name
        # states that follow the main one (an order's fulfillment), numbers it implies (a
        # deal's win probability)
        followers = [
            f
            for f in fields
            if f is not status
            and f.type.kind is Kind.ENUM
            and f.type.is_text
            and _snake(f.name).rsplit("_", 1)[-1] in ("status", "state")
            and set(f.type.enum) & (set(status.type.enum) | _STARTS)
        ]
        implied = [f for f in fields if LIKELIHOOD_FIELDS.search(_snake(f.name))]
        timed = happening and self._timed_status(status)
        # a body whose words depend on whether anything was done yet (``_asked``)
        told = any(str(v).lower() in vocab.FIRST_STATES for v in status.type.enum) and any(
            f.type.kind is Kind.STR
            and str(vocab.meaning(f.name, self.where) or "").startswith("body:")
            for f in fields
        )
        # a colleague's own record: whether they started is theirs (``pool.employed``)
        own = self.colleague and any(str(v).lower() in NOT_JOINED for v in status.type.enum)
        if not (stamps or bound or timed or followers or implied or told or own):
            return
        self.status_field = status.name
        self.status_enum = tuple(status.type.enum)
        self.status_var = self._local(status.name)
        self.status_expr = self._enum(status.name.lower(), status.type)
        self.status_options = f"get_args({status.type.annotation})"
        if presence and under_way:
            self.one_place = f"get_args({status.type.annotation})"
        for f in followers:  # drawn after the main state, from it
            var = self._local(f.name)
            options = f"get_args({f.type.annotation})"
            self.follow_lines.append((var, f"pool.agreeing({self.status_var}, {options}, rng)"))
            self.forced[f.name] = var
            self.sub_states.append((var, tuple(f.type.enum)))

    def _timed_status(self, status: FieldPlan | None = None) -> bool:
        """Whether the record's status (``status``, else the one planned) says where in
        time what it records lies: a meeting "ended", a stay "checked_in", a flight
        "scheduled"."""
        values = status.type.enum if status is not None else self.status_enum
        return any(str(v).lower() in TIMED_STATES for v in values)

    def _waiting(self) -> list[tuple[str | None, Expr]]:
        """``pool.placed``'s keywords for the states of a happening one attends that wait
        for it (a stay "confirmed" where "checked_in" says the guest is there): ahead where
        a state says it is over, else only not under way (``pool.waiting_states``)."""
        if not self.attended_status:  # (a to-do "todo" in its slot is only running late)
            return []
        waiting, over = waiting_states(self.status_enum, ENDED)
        if not waiting:
            return []
        return [("ahead" if over else "not_now", _lit(waiting))]

    def _plan_start(self, fields: list[FieldPlan]) -> None:
        """A lone scheduled start (an interview's ``starts_at``) with no status that places
        it: drawn first, so the record was created before it and a verdict on what happened
        there (``recommendation``, ``outcome``) exists only once it has begun (``_bound``)."""
        if self.status_var is not None and self._timed_status():
            return
        paired = {n for pair in self.windows for n in pair}
        start = next(
            (
                f
                for f in fields
                if f.type.kind in (Kind.DATE, Kind.DATETIME)
                and f.name not in paired | set(self.forced)
                and set(_snake(f.name).split("_")) & _STARTS_AT
            ),
            None,
        )
        if start is None:
            return
        var = self._local("starts")
        self.hoist_lines.append((var, 'pool.moment("scheduled", rng, now)'))
        self.forced[start.name] = f"{var}.date()" if start.type.kind is Kind.DATE else var
        self.before = self.before or var
        self.start_var = var

    def _plan_kind_texts(self, fields: list[FieldPlan]) -> None:
        """A text whose words depend on its record's kind (a CTA's reason on its type) is
        drawn for that kind: the kind first, then a text that fits it."""
        where = self._where()
        for f in fields:
            if f.name in self.forced or f.type.kind is not Kind.STR:
                continue
            table = vocab.BY_KIND.get(str(vocab.meaning(f.name, where)))
            kind = next(
                (
                    g
                    for g in fields
                    if g.name not in self.forced
                    and g.type.kind is Kind.ENUM
                    and g.type.enum
                    and {str(v) for v in g.type.enum} <= set(table or ())
                ),
                None,
            )
            if table is None or kind is None:
                continue
            var = self._local(kind.name.rstrip("_"))
            self.hoist_lines.append((var, self._enum(_snake(kind.name), kind.type)))
            self.forced[kind.name] = var
            text = vocab.meaning(f.name, where)
            self.forced[f.name] = _call("pool.text_for", json.dumps(text), var, "rng")

    def _plan_pay(self, fields: list[FieldPlan]) -> None:
        """A job's title decides its contract and pay, and its place the currency it pays
        in: no intern Head of Sales on 177k, no Edinburgh post paid in dollars."""
        where = self._where()
        top = [f for f in fields if f.name not in self.forced]
        title = next(
            (
                f
                for f in top
                if f.type.kind is Kind.STR
                and vocab.meaning(f.name, where) in ("job_posting", "job_title")
            ),
            None,
        )
        contract = next(
            (
                f
                for f in top
                if f.type.kind is Kind.ENUM
                and f.type.is_text
                and sum(bool(vocab.contract_of(v)) for v in f.type.enum) >= 2
            ),
            None,
        )
        paid = any(
            f.type.kind in (Kind.INT, Kind.FLOAT) and _PAY.search(_snake(f.name)) for f in top
        )
        if title is None or (contract is None and not paid):
            return
        expr = self.value(title.name, title.type, title.required, title.unique, 0, "")
        if expr is None:
            return
        var = self._local("title")
        self.hoist_lines.append((var, expr))
        self.forced[title.name] = var
        kind = "None"
        if contract is not None:
            kind = self._local(contract.name)
            options = f"get_args({contract.type.annotation})"
            self.hoist_lines.append((kind, _call("pool.contract", var, options, "rng")))
            self.forced[contract.name] = kind
        self.pay_by = (var, kind)
        city = next((f for f in top if vocab.meaning(f.name, where) == "city"), None)
        money = next(
            (
                f
                for f in top
                if f.type.kind in (Kind.STR, Kind.ENUM) and _snake(f.name) == "currency"
            ),
            None,
        )
        if city is None or money is None or not paid:
            return
        place = self.value(city.name, city.type, city.required, city.unique, 0, "")
        if place is None:
            return
        at = self._local(city.name)
        self.hoist_lines.append((at, place))
        self.forced[city.name] = at
        options = f"get_args({money.type.annotation})" if money.type.kind is Kind.ENUM else "()"
        self.forced[money.name] = _call("pool.currency_in", at, options)

    def _plan_flags(self, fields: list[FieldPlan]) -> None:
        """A stamp that goes with a flag (``archived`` and ``archived_at``): set exactly
        when the flag is."""
        flags = {_snake(f.name).removeprefix("is_"): f for f in fields if f.type.kind is Kind.BOOL}
        for f in fields:
            if f.type.kind not in (Kind.DATE, Kind.DATETIME) or f.name in self.forced:
                continue
            tokens = _snake(f.name).split("_")
            word = "_".join(tokens[:-1]) if tokens[-1] in ("at", "on", "date") else ""
            flag = flags.get(word)
            if flag is None or flag.name in self.forced:
                continue
            var = self._local(word)
            self.body.append((var, _bool(flag.type)))
            self.forced[flag.name] = var
            self.uses.add("created")
            args: list[tuple[str | None, Expr]] = [
                (None, "rng"), (None, "now"), (None, "created"), (None, var),
            ]  # fmt: skip
            if f.type.kind is Kind.DATE:
                args.append(("date", "True"))
            self.forced[f.name] = Call("pool.stamp", args) if not f.required else (
                f'pool.moment("past", rng, now, created){".date()" if args[-1][0] else ""}'
            )  # fmt: skip

    # -- numbers ----------------------------------------------------------------------------
    def _plan_numbers(self, fields: list[FieldPlan]) -> None:
        """Hoist the numbers others depend on (a whole its parts come from, a minimum)."""
        by_name = {f.name: f for f in fields if f.type.kind in (Kind.INT, Kind.FLOAT)}
        wholes = {w for p, w in _PART_OF.items() if p in by_name and w in by_name}
        parts: list[str] = []
        if "total" in by_name and "subtotal" in by_name:
            wholes.add("subtotal")
            parts = [n for n in ("tax_total", "shipping_total") if n in by_name]
        for name in by_name:
            if _pair_end(name, by_name) is not None:
                wholes.add(name)
        if {"subtotal", "total"} & set(by_name):
            self._plan_priced_item(by_name)
        self._plan_recurring(by_name)
        first = ["subtotal"] if "subtotal" in wholes else []
        rest = sorted(wholes - {"subtotal"})
        for name in [*first, *parts, *rest]:
            f = by_name[name]
            expr = self._number(name, f.type)
            var = self._local(name)
            self.hoist_lines.append((var, expr))
            self.hoisted[name] = var

    def _plan_bands(self, fields: list[FieldPlan]) -> None:
        """A label that grades a score of the same record (an account's ``health`` beside
        its ``health_score``, a ``risk_level`` beside a ``risk_score``) is the band the
        score falls in: the score is drawn first and the label follows from it."""
        numbers = {_snake(f.name): f for f in fields if f.type.kind in (Kind.INT, Kind.FLOAT)}
        for f in fields:
            if f.type.kind is not Kind.ENUM or not f.type.is_text or f.name in self.forced:
                continue
            score = numbers.get(graded_score(_snake(f.name), numbers) or "")
            ordered = grade_order(tuple(f.type.enum)) if score is not None else None
            if score is None or ordered is None:
                continue
            lo, hi = score_range(
                *_bounds(score.type.schema, score.type.kind is Kind.INT),
                str(score.type.schema.get("description") or ""),
            )
            if score.name not in self.hoisted:
                var = self._local(score.name)
                self.hoist_lines.append((var, self._number(score.name, score.type)))
                self.hoisted[score.name] = var
            labels = "(" + ", ".join(json.dumps(v) for v in ordered) + ")"
            self.forced[f.name] = _call(
                "pool.band", self.hoisted[score.name], labels, repr(lo), repr(hi)
            )

    def _plan_letter(self, fields: list[FieldPlan]) -> None:
        """A message's body says what its subject line is about ("Question about my
        invoice" asks about an invoice): the subject is drawn first, the body from it."""
        where = self._where()
        top = [f for f in fields if f.type.kind is Kind.STR and f.name not in self.forced]
        subject = next((f for f in top if vocab.meaning(f.name, where) == "email_subject"), None)
        body = next((f for f in top if vocab.meaning(f.name, where) == "body:message"), None)
        if subject is None or body is None or subject.unique:
            return
        expr = self._vocab(subject.name, "email_subject", False, 0)
        if expr is None:
            return
        var = self._local(subject.name)
        self.hoist_lines.append((var, expr))
        self.forced[subject.name] = var
        self.forced[body.name] = f"pool.letter({var}, rng)"

    def _plan_priced_item(self, numbers: dict[str, FieldPlan]) -> None:
        """Totals equal the sum of their parts: a record whose line items carry a quantity
        and a unit price (an order, an invoice), or name a priced record of this service
        (a quote's price-book entry), has the subtotal (else the total) they make, less
        the item's discount, and a tax total at the item's tax rate. The item's values are
        drawn ahead, the sums computed from them, in the currency the price is in."""
        for f in self.record.fields.values():
            item = f.type.item if f.type.kind is Kind.LIST else None
            model = self.models.get(item.model or "") if item is not None else None
            if model is None:
                continue
            by_name = {m.name: m for m in model.fields}
            numeric = (Kind.INT, Kind.FLOAT)
            qty = next((by_name[n] for n in _QUANTITIES if n in by_name), None)
            price = next((by_name[n] for n in _UNIT_PRICES if n in by_name), None)
            priced = None if price is not None else self._priced_ref(model.fields)
            if qty is None or qty.type.kind not in numeric or (price or priced) is None:
                continue
            if price is not None and price.type.kind not in numeric:
                continue
            q, u = self._local("quantity"), self._local("unit_price")
            forced: dict[str, Expr] = {qty.name: q if qty.type.kind is Kind.INT else f"float({q})"}
            self.hoist_lines.append((q, "rng.randint(1, 20)"))
            if price is not None:
                self.uses.add("product")
                self.hoist_lines.append((u, "round(product.price, 2)"))
                forced[price.name] = u if price.type.kind is Kind.FLOAT else f"int({u})"
            else:  # the price of the record the item names (a price-book entry)
                ref, target, attr = priced  # type: ignore[misc]
                entry = self._parent_record(target)
                forced[ref.name] = f"{entry}.id"
                self.hoist_lines.append((u, f"{entry}.{attr}"))
                self._same_currency(entry, target)
            for part, whole in _PART_OF.items():  # units received never exceed those ordered
                if whole == qty.name and part in by_name and by_name[part].type.kind is Kind.INT:
                    forced[part] = f"rng.randint(0, {q})"
            line = f"{q} * {u}"
            off = next((by_name[n] for n in _DISCOUNTS if n in by_name), None)
            if off is not None and off.type.kind in numeric:
                d = self._local("discount")
                self.hoist_lines.append((d, "5 * rng.randint(0, 6)"))
                forced[off.name] = d if off.type.kind is Kind.INT else f"float({d})"
                line = f"{q} * {u} * (100 - {d}) / 100"
            rate = by_name.get("tax_rate")
            if rate is not None and rate.type.kind is Kind.FLOAT and "tax_total" in numbers:
                r = self._local("tax_rate")
                self.hoist_lines.append((r, "5.0 + 0.5 * rng.randint(0, 40)"))
                forced[rate.name] = r
                self.priced["tax_total"] = f"round({{subtotal}} * {r} / 100, 2)"
            self.priced["subtotal" if "subtotal" in numbers else "total"] = f"round({line}, 2)"
            self.item_forced[model.name] = forced
            return

    def _priced_ref(self, fields: list[FieldPlan]) -> tuple[FieldPlan, str, str] | None:
        """(reference field, collection, price attribute): a reference among ``fields`` to
        a record of this service, seeded before, that carries a unit price."""
        for m in fields:
            if m.type.semantic != "id" or m.type.kind is not Kind.STR:
                continue
            target = resolve_ref(m.type.ref, self.collections)
            record = self.w.plan.records.get(target or "")
            if record is None or target not in self.seeded:
                continue
            for n in _UNIT_PRICES:
                held = record.fields.get(n)
                if held is not None and held.type.kind in (Kind.INT, Kind.FLOAT):
                    return m, str(target), held.attr
        return None

    def _same_currency(self, holder: str, target: str) -> None:
        """An amount computed from another record's price is in that record's currency."""
        mine = self.record.fields.get("currency")
        theirs = self.w.plan.records[target].fields.get("currency")
        if mine is None or theirs is None or mine.name in self.forced:
            return
        kinds = (mine.type.kind, theirs.type.kind)
        if kinds == (Kind.STR, Kind.STR) or (
            kinds == (Kind.ENUM, Kind.ENUM) and set(theirs.type.enum) <= set(mine.type.enum)
        ):
            self.forced[mine.name] = f"{holder}.{theirs.attr}"

    def _plan_recurring(self, numbers: dict[str, FieldPlan]) -> None:
        """A recurring amount (MRR, ARR) follows the plan it refers to: the plan's price,
        times the seats where the plan is priced per seat, per month (or year); seats exist
        only on per-seat plans."""
        money = next((n for n in numbers if _RECURRING.search(_snake(n))), None)
        if money is None or money in self.forced:
            return
        fields = list(self.record.fields.values())
        priced = self._priced_ref([f for f in fields if f.name not in self.forced])
        if priced is None:
            return
        ref, target, attr = priced
        plan = self._parent_record(target)
        self.forced[ref.name] = f"{plan}.id"
        held = self.w.plan.records[target].fields
        interval = next((held[n] for n in _INTERVALS if n in held), None)
        per_seat = next((held[n] for n in _PER_SEAT if n in held), None)
        amount = f"{plan}.{attr}"
        seats = next((numbers[n] for n in ("seats", "quantity") if n in numbers), None)
        if seats is not None and per_seat is not None and per_seat.type.kind is Kind.BOOL:
            var = self._local(seats.name)
            one = "None" if seats.type.nullable else "1"
            drawn = self._number(seats.name, seats.type)
            self.hoist_lines.append((var, f"{drawn} if {plan}.{per_seat.attr} else {one}"))
            self.forced[seats.name] = var
            amount = f"{amount} * ({var} or 1)"
        months = "12" if _snake(money).startswith(("arr", "annual")) else "1"
        every = f"{plan}.{interval.attr}" if interval is not None else '"month"'
        self.forced[money] = f"pool.per_month({amount}, {every}, {months})"
        self._same_currency(plan, target)

    def _number(self, name: str, spec: TypeSpec) -> Expr:
        low = _snake(name)
        if name in self.hoisted:
            return self.hoisted[name]
        if low in self.priced:  # the sum of the line items (see ``_plan_priced_item``)
            return self.priced[low].format(subtotal=self.hoisted.get("subtotal", "subtotal"))
        integer = spec.kind is Kind.INT
        lo_b, hi_b = _bounds(spec.schema, integer)
        if lo_b is None and hi_b is None and not self.scope:
            lo_b, hi_b = self._stored_bounds(name, integer)
        low_pay, high_pay = vocab.PAY_BANDS[0][0], vocab.PAY_BANDS[-1][1]
        fits = (lo_b is None or lo_b <= low_pay) and (hi_b is None or hi_b >= high_pay)
        ends = {end for start, end in _numeric_pairs(self.record.fields) if start in self.hoisted}
        if self.pay_by is not None and _PAY.search(low) and fits and low not in ends:
            pay = f"pool.pay(rng, {self.pay_by[0]}, {self.pay_by[1]})"
            return f"int({pay})" if integer else pay
        whole = _PART_OF.get(low)
        if whole in self.hoisted:
            var = self.hoisted[whole]
            if low in ("tax", "tax_total"):
                return f"round({var} * rng.uniform(0.05, 0.25), 2)"
            if low == "deductions":
                return f"round({var} * rng.uniform(0.02, 0.08), 2)"
            if low in ("net_pay", "total_net"):
                return f"round({var} * rng.uniform(0.62, 0.78), 2)"
            if integer:
                return f"rng.randint(0, {var})"
            done = low.removeprefix("amount_")
            if self.status_var is not None and done in ("paid", "refunded", "received"):
                # money received (or refunded) as the status says: all of it once "paid",
                # part of it while "partially_paid", none before (a sent invoice owes it all)
                return f'round({var} * pool.share_done({self.status_var}, "{done}", rng), 2)'
            return f"round({var} * rng.choice((0.0, 0.25, 0.5, 1.0)), 2)"
        if low == "total" and "subtotal" in self.hoisted:
            added = [self.hoisted[n] for n in ("subtotal", "tax_total", "shipping_total")
                     if n in self.hoisted]  # fmt: skip
            return f"round({' + '.join(added)}, 2)"
        fields = {f.name: f for f in self.record.fields.values()}
        for start, end in _numeric_pairs(fields):
            if low == end and start in self.hoisted:
                var = self.hoisted[start]
                grown = f"{var} + rng.randint(0, max(1, {var}))" if integer else (
                    f"round({var} * rng.uniform(1.1, 1.6), 2)"
                )  # fmt: skip
                return f"min({grown}, {hi_b!r})" if hi_b is not None else grown
        tokens = low.split("_")
        epoch_fits = (hi_b is None or hi_b >= 10**9) and (lo_b is None or lo_b <= 10**9)
        stamp = tokens[-1] in ("at", "timestamp", "epoch") or low.endswith("_time")
        if integer and stamp and epoch_fits:
            word = "future" if set(tokens) & _FUTURE else "past"
            self.uses.add("created")
            args = [json.dumps(word), "rng", "now", "created"]
            if "ms" in tokens or "millis" in low:
                args.append("1000")
            return _call("pool.epoch", *args)
        if low in ("story_points", "points_estimate", "estimate") and integer:
            return "rng.choice((1, 2, 3, 5, 8, 13))"
        if "year" in low.split("_") or low.endswith("year"):
            if low.startswith("exp"):
                return "rng.randint(now.year, now.year + 5)"
            return "rng.randint(now.year - 1, now.year + 1)"
        said = str(spec.schema.get("description") or "")
        if integer and (_KEY_BITS.search(low) or _KEY_SIZE_SAID.search(said)):
            return "rng.choice((2048, 3072, 4096, 256, 384))"  # RSA or elliptic-curve sizes
        span = _resource_number(self.noun, low) or _rule(low)
        if span is None and (spec.semantic == "money" or low in ("price", "unit_price")):
            span = (20, 5000, False, 0.01)
        priced = low in ("price", "unit_price", "list_price", "compare_at_price")
        if priced and (lo_b is None or lo_b <= 5):
            self.uses.add("product")
            factor = " * 1.2" if low == "compare_at_price" else ""
            return f"round(product.price{factor}{'' if integer else ', 2'})"
        if span is None:
            lo = lo_b if lo_b is not None else (1 if _counts(low) else 0)
            hi = hi_b if hi_b is not None else (lo + (20 if integer else 100))
            span = (lo, max(lo, hi), integer, 1 if integer else 0.01)
        lo, hi, whole_numbers, step = span
        lo, hi = _clamp(lo, hi, lo_b, hi_b)
        multiple = spec.schema.get("multipleOf")
        if isinstance(multiple, int | float) and not isinstance(multiple, bool) and multiple > 0:
            drawn = f"pool.multiple_of(rng, {float(lo)!r}, {float(hi)!r}, {multiple!r})"
            return f"int({drawn})" if integer else drawn  # ``multipleOf: 0.5``
        if integer or whole_numbers:
            lo_i, hi_i = int(-(-lo // 1)), int(hi // 1)
            hi_i = max(lo_i, hi_i)
            st = max(1, int(step))
            if st > 1 and hi_i - lo_i >= st:
                expr = f"rng.randrange({lo_i}, {hi_i + 1}, {st})"
            else:
                expr = f"rng.randint({lo_i}, {hi_i})"
            return expr if integer else f"float({expr})"
        if step >= 0.25:
            n = int((hi - lo) / step)
            if n >= 1:
                return f"{float(lo)!r} + {float(step)!r} * rng.randint(0, {n})"
        return f"round(rng.uniform({float(lo)!r}, {float(hi)!r}), 2)"

    def _stored_bounds(self, name: str, integer: bool) -> tuple[Any, Any]:
        """The bounds a write tool of this collection declares (or states: "from 1 to 5")
        for the value it stores into field ``name``, where the record's own schema (a read's
        answer: "Priority level of the ticket.") has none: a seeded record holds only what
        the service itself would accept."""
        field = self.record.fields.get(name)
        if field is None:
            return None, None
        for tool in self.w.plan.tools:
            if tool.resource != self.resource or not tool.write:
                continue
            for param in tool.params:
                if param.role is Role.FIELD and (param.target or param.name) == name:
                    found = _bounds(param.type.schema, integer)
                    if found != (None, None):
                        return found
        return None, None

    # -- values -----------------------------------------------------------------------------
    def value(
        self, name: str, spec: TypeSpec, required: bool, unique: bool, depth: int, who: str
    ) -> Expr | None:
        """A field's value; ``who``: the person variable a nested value belongs to."""
        self._required_now = required
        expr = self._value(name, spec, required, unique, depth, who)
        expr = _fitted(expr, spec)
        if expr is None and required:
            expr = "None" if spec.nullable else _fallback(spec)
        return expr

    def _value(
        self, name: str, spec: TypeSpec, required: bool, unique: bool, depth: int, who: str
    ) -> Expr | None:
        patterned = patterned_text(spec, "rng")
        if patterned is None:
            return self._by_meaning(name, spec, required, unique, depth, who)
        # The spec's pattern decides the shape; a value drawn by the field's meaning (a
        # channel called "billing-team") is kept where it fits, so records read as real ones.
        args = pattern_args(spec, "rng")
        if args is None:
            return patterned  # a UUID: nothing a name says fits it
        meant = self._by_meaning(name, spec, required, unique, depth, who)
        flat = meant.flat() if isinstance(meant, Call) else meant
        if not flat or flat == "None" or flat.startswith(("pattern_text(", "pool.pattern(")):
            return patterned
        return _call("pattern_or", meant, *args)

    def _by_meaning(
        self, name: str, spec: TypeSpec, required: bool, unique: bool, depth: int, who: str
    ) -> Expr | None:
        """A field's value by what its name and semantic type say it is."""
        kind, sem = spec.kind, spec.semantic
        low = _snake(name)
        description = str(spec.schema.get("description") or "")
        if kind is Kind.ENUM:
            if depth == 0 and self.status_var is not None and name == self.status_field:
                return self.status_var
            if sem == "currency" or low == "currency":
                source = self._currency_source(who)
                options = f"get_args({spec.annotation})"
                return _call("pool.currency", options, *([source] if source else []))
            return self._enum(low, spec)
        members = [v for v in spec.schema.get("enum") or () if isinstance(v, str)]
        if kind is Kind.STR and members:  # an enum too large for a Literal: one of its members
            return _call("rng.choice", Call("", [(None, json.dumps(v)) for v in members[:8]], "[]"))
        if sem == "id" and kind is Kind.STR:
            return self._ref(spec, name, required, depth)
        if sem == "id" and kind is Kind.INT:
            target = self.w.plan.records.get(resolve_ref(spec.ref, self.collections) or "")
            if target is not None and target.id_style.numeric:
                found = self._ref(spec, name, required, depth)
                if found is not None:
                    flat = found.flat() if isinstance(found, Call) else found
                    return f"int_ref({flat})"
        if kind in (Kind.DATE, Kind.DATETIME):
            if depth == 0:
                return self._time(name, spec, required)
            suffix = ".date()" if kind is Kind.DATE else ""
            if "birth" in low:
                return f"{who or self._who(role_of(low))}.born{suffix}"
            self.uses.add("created")
            return f'pool.moment("past", rng, {self.clock}, created){suffix}'
        attr = self._person_attr(name, spec) if kind is Kind.STR else None
        if attr is None and kind is Kind.STR and sem in (None, "phone") and _phone_like(low, spec):
            attr = "phone"  # a ``To`` typed as a URL (a contact URI) is no phone number
        if attr is not None:
            if who == "org":
                return "pool.org.phone" if attr == "phone" else None
            if self.company_subject and not who and attr == "phone" and not role_of(low):
                self.uses.update({"person", "company"})
                self.shows_company = True
                return "company.phone"
            person = who or self._who(role_of(low), description)
            if person == "person":
                self.shows_person = True
            return f"{person}.{attr}"
        company = sem == "company" or (low in _COMPANY_FIELDS and sem is None)
        if company and kind is Kind.STR:  # an ``organization`` object or URL is not a name
            if who == "org":
                return "pool.org.name"
            person = who or self._who(role_of(low), description)
            if person == "person":
                self.shows_company = True
            return f"{person}.company"
        if sem == "address" and low == "address" and not who and self._mail_service():
            # a mail service's bare ``address`` is a mailbox: one an address record holds
            # where the service keeps them, else one of ours (``billing-alerts@acme.com``)
            mailbox = _call("pool.mailbox", "rng")
            return self._name_of_record(name, mailbox) or mailbox
        if sem == "address":
            return self._address("street", who or "person")
        if sem == "country" or (sem is None and kind is Kind.STR and _names_country(low)):
            # (a declared pattern drops the semantic type, not what the field is: an
            # address's two-letter ``country`` is its holder's, so Paris is not in the US)
            if who == "org":
                return "pool.org.country"
            return f"{who or self._who(role_of(low))}.country"
        if sem == "currency":
            source = self._currency_source(who)
            if source is None:
                return "pool.org.currency"
            return "company.currency" if source == "company" else f"{source}.currency"
        if sem == "url":
            return self._url(low, who)
        if kind is Kind.BOOL:
            return _bool(spec)
        if kind in (Kind.INT, Kind.FLOAT):
            number = self._number(name, spec)
            if depth == 0 and self.status_var and LIKELIHOOD_FIELDS.search(low):
                options = f"get_args({self.record.fields[self.status_field].type.annotation})"
                return _call("pool.likelihood", self.status_var, number, options)  # stage -> it
            return number
        if kind is Kind.STR:
            return self._text(name, spec, unique, depth, who)
        if kind is Kind.LIST:
            return self._list(name, spec, depth, who)
        deep_ok = depth <= 3 or (required and depth <= 8)  # a required part must be there
        if kind is Kind.MODEL and spec.model in self.models and deep_ok:
            return self._model(name, self.models[spec.model], depth, who)
        if kind is Kind.DICT:
            return "{}" if required else None  # free-form, or a cut recursion: shape unknown
        return None

    def _enum(self, low: str, spec: TypeSpec) -> Expr:
        """Any value; a status mostly an open one, as in a live system (and so that actions
        have records they apply to)."""
        every = f"rng.choice(get_args({spec.annotation}))"
        if low not in STATUS_FIELDS:
            return every
        open_states = tuple(v for v in spec.enum if v not in TERMINAL)
        if low == self.attended_status.lower() and not self.scope:
            # a stay is "confirmed" or "checked_in" alike to a plain draw: 4 in 10 under way
            listed = Call("", [(None, _lit(v)) for v in open_states or spec.enum])
            return Call(
                "pool.happening_state",
                [(None, "rng"), (None, listed), (None, f"get_args({spec.annotation})")],
            )
        if not open_states or len(open_states) == len(spec.enum):
            return every
        listed = Call("", [(None, _lit(v)) for v in open_states])
        self.w.helpers.add("_pick_state")
        return Call(
            "_pick_state", [(None, "rng"), (None, listed), (None, f"get_args({spec.annotation})")]
        )

    def _ref(self, spec: TypeSpec, name: str, required: bool, depth: int) -> Expr | None:
        ref = resolve_ref(spec.ref, self.collections)
        if ref == self.resource and not required:
            # A parent of the same kind: an earlier record of this collection, now and then.
            if depth > 0:
                return None
            if self.tree is None:
                self.tree = self._local(f"earlier_{singular(ref)}_ids")
                self.pre.append(f"{self.tree}: list[str] = []")
            return f"pool.parent(rng, {self.tree})"
        if ref == self.resource and required:
            return "record_id"  # a required reference to its own kind: the record itself
        if ref in self.seeded:
            var = self.refs.get(ref) or self._local(f"{ref}_ids")
            self.refs[ref] = var
            if depth == 0 and name == self.record.parent_key:
                return f"{var}[i % len({var})]"  # one record per parent, each its own parent
            carrier = self.w.carriers.get(ref)
            if depth == 0 and carrier and self.subject_ref is None and self._has_subject():
                local = self._local(name)
                self.subject_ref = (var, local)
                return local
            if depth == 0 and carrier and self.subject_ref is not None:
                # Another record of the same person, or of the person's company.
                owner = "person" if carrier == "person" else "person.company"
                self.uses.add("person")  # the subject may be a company: draw the person too
                return _call("pool.ref_for", "rng", var, "owners", owner)
            return f"rng.choice({var})"
        if not required:
            # Seeded later (a cycle), or another service's record this one cannot know:
            # left unset rather than dangling.
            return None
        drawn = patterned_text(spec, "rng", ids=True)
        if drawn is not None:  # the spec says what such ids look like (``^lt-[a-z0-9]{17}$``)
            return drawn
        example = example_of(spec.schema)
        match = _ID_LIKE.match(example) if isinstance(example, str) else None
        prefix = match.group(1) if match else f"{singular(spec.ref or name.removesuffix('_id'))}_"
        # An id issued by another service: 8 characters, never the 10 of this one's ids.
        return _call("pool.external_id", json.dumps(prefix), "rng")

    def _currency_source(self, who: str) -> str | None:
        """Where a record's currency comes from: its client's company (a variable), or
        None for our own."""
        if who == "org" or self.staff_subject:
            return None
        if who in ("", "person"):
            if not self._has_subject() and not self._located():
                return None
            self.uses.update({"person", "company"})
            return "company"
        if who.startswith("staff"):
            return None
        return f"pool.company({who}.company)"

    def _located(self) -> bool:
        """Whether the record says where it is (a city, a country, an address)."""
        for f in self.record.fields.values():
            low = _snake(f.name)
            if f.type.semantic in ("country", "address") or low in ("city", "country", "region"):
                return True
            if f.type.kind is Kind.MODEL and low.endswith("address") and low not in _ORG_ADDRESSES:
                return True
        return False

    def _has_subject(self) -> bool:
        """Whether the record shows its subject's name, e-mail or company (or a text that
        mentions them, such as a deal title)."""
        for f in self.record.fields.values():
            kind = vocab.meaning(f.name, self.where) if f.type.kind is Kind.STR else None
            if kind and kind != "venue" and "person" in _needs(kind) and kind in vocab.TEMPLATES:
                return True
            person = self._person_attr(f.name, f.type) is not None
            company = f.type.semantic == "company" or _snake(f.name) in _COMPANY_FIELDS
            shown = f.type.kind is Kind.STR and (person or company)
            if shown and self._side(role_of(_snake(f.name))) == "subject":
                return True
        return False

    def _address(self, part: str, who: str) -> str:
        if who == "org":
            return f"pool.org.{part}"
        if who == "person":
            self.uses.add("person")
        return f"{who}.{part}"

    def _url(self, low: str, who: str) -> Expr:
        person = who if who and who != "org" else "person"
        if low in ("website", "homepage", "company_url", "site_url", "web_site") or (
            low == "url" and self.noun in ("company", "account", "organization", "vendor")
        ):
            self.uses.update({"person", "company"})
            return "company.website"
        if "linkedin" in low:
            self.uses.add("person")
            return f'pool.url("linkedin", rng, {person})'
        if any(w in low for w in ("meeting", "join", "meet", "conference", "video")):
            return 'pool.url("meeting", rng)'
        kind = low.removesuffix("_url").removesuffix("_uri").removesuffix("_link") or "page"
        path = self.resource.replace("_", "-")
        service = json.dumps(self.w.plan.service)
        field = next((f for f in self.record.fields.values() if _snake(f.name) == low), None)
        said = str(field.type.schema.get("description") or "") if field else ""
        if field is not None and not self.scope and _ENDPOINT.search(said):
            # the record's own API endpoint (``.../servers/<id>``, its ``.../config``): its
            # path and its own id, never a random tail
            sub = "" if low in ("url", "uri", "href", "self", "link") else kind.replace("_", "-")
            return _call("pool.endpoint", service, json.dumps(path), "record_id", json.dumps(sub))
        return _call("pool.url", json.dumps(kind), "rng", service, json.dumps(path))

    def _model(self, name: str, model: ModelPlan, depth: int, who: str) -> Expr:
        low = _snake(name)
        one_of_them = False  # the object is a person in a role (a task's ``assignee``)
        if not who:
            holder = role_of(low.removesuffix("_address").removesuffix("address") or low)
            if low in _ORG_ADDRESSES:
                who = "org"
            elif low.endswith("address") or holder in ("ship_to", "shipping", "billing"):
                self.uses.add("person")
                who = "person"
            elif holder and self._person_role(holder):
                who = self._who(holder)
                one_of_them = True
        args: list[tuple[str | None, Expr | None]] = []
        self.scope.append(low)
        paired = {**self._paired(model, who), **self.item_forced.get(model.name, {})}
        typed = self._record_type(model, who)  # drawn first: its records' content fits it
        if typed is not None:
            paired[typed[0]] = self.record_types[-1][0]
        for f in model.fields:
            kind = vocab.meaning(f.name)
            if f.name in paired:
                args.append((f.attr, paired[f.name]))
                continue
            text = f.type.kind is Kind.STR  # a ``location`` object is not the city's name
            # a declared pattern decides (``state: [A-Z]{2}`` is a code, not the region's name)
            text = text and patterned_text(f.type, "rng") is None
            if one_of_them and text and _snake(f.name) in _OWN_NAMES:
                # ``{email, name}`` of an assignee: the name of the person the e-mail is
                # (not a record's name: "tom.mccoy@..." is no "orders-backup")
                expr = _fitted(f"{who}.full_name", f.type)
            elif who and text and kind in ("street", "line2", "city", "region", "postal_code"):
                if kind == "line2":
                    expr: Expr | None = '""' if f.required else None
                else:
                    expr = _fitted(self._address(str(kind), who), f.type)  # ``state``: 2 long
            else:
                expr = self.value(f.name, f.type, f.required, False, depth + 1, who)
            args.append((f.attr, expr))
        self.scope.pop()
        if typed is not None:
            self.record_types.pop()
        return Call(model.name, [(a, e) for a, e in args if e is not None])

    def _paired(self, model: ModelPlan, who: str) -> dict[str, Expr]:
        """Nested fields that go together (a form question's key and label): one drawn,
        the other read from the vocabulary's row for it."""
        if who == "p":
            return {}
        kinds = {f.name: vocab.meaning(f.name, self._where()) for f in model.fields}
        for name, kind in kinds.items():
            columns = vocab.ROWS.get(kind or "", {})
            partners = [n for n in kinds if n in columns and n != name]
            if kind and partners:
                var = self._local(singular(kind.split("_")[0]))
                self.body.append((var, f'pool.text("{kind}", rng)'))
                out: dict[str, Expr] = {name: var}
                for n in partners:
                    out[n] = _call("pool.column", json.dumps(kind), var, json.dumps(n))
                return out
        return {}

    def _under_record_set(self) -> bool:
        """Whether the nested value being written sits beneath a DNS record set (a comment
        of ``rrsets[]``): ``self.scope`` names each nested model from the outermost."""
        service = self.w.plan.service
        return any(
            vocab.meaning("type", f"{service}.{s}") == "dns_record_type" for s in self.scope[:-1]
        )

    def _record_type(self, model: ModelPlan, who: str) -> tuple[str, str] | None:
        """A DNS record set's type (``rrsets[].type``), drawn before the record set's
        records (``rrsets[].records[].content``) so that what they hold fits it; its names
        end in a dot where the spec's own names do ("e.g. www.powerdns.com.")."""
        if who == "p":
            return None
        for f in model.fields:
            if f.type.kind is not Kind.STR:
                continue
            if vocab.meaning(f.name, self._where()) != "dns_record_type":
                continue
            var = self._local("record_type")
            self.body.append((var, 'pool.text("dns_record_type", rng)'))
            said = " ".join(str(g.type.schema.get("description") or "") for g in model.fields)
            self.record_types.append((var, bool(_DOTTED.search(said))))
            return f.name, var
        return None

    def _list(self, name: str, spec: TypeSpec, depth: int, who: str) -> Expr:
        found = self._items(name, spec, depth, who)
        least = spec.schema.get("minItems")
        one_item = isinstance(found, Call) and found.brackets == "[]" and len(found.args) == 1
        if one_item and isinstance(least, int) and least > 1:
            assert isinstance(found, Call)
            return Call("", found.args * least, brackets="[]")  # ``minItems: 2``: two of them
        if found != "[]" or not isinstance(least, int) or least < 1 or spec.item is None:
            return found
        # a list the spec says is never empty gets one item of its own type
        self._required_now = True
        one = self._value(singular(name), spec.item, True, False, depth + 1, who)
        return Call("", [(None, one)] * least, brackets="[]") if one is not None else found

    def _items(self, name: str, spec: TypeSpec, depth: int, who: str) -> Expr:
        item = spec.item
        if item is None or depth > 3 or item.kind in (Kind.DICT, Kind.ANY):
            return "[]"
        low = _snake(name)
        if item.semantic == "id" and item.kind is Kind.STR:
            ref = resolve_ref(item.ref, self.collections)
            if ref in self.seeded and depth == 0:
                var = self.refs.get(ref) or self._local(f"{ref}_ids")
                self.refs[ref] = var
                return f"rng.sample({var}, min(len({var}), rng.randint(1, 3)))"
            told = _SUCH_AS.search(str(spec.schema.get("description") or ""))
            if ref is None and told is not None and depth == 0:
                # ids of records this service keeps no collection of (an order's items), in
                # the form the description shows them: an order is never of no items
                one = f"pool.vary({json.dumps(told.group(1))}, rng)"
                return f"[{one} for _ in range(rng.randint(1, 3))]"
            return "[]"
        model = self.models.get(item.model or "") if item.kind is Kind.MODEL else None
        if model is not None and any(f.name == "id" for f in model.fields):
            return "[]"  # nested records (children, replies) are records of their own
        texts = item.kind is Kind.STR  # an enum tagged ``phone`` still draws from the enum
        people = (texts and item.semantic in ("email", "person_name", "phone")) or (
            model is not None
            and any(f.type.semantic in ("email", "person_name") for f in model.fields)
        )
        if people and depth == 0:
            group = self._group(low)
            if model is not None:
                call = self._model(singular(low), model, depth + 1, "p")
                if not isinstance(call, Call):
                    return "[]"
                var = self._local(f"{low}_items")
                self.comprehensions.append((var, call, group.var))
                return var
            attr = {"email": "email", "phone": "phone"}.get(str(item.semantic), "full_name")
            return f"[p.{attr} for p in {group.var}]"
        if item.kind is Kind.STR and item.semantic is None:
            kind = vocab.meaning(low, self._where()) or vocab.meaning(singular(low), self._where())
            if kind and vocab.values_of(kind) and _fits_all(vocab.values_of(kind), item.schema):
                return f'pool.sample("{kind}", rng, rng.randint(1, 3))'
        self._required_now = False  # an item nobody knows the meaning of: an empty list
        one = self._value(singular(name), item, False, False, depth + 1, who)
        if one is None:
            return "[]"
        return Call("", [(None, one)], brackets="[]")

    def _group(self, low: str) -> _Group:
        if low in self.groups:
            return self.groups[low]
        role = singular(role_of(low) or low)
        staff, with_subject, lo, hi = False, True, 0, 2
        if role in ("cc", "bcc", "watcher", "follower"):
            staff, with_subject, lo, hi = True, False, 0, 2
        elif role in ("to", "recipient") and self.message_like and not self.sms:
            inbound = self.noun not in ("draft",)
            staff, with_subject, lo, hi = inbound, not inbound, (1 if inbound else 0), 1
        elif _matches(role, STAFF_ROLES) or role in ("participant_staff",):
            staff, with_subject = True, False
            lo, hi = (2, 6) if role == "member" else (1, 3)
        elif self.staff_roles and not self._has_subject():
            staff, with_subject, lo, hi = True, False, 1, 3  # colleagues travelling together
        var = self._local(low)
        group = _Group(var, staff, with_subject, lo, hi, [g.var for g in self.groups.values()])
        self.groups[low] = group
        if not staff:
            self.uses.add("person")
        return group

    # -- text -------------------------------------------------------------------------------
    def _plan_derived(self, fields: list[FieldPlan]) -> None:
        """Values decided ahead because another field derives from them: a key from a
        name, a MIME type from a file name, an issue key from its project's key."""
        by_name = {f.name: f for f in fields}
        source = by_name.get("name") or by_name.get("title")
        # secret key material is never made from a name (a TSIG key is no "AT")
        derived = [n for n in _DERIVED if n in by_name and not _secret(by_name[n].type, n)]
        derived += [n for n in by_name if self._runs_image(by_name[n])]  # built from the name
        if source is not None:
            kind_ = vocab.meaning(source.name, self.where) or ""
            derived += [n for n in vocab.ROWS.get(kind_, {}) if n in by_name and n not in derived]
        if source is not None and derived and source.type.kind is Kind.STR:
            kind = vocab.meaning(source.name, self.where)
            if kind is not None and vocab.known(kind) and _kind_fits(kind, source.type.schema):
                var = self._local(f"{source.name}_list")
                self.distinct[source.name] = var
                self.pre.append(f'{var} = pool.distinct("{kind}", rng, size)')
                self.forced[source.name] = f"{var}[i]"
                for n in derived:
                    expr = self._derived(n, by_name[n], var, kind)
                    if expr is not None:
                        self.forced[n] = expr
        if (
            "key" in by_name
            and "key" not in self.forced
            and not _secret(by_name["key"].type, "key")
        ):
            expr = self._parent_key(fields)
            if expr is not None:
                self.forced["key"] = expr

    def _derived(self, name: str, f: FieldPlan, names: str, kind: str = "") -> Expr | None:
        example = example_of(f.type.schema)
        pattern = f.type.schema.get("pattern")
        if name in vocab.ROWS.get(kind, {}):  # the code of the ``Travel`` account
            options = f"get_args({f.type.annotation})" if f.type.kind is Kind.ENUM else ""
            args = [json.dumps(kind), f"{names}[i]", json.dumps(name)]
            return _call("pool.column", *args, *([options] if options else []))
        if name in ("mime_type", "content_type"):
            return f"pool.mime({names}[i])"
        if self._runs_image(f):  # a deployment runs its own build
            return f"pool.image(rng, {names}[i])"
        if name in ("host", "hostname"):
            return f"pool.host({names}[i])"
        if name == "path":
            return f'f"/{{{names}[i]}}"'
        if name == "key" or (isinstance(example, str) and re.fullmatch(r"[A-Z][A-Z0-9]+", example)):
            width = max(2, len(example)) if isinstance(example, str) and name != "key" else 10
            if isinstance(pattern, str):
                m = re.search(r"\{\d*,(\d+)\}", pattern)
                width = min(width, int(m.group(1)) + 1) if m else width
            var = self._local(f"{name}s")
            self.pre.append(f"{var} = pool.keys({names}, {width})")
            return f"{var}[i]"
        if isinstance(example, str) and re.fullmatch(r"[a-z0-9-]*[a-z][a-z0-9-]*", example):
            return f"pool.slug({names}[i])"
        if name == "code" and not isinstance(example, str) and f.type.kind is Kind.STR:
            var = self._local("codes")
            self.pre.append(f"{var} = pool.keys({names}, 4)")
            return f"{var}[i]"
        return None

    def _plan_places(self, fields: list[FieldPlan]) -> None:
        """The two ends of a trip by road (a rental's pick-up and drop-off) lie in one
        region: the end is drawn from where the start is, for places whose vocabulary says
        which region each is in."""
        texts = {f.name: f for f in fields if f.type.kind is Kind.STR and f.name not in self.forced}
        for name, f in texts.items():
            end = _pair_end(name, texts)
            kind = vocab.meaning(name, self.where)
            if end is None or kind is None or vocab.meaning(end, self.where) != kind:
                continue
            if "region" not in vocab.ROWS.get(kind, {}) or not _kind_fits(kind, f.type.schema):
                continue
            var = self._local(name)
            self.body.append((var, f'pool.text("{kind}", rng)'))
            self.forced[name] = var
            self.forced[end] = f'pool.near("{kind}", rng, {var})'
            return

    def _parent_key(self, fields: list[FieldPlan]) -> Expr | None:
        """``ENG-142``: a key made of the referenced parent's key and a number."""
        for f in fields:
            ref = resolve_ref(_ref_of(f.type), self.collections)
            target = self.w.plan.records.get(ref or "")
            if target is None or ref not in self.seeded or "key" not in target.fields:
                continue
            if f.type.kind is not Kind.STR:
                continue
            parent = self._parent_record(str(ref))
            self.forced[f.name] = f"{parent}.id"
            first = self._local("first_number")
            self.pre.append(f"{first} = rng.randint(20, 400)")
            return f'f"{{{parent}.key}}-{{{first} + i}}"'
        return None

    def _text(self, name: str, spec: TypeSpec, unique: bool, depth: int, who: str) -> Expr | None:
        node = spec.schema
        low = _snake(name)
        pattern = node.get("pattern") if isinstance(node.get("pattern"), str) else None
        person = who if who and who != "org" else "person"
        dns = ("domain", "hostname")
        if depth > 0 and self.domain_var and vocab.meaning(name, self._where()) in dns:
            typed = [self.record_types[-1][0]] if self.record_types else []
            return _call("pool.under", self.domain_var, "rng", *typed)  # a name in its zone
        if low == "sku" or low.endswith("_sku"):
            self.uses.add("product")
            return "product.sku"
        if _secret(spec, name):  # "The Base64 encoded secret key": key material
            return "pool.secret(rng)"
        if self._product_named(low):
            self.uses.add("product")
            return "product.name"
        if low in ("title", "job_title") and (vocab.is_person_resource(self.resource) or who):
            self.uses.add("person")
            return f"{person}.title"
        if low in ("department", "department_name"):
            if self.staff_subject or who:
                self.uses.add("person")
                return f"{person}.department"
            first = next((j for j, r in enumerate(self.staff_roles) if follows(r)), None)
            if first is not None:  # the department of who handles it (``Cast.colleagues``)
                return f"staff[{first}].department"
        if low == "domain" and not (self.company_subject or self._has_subject()):
            ours = vocab.meaning(name, self.where) or "domain"  # a server's is ``ns1.``...
            if unique and depth == 0:  # a server's host name: one server each
                return self._vocab(name, ours, unique, depth)
            return f'pool.text("{ours}", rng)'  # a server's domain is ours, not a client's
        if low in ("domain", "industry"):
            self.uses.update({"company", "person"})
            return f"company.{low}"
        if low in ("timezone", "time_zone") and who != "p":
            if self.staff_subject or not self._has_subject():
                return "pool.org.timezone"
            self.uses.update({"company", "person"})
            return "company.timezone"
        if low in ("handle", "screen_name") and unique and depth == 0:
            var = self.distinct.get(name) or self._local(f"{name}_list")
            self.distinct[name] = var
            self.pre.append((var, _call("pool.handles", "rng", "size")))
            return f"{var}[i]"  # one account each
        if low in ("handle", "screen_name"):
            self.uses.update({"company", "person"})
            return 'pool.text("handle", rng, company)'
        if low in ("city", "town") and who != "org":
            self.uses.add("person")
            return f"{person}.city"
        if low in ("region", "state", "province") and who and who != "org":
            return f"{person}.region"
        if vocab.meaning(low) in ("postal_code", "street") and who != "org":
            self.uses.add("person")  # a customer's ``zip`` is their postcode, not prose
            return f"{person}.{vocab.meaning(low)}"
        part = next((a for k, a in _ADDRESS_PARTS if low.endswith("_" + k)), None)
        if part is not None and depth == 0:  # ``to_postal_code``: the addressee's
            holder = self._who(role_of(low.rsplit("_" + part, 1)[0] + "_email"))
            return f"{holder}.{part}"
        field = self.record.fields.get(name)
        if _REF_LIKE.search(low) and depth == 0 and field is not None and not field.required:
            return None  # an id of something this service does not hold: not made up
        listed = _ONE_OF.search(str(node.get("description") or ""))
        if listed and not unique:  # "One of: outbound, inbound." in a description
            values = [re.sub(r"^or\s+", "", v.strip()) for v in listed.group(1).split(",")]
            values = [v for v in values if v]
            listed_values = ", ".join(json.dumps(v) for v in values)
            return f"rng.choice(({listed_values}{',' if len(values) == 1 else ''}))"
        kind = vocab.meaning(name, self._where())
        said = str(node.get("description") or "")
        if kind is None and "image" in vocab.tokens(name) and _CONTAINER_WORDS.search(said):
            kind = "container_image"  # "The container image to run"
        fiscal = next((v for v, k in self.window_kinds if k == "fiscal"), None)
        if kind == "fiscal_period" and fiscal is not None and depth == 0:
            # YYYY-MM; strftime would import ``time``, which generated code may not.
            return f"{fiscal}[0].isoformat()[:7]"
        if kind == "job_posting" and not self.staff_roles:
            kind = "staff_title"
        if kind == "event_name" and not self.scope and not _EVENT_FIELDS & set(self.record.fields):
            kind = "meeting_topic"  # a calendar's events are meetings, not conferences
        if kind and kind.startswith("body:") and self._under_record_set():
            kind = "body:dns"  # a comment on a DNS record set is a DNS note
        if kind == "ip_address" and self.record_types:  # a record of a DNS record set
            rtype, dot = self.record_types[-1]
            return _call("pool.dns_content", rtype, "rng", *(["dot=True"] if dot else []))
        if kind is not None and vocab.known(kind) and _kind_fits(kind, node):
            return self._vocab(name, kind, unique, depth)
        field = self.record.fields.get(name) if depth == 0 else None
        required = field.required if field is not None else self._required_now
        return self._unknown(name, spec, unique, pattern, required)

    def _where(self) -> str:
        """What ``vocab.meaning`` reads a field in: ``service.collection``, or the nested
        value being written (``questions``)."""
        return f"{self.w.plan.service}.{self.scope[-1]}" if self.scope else self.where

    def _vocab(self, name: str, kind: str, unique: bool, depth: int) -> Expr | None:
        field = self.record.fields.get(name)
        if unique and depth == 0 and field is not None and not field.unique and _needs(kind):
            # a name that mentions its own client ("Campos PLC expansion", a file named for
            # its company): drawn for the record, again while another record has it
            taken = self.distinct.get(name) or self._local(f"{name}_taken")
            self.distinct[name] = taken
            self.pre.append(f"{taken}: set[str] = set()")
            return _call("pool.fresh", taken, json.dumps(kind), "rng", *self._about(kind))
        if unique and depth == 0:
            var = self.distinct.get(name) or self._local(f"{name}_list")
            self.distinct[name] = var
            field = self.record.fields.get(name)
            example = example_of(field.type.schema) if field else None
            args: list[tuple[str | None, Expr]] = [(None, json.dumps(kind)), (None, "rng")]
            args.append((None, "size"))
            if isinstance(example, str):
                args.append(("avoid", json.dumps(example)))
            self.pre.append((var, Call("pool.distinct", args)))
            return f"{var}[i]"
        if kind == "recurrence" and self.windows and depth == 0:
            # a weekly meeting repeats on the weekday it starts on
            return _call("pool.recurring", f"{next(iter(self.windows.values()))}[0]", "rng")
        asked = self._asked() if kind.startswith("body:") and depth == 0 else None
        if asked is not None:  # a record in its first state: no note of work done on it
            about: list[tuple[str | None, Expr]] = [(None, a) for a in self._about(kind)]
            args = [(None, json.dumps(kind)), (None, "rng"), *about, ("asked", asked)]
            return Call("pool.text", args)
        return _call("pool.text", json.dumps(kind), "rng", *self._about(kind))

    def _names_department(self) -> bool:
        """Whether the record names a department of ours as text (a job's ``department``)
        that its colleagues in roles any department fills belong to."""
        return not self.staff_subject and any(
            _snake(f.name) in ("department", "department_name") and f.type.kind is Kind.STR
            for f in self.record.fields.values()
        )

    def _asked(self) -> str | None:
        """Whether the record is in one of its first states (``vocab.FIRST_STATES``: a
        ``new`` ticket, a ``draft``), as an expression of its status, else None."""
        if self.status_var is None:
            return None
        first = [s for s in self.status_enum if str(s).lower() in vocab.FIRST_STATES]
        if not first:
            return None
        listed = ", ".join(json.dumps(s) for s in first)
        return f"{self.status_var} in ({listed}{',' * (len(first) == 1)})"

    def _about(self, kind: str) -> list[str]:
        """What a templated value may mention, as arguments of ``pool.text``."""
        needs = _needs(kind)
        args = []
        if "person" in needs:
            self.uses.add("person")
            args.append("person")
        if "product" in needs:
            self.uses.add("product")
            args.append("product")
        if "staff" in needs and self.staff_roles:
            args.append("staff[0]")
        if "now" in needs:
            args.append("now")
        return args

    def _unknown(
        self, name: str, spec: TypeSpec, unique: bool, pattern: str | None, required: bool
    ) -> Expr | None:
        """A field whose meaning the vocabulary does not know: the spec's own examples
        (codes varied digit by digit), its pattern; an optional field is left out rather
        than filled with a label, a required one gets neutral prose."""
        node = spec.schema
        example = example_of(node)
        examples = [e for e in (node.get("examples") or ()) if isinstance(e, str)]
        if isinstance(example, str) and example not in examples:
            examples.append(example)
        examples = [e for e in examples if not pattern or _fits(pattern, e)]
        fmt = node.get("format")
        if fmt in ("date", "date-time"):  # a date-time example of a date field is no example
            examples = [e for e in examples if of_format(e, str(fmt))]
        # digits varied one by one make no valid date (``2025-39-17``): formatted values stay
        coded = [e for e in examples if re.search(r"\d", e) and len(e) <= 40 and not fmt]
        # drawable every time, not once: a seed must never fall back to ``""`` (rstr cannot
        # honour lookaheads and backreferences, so some patterns draw only now and then)
        low, high = _length_bounds(node)
        sample = pattern is not None and all(
            regex_sample(pattern, random.Random(f"{name}:{k}"), low, high) is not None
            for k in range(8)
        )
        bounds = [str(low), str(high)] if high is not None else [str(low)] if low else []
        if unique:
            var = self._local(f"{name}_list")
            if coded:
                call = _call("pool.varied", json.dumps(coded[0]), "rng", "size")
            elif sample:
                call = _call("pool.patterned", json.dumps(pattern), "rng", "size", *bounds)
            elif examples:  # the spec's own example, told apart
                call = _call("pool.variants", json.dumps(examples[0]), "rng", "size")
            elif _snake(name) in _NAME_WORDS:  # a name of no known meaning: slugs, not
                # the record's noun with a city ("Cluster role (Lille)")
                call = _call("pool.tokens", json.dumps(f"{self.noun}_name"), "rng", "size")
            else:
                call = _call("pool.distinct", '"reference"', "rng", "size")
            self.pre.append((var, call))
            return f"{var}[i]"
        if coded:  # codes and references: the example's format with other digits
            return _call("pool.vary", json.dumps(coded[0]), "rng")
        if len(examples) > 1:
            return _call("rng.choice", Call("", [(None, json.dumps(e)) for e in examples]))
        if examples:
            return json.dumps(examples[0])
        if sample:
            return _call("pool.pattern", json.dumps(pattern), "rng", *bounds)
        role = singular(_snake(name))
        if role in _WHO_DID and spec.kind is Kind.STR and not (fmt or pattern):
            return f"{self._who(role)}.username"  # ``createdBy``: who did it, not prose
        if not required:
            return None
        limit = node.get("maxLength")
        if isinstance(limit, int) and limit < 40:
            return json.dumps("standard"[:limit] or "n/a")
        fits = not pattern or all(
            _fits(pattern, vocab.token(_snake(name), random.Random(k))) for k in range(12)
        )  # a declared pattern is honoured: tokens are drawn only where they all fit it
        if fits and not _free_text(name, str(node.get("description") or "")):
            # a name, key, type or path: an identifier, or the name of a record it names
            token = _call("pool.token", json.dumps(_snake(name)), "rng")
            return self._name_of_record(name, token) or token
        return f'pool.text("body:{vocab.body_context(self.where)}", rng)'

    def _mail_service(self) -> bool:
        """Whether the service is about e-mail (its name or description says mail), where
        an ``address`` is a mailbox, not a street."""
        plan = self.w.plan
        return bool(re.search(r"(?i)mail|smtp|inbox", f"{plan.service} {plan.description}"))

    def _name_of_record(self, name: str, other: Expr) -> Expr | None:
        """Where text field ``name`` names a record of another collection seeded before
        (``namespace``, ``pod_name``: one of the namespaces, one of the pods), the name of
        one of them (``other`` where none has one); else None."""
        low = _snake(name)
        head = low.removesuffix("_name") if low != "name" else ""
        for target in sorted(self.seeded):
            if not head or singular(target) != head:
                continue
            record = self.w.plan.records[target]
            texts = [f for f in record.fields.values() if f.type.kind is Kind.STR]
            attr = next(
                (f.attr for f in texts if _snake(f.name) == head),  # the address's ``address``
                next((f.attr for f in texts if _snake(f.name) in _RECORD_NAMES), None),
            )
            if attr is not None:
                return _call("pool.name_in", f"self.state.{target}", json.dumps(attr), "rng", other)
        return None


_PARAMS = (
    "self", "pool: SeedPool", "rng: random.Random", "size: int", "now: dt.datetime",
    "owners: dict[str, Any]",
)  # fmt: skip
_KEYWORDS = frozenset(
    {"from", "to", "in", "is", "and", "or", "not", "for", "if", "else", "class", "def",
     "return", "import", "as", "with", "global", "lambda", "pass", "type", "id", "list", "dict",
     "set", "str", "int", "float", "min", "max", "round", "len", "any", "all", "get_args"}
)  # fmt: skip
_SCHEDULED = frozenset(
    {"scheduled", "starts", "start", "event", "meeting", "pickup", "departure", "effective",
     "planned", "appointment", "publish", "arrival", "flight"}
)  # fmt: skip
# Stamps of the moment a record came to be (an application is made when one applies): the
# record's creation, not a moment after it.
_BORN_WITH = frozenset({"applied", "registered", "enrolled", "ordered", "placed", "requested"})
# States of a call that last minutes: what is in one was made just now.
_MOMENTARY = frozenset({"ringing", "dialing", "connecting", "in_progress", "on_hold", "live"})
# Lists of a parent's members (a channel's ``member_emails``) and who writes in it.
_MEMBER_WORDS = frozenset({"member", "members", "participant", "participants"})
_AUTHORS = frozenset({"author", "sender", "from", "poster", "posted_by", "created_by", "user"})
# A parent's money its lines add up to (an expense report's total), by name or by a
# description that says so, and a line's own amount (an expense's), best first.
_TOTALS = frozenset(
    {"total", "total_amount", "amount_total", "grand_total", "total_cost", "total_price",
     "total_value"}
)  # fmt: skip
_SUMMED = re.compile(r"(?i)\b(sum|total) of\b")
_LINE_AMOUNTS = ("amount", "total_amount", "line_total", "amount_total", "total", "total_price",
                 "total_cost")  # fmt: skip
# A parent's stamp after which nothing more goes on it (an expense report's submission).
_SEALS = frozenset({"submitted", "sent", "issued", "filed", "finalized", "finalised"})
# Roles of a colleague's own work e-mail on their own record (``email``, ``work_email``).
_OWN_ROLES = frozenset({"", "work", "primary", "user", "employee", "login"})
# Words naming a person's own address or number, where a pattern hides the semantic type.
_OWN_WORDS = frozenset({"email", "phone", "mobile", "cell", "telephone", "tel"})
_PAY = re.compile(r"salary|(^|_)compensation|(^|_)base_pay")  # yearly pay, not a rate
# A lone start a record is scheduled for, and what is said of it only once it took place.
_STARTS_AT = frozenset({"starts", "start", "scheduled", "appointment"})
_VERDICTS = frozenset(
    {"recommendation", "feedback", "outcome", "result", "rating", "verdict", "decision",
     "score", "scorecard"}
)  # fmt: skip
# A line item's quantity and unit price, by name, best first.
_QUANTITIES = ("quantity", "qty", "units", "count")
_UNIT_PRICES = ("unit_price", "price", "unit_amount", "rate")
_DISCOUNTS = ("discount_percent", "discount_pct", "percent_off", "discount")
# Recurring revenue, what a plan is billed every, whether it is priced per seat.
_RECURRING = re.compile(r"(^|_)(mrr|arr)$|monthly_recurring|annual_recurring")
_INTERVALS = ("interval", "billing_interval", "billing_period", "period", "billing_cycle")
_PER_SEAT = ("per_seat", "is_per_seat", "seat_based")
_COMPANY_FIELDS = frozenset(
    {"company", "company_name", "current_company", "employer", "organization",
     "organisation", "account_name", "client_name", "customer_company"}
)  # fmt: skip
# Nested addresses that are our own (where a parcel ships from, where an event is held).
_ORG_ADDRESSES = frozenset(
    {"ship_from", "from_address", "origin", "return_address", "venue_address",
     "warehouse_address", "sender_address", "origin_address"}
)  # fmt: skip
# Records of our own internal processes: who requests them is a colleague.
_INTERNAL = frozenset(
    {"purchase_order", "requisition", "expense", "expense_report", "leave_request",
     "time_entry", "access_request", "asset", "license", "booking", "po"}
)  # fmt: skip
# Optional fields that exist only once a record reached a state: field word -> states.
_STATE_BOUND = {
    "lost_reason": ("lost", "closed_lost"), "failure_reason": ("failed", "declined"),
    "decline_reason": ("declined", "rejected"), "cancel_reason": ("cancelled", "canceled"),
    "cancellation_reason": ("cancelled", "canceled"), "rejection_reason": ("rejected",),
    "converted": ("converted",), "resolution": ("resolved", "solved", "closed", "completed"),
    "amount_refunded": ("refunded", "partially_refunded"),
    "amount_paid": ("paid", "partially_paid"),  # a sent or overdue invoice has none paid yet
    "tracking": ("shipped", "partial", "fulfilled", "partially_fulfilled", "label_purchased",
                 "in_transit", "out_for_delivery", "delivered", "exception"),  # once labelled
    "trial": ("trialing", "trial", "in_trial"),  # a trial's end while in it
    "duration_seconds": ("completed", "ended", "voicemail", "answered"),  # a call's, once over
}  # fmt: skip
# Initial states a state that follows the main one starts in (an order is ``unfulfilled``).
_STARTS = frozenset({"unfulfilled", "unpaid", "not_started", "pending", "none"})
# A record's states once its business is over or given up: all it may be in under a parent
# closed or cancelled (``pool.as_parent_allows``), and what waits for nothing.
ENDED = frozenset(TERMINAL) | frozenset(
    {"withdrawn", "wont_do", "wontfix", "wont_fix", "abandoned", "obsolete", "duplicate"}
)
# ... and the decisions that end it well: under a closed call for proposals, one was awarded.
_DECIDED = frozenset({"awarded", "accepted", "approved", "granted", "won", "selected", "hired"})
# A parent's states once it is open to outsiders (a job posted, an event on sale): while it is
# a draft, no one outside applies or registers (``pool.not_draft``).
_OPENS = frozenset({"open", "published", "live", "accepting", "accepting_responses", "on_sale"})
# Numbers a record's stage implies (won: 100, lost: 0).
# Records that capture a happening of the record they refer to (a meeting's recording, a
# call's transcript): made while it took place, never before it began.
_CAPTURES = frozenset({"recording", "transcript", "minutes", "attendance", "scorecard"})
# A capture's moment: when it was recorded, started, captured or joined.
_CAPTURE_MOMENTS = frozenset({"recorded", "started", "captured", "joined", "taken"})
# Words of references that name different records by design (a transfer's two ends).
_DIRECTIONS = frozenset(
    {"from", "to", "source", "destination", "origin", "target", "sender", "receiver", "old",
     "new", "primary", "secondary"}
)  # fmt: skip
_NAME_WORDS = frozenset({"name", "title", "label", "display_name", "subject"})
# What a person object calls its person's name (``assignee: {email, name}``).
_OWN_NAMES = frozenset({"name", "display_name", "full_name", "displayname", "fullname"})
_CONTAINER_WORDS = re.compile(r"(?i)\b(container|docker|oci|registry|kubernetes|pod)\b")
# Fields that name the record they are on: one collection's records never share one.
_RECORD_NAMES = frozenset({"name", "title", "label", "display_name"})
# What a customer's account holds (``order_ids``, ``payment_methods``, ``reservations``).
_CUSTOMER_HOLDINGS = frozenset(
    {"order", "orders", "reservation", "reservations", "booking", "bookings", "payment",
     "payments", "subscription", "subscriptions", "cart", "purchase", "purchases"}
)  # fmt: skip
_COMPANY_NOUNS = frozenset({"company", "organization", "organisation", "account", "business"})
_EVENT_FIELDS = frozenset({"venue", "venue_name", "venue_address", "capacity", "ticket_price"})
_DERIVED = ("key", "code", "mime_type", "content_type", "host", "hostname", "path")
# Numbers a record's text may cite ("invoice {ref}").
_CITED = frozenset({"invoice_number", "order_number", "quote_number", "reference"})

_ADDRESS_PARTS = (("postal_code", "postal_code"), ("zip_code", "postal_code"),
                  ("zip", "postal_code"), ("city", "city"), ("region", "region"))  # fmt: skip
# a DNS name written absolute: "MUST have a trailing dot", an example "www.powerdns.com."
_DOTTED = re.compile(r"(?i)trailing dot|\w\.[\"”'’]")
_SECRET_WORDS = re.compile(
    r"(?i)\b(secret[ _-]?key|shared[ _-]?secret|client[ _-]?secret|signing[ _-]?secret|"
    r"private[ _-]?key|hmac[ _-]?key|base[ -]?64[ -]?encoded (secret|key))\b"
)
_SECRET_NAMES = re.compile(
    r"^(\w+_)?(secret|secret_key|shared_secret|client_secret|signing_secret|private_key|hmac_key)$"
)
# what names, points at or measures a secret is not the secret (``secret_name``, ``key_id``)
_ABOUT_A_SECRET = frozenset(
    {"name", "id", "ids", "url", "uri", "path", "file", "arn", "ref", "type", "version",
     "algorithm", "length", "size", "count", "label", "names"}
)  # fmt: skip


# What says a field is free text a person writes (prose belongs there and nowhere else).
_FREE_WORDS = frozenset(
    {"description", "desc", "body", "comment", "comments", "note", "notes", "message", "text",
     "content", "summary", "reason", "memo", "details", "detail", "bio", "about", "remark",
     "remarks", "instructions", "feedback", "explanation", "caption", "story", "request",
     "question", "answer", "observation", "observations", "html", "css", "markdown", "prompt",
     "excerpt", "snippet", "reply", "response", "announcement", "purpose", "notice"}
)  # fmt: skip
_FREE_SAID = re.compile(
    r"(?i)\b(free[- ]?(text|form)|human[- ]readable|(a|the) (short )?(description|comment|note|"
    r"message|explanation|summary) (of|about|for|on)\b)"
)


# A key's size in bits (a crypto key's ``bits``: "The size of the key").
_KEY_BITS = re.compile(r"(^|_)(bits|key_size|key_bits|key_length|bit_length|modulus_length)$")
_KEY_SIZE_SAID = re.compile(r"(?i)\bsize of the key\b|\bkey (size|length)\b")
_IP_SAID = re.compile(r"(?i)\bIP addresses?\b")
# An id shown by example in a description ("each such as '1008292230'").
_SUCH_AS = re.compile(r"(?i)\b(?:such as|e\.g\.|for example)[:,]?\s*['\"“‘]([\w-]*\d[\w-]*)['\"”’]")
_ENDPOINT = re.compile(r"(?i)\bendpoint\b|\bapi\b")


def _as_parent(status: Expr, states: tuple[Any, ...], parent: str, kind: str, attr: str) -> Any:
    """``status`` (a record's state, of ``states``) as its parent (in local ``parent``)
    allows, by its state (``kind`` "state") or its start ("start"), both in ``attr``; None
    where ``states`` hold nothing the parent could rule out."""
    if kind == "state":
        ended = _ended(states)
        if not ended:
            return None
        return _call("pool.as_parent_allows", status, _lit(ended), f"{parent}.{attr}", "rng")
    words = [str(v).lower() for v in states]
    begun = any(place_of(w) in ("live", "past") for w in words)
    waiting = [v for v, w in zip(states, words, strict=True) if place_of(w) == "ahead"]
    waiting = waiting or [v for v, w in zip(states, words, strict=True) if not place_of(w)]
    waiting = [v for v in waiting if str(v).lower() not in ENDED]  # (not "cancelled")
    if not begun or not waiting:
        return None
    return _call("pool.as_parent_began", status, _lit(waiting[0]), f"{parent}.{attr}", "now")


def _ended(states: tuple[Any, ...]) -> tuple[Any, ...]:
    """Of ``states``, those a record may be in under a parent closed or cancelled: ended,
    given up or decided (``ENDED``, ``_DECIDED``)."""
    return tuple(v for v in states if str(v).lower() in ENDED | _DECIDED)


def _state_field_is(f: FieldPlan) -> bool:
    return f.name in STATUS_FIELDS and f.type.kind is Kind.ENUM and f.type.is_text


def _state_field(record: RecordPlan | None) -> FieldPlan | None:
    """The field holding ``record``'s state (its status, stage), or None."""
    if record is None:
        return None
    return next((f for f in record.fields.values() if _state_field_is(f)), None)


def _opens(state: FieldPlan) -> bool:
    """Whether a record with the state field ``state`` is drafted before it opens to others
    (a job posted, an event on sale)."""
    words = {str(v).lower() for v in state.type.enum}
    return "draft" in words and bool(words & _OPENS)


def _free_text(name: str, description: str) -> bool:
    """Whether a text field of no known meaning is prose: its name says so (a ``comment``, a
    ``message``, ``old_text``), or its description calls it free text or a note on
    something. A ``name``, ``key``, ``type``, ``namespace`` or ``trigger`` is not."""
    if set(vocab.tokens(name)) & _FREE_WORDS:
        return True
    return bool(_FREE_SAID.search(description))


def _secret(spec: TypeSpec, name: str) -> bool:
    """Secret key material, by its name (``shared_secret``, ``private_key``) or by what its
    description says it is ("The Base64 encoded secret key"); never a number, an id, or
    what names a secret (``secret_name``)."""
    low = _snake(name)
    if spec.kind is not Kind.STR or spec.semantic == "id" or not low:
        return False
    if low.split("_")[-1] in _ABOUT_A_SECRET:
        return False
    said = str(spec.schema.get("description") or "")
    return bool(_SECRET_NAMES.search(low) or _SECRET_WORDS.search(said))


_REF_LIKE = re.compile(r"^(in_reply_to|reply_to_id|thread_id|message_id|parent_id)$|_id$")
_PRODUCT_NOUNS = frozenset({"product", "item", "price_book_entry", "variant", "listing", "sku"})
# Numbers a kind of record makes plausible: (noun, field) -> (low, high, whole, step).
_BY_RESOURCE: dict[tuple[str, str], tuple[float, float, bool, float]] = {
    ("event", "capacity"): (50, 800, True, 10),
    ("expense", "amount"): (8, 1500, False, 0.01),
    ("payment_link", "amount"): (20, 2500, False, 0.01),
    ("refund", "amount"): (10, 1500, False, 0.01),
    ("property", "nightly_rate"): (90, 480, False, 1),
    ("reservation", "total_price"): (120, 4500, False, 0.01),
    ("pay_run", "employee_count"): (5, 200, True, 1),
    ("segment", "profile_count"): (20, 5000, True, 1),
}


# A bill's stated terms in days: ``payment_terms_days``, ``terms``, ``net_days``.
_TERMS_DAYS = re.compile(r"(^|_)(payment_)?terms?(_in)?(_days)?$|(^|_)(net|due)_days$")


def _terms_days(f: FieldPlan) -> bool:
    """Whether ``f`` states a bill's terms as a number of days."""
    return f.type.kind is Kind.INT and bool(_TERMS_DAYS.search(_snake(f.name)))


def _colleagues_own(record: RecordPlan) -> bool:
    """Whether a collection's records are our colleagues themselves (their accounts, their
    HR files, their technician profiles): a collection of staff, none a customer's account,
    whose records show the person's own work e-mail (a database login only their username:
    made for a cluster, not when they joined)."""
    if not vocab.is_staff_resource(record.resource):
        return False
    if any(set(words(name).split()) & _CUSTOMER_HOLDINGS for name in record.fields):
        return False
    return any(
        f.type.semantic == "email" and role_of(_snake(f.name)) in _OWN_ROLES
        for f in record.fields.values()
    )


def _resource_number(noun: str, low: str) -> tuple[float, float, bool, float] | None:
    return _BY_RESOURCE.get((noun, low))


def _rule(low: str) -> tuple[float, float, bool, float] | None:
    for pattern, lo, hi, whole, step in _NUMBERS:  # the specific meanings first
        if re.search(pattern, low):
            return lo, hi, whole, step
    money = _money(low)
    if money is not None:
        return money[0], money[1], False, 0.01
    return None


def _pair_end(name: str, fields: Any) -> str | None:
    """The field closing a range opened by ``name`` (``starts_at`` -> ``ends_at``,
    ``salary_min`` -> ``salary_max``), when the record has it."""
    tokens = _snake(name).split("_")
    lowered = {_snake(str(n)): n for n in fields}
    for start, ends in _PAIR_TOKENS:
        st = start.split("_")
        for k in range(len(tokens) - len(st) + 1):
            if tokens[k : k + len(st)] != st:
                continue
            for end in ends:
                candidate = "_".join([*tokens[:k], *end.split("_"), *tokens[k + len(st) :]])
                if candidate in lowered and candidate != _snake(name):
                    return lowered[candidate]
                if start == "purchase" and end in lowered:
                    return lowered[end]
    return None


def _numeric_pairs(fields: dict[str, Any]) -> list[tuple[str, str]]:
    numbers = {n: f for n, f in fields.items() if f.type.kind in (Kind.INT, Kind.FLOAT)}
    out = []
    for name in numbers:
        end = _pair_end(name, numbers)
        if end is not None:
            out.append((_snake(name), _snake(end)))
    return out


def _same_money(theirs: TypeSpec, ours: TypeSpec) -> bool:
    """Whether a record's currency field can hold every currency of its parent's: free
    text, or a list of codes that includes the parent's."""
    if ours.kind is Kind.STR:
        return theirs.kind in (Kind.STR, Kind.ENUM)
    return (
        ours.kind is Kind.ENUM and theirs.kind is Kind.ENUM and set(theirs.enum) <= set(ours.enum)
    )


def _phone_like(low: str, spec: TypeSpec) -> bool:
    desc = str(spec.schema.get("description") or "").lower()
    return low in ("to", "from") and ("number" in desc or "e.164" in desc)


def _bool(spec: TypeSpec) -> str:
    default = spec.schema.get("default")
    if isinstance(default, bool):  # the default holds for most records
        return f"rng.random() < {0.8 if default else 0.2}"
    return "rng.random() < 0.5"


def _snake(name: str) -> str:
    """``createdAt`` -> ``created_at``: field names compared in one spelling."""
    return "_".join(vocab.tokens(name)) or name.lower()


def _prune(steps: list[tuple[str, Expr]], tail: list[Expr]) -> list[tuple[str, Expr]]:
    """Loop statements whose variable nothing reads are dropped (no unused locals)."""
    steps = list(steps)
    changed = True
    while changed:
        changed = False
        for k in range(len(steps) - 1, -1, -1):
            target = steps[k][0]
            if target == "record_id":
                continue
            rest = [e for j, (_, e) in enumerate(steps) if j != k] + tail
            if not any(_uses(e, target) for e in rest):
                del steps[k]
                changed = True
    return steps


def _call(head: str, *args: Expr) -> Call:
    """A call the renderer may wrap (generated lines stay within 100 columns)."""
    return Call(head, [(None, a) for a in args])


def _star(call: Call) -> Call:
    return Call(f"*{call.head}", call.args, call.brackets)


def _comprehension(var: str, item: Call, group: str, indent: int) -> list[str]:
    """``var = [Item(...) for p in group]``, laid out as ruff format would."""
    pad = INDENT * indent
    flat = f"{pad}{var} = [{item.flat()} for p in {group}]"
    if len(flat) <= WIDTH:
        return [flat]
    inner = f"{pad}{INDENT}{item.flat()} for p in {group}"
    if len(inner) <= WIDTH:
        return [f"{pad}{var} = [", inner, f"{pad}]"]
    loop = f"{pad}{INDENT}for p in {group}"
    return [f"{pad}{var} = [", *render(item, indent + 1), loop, f"{pad}]"]


def _needs(kind: str) -> set[str]:
    """What ``pool.text`` needs to be given for a kind: templates mentioning a product,
    a person or their company, the clock."""
    out: set[str] = set()
    texts = " ".join(vocab.TEMPLATES.get(kind, ()))
    if "{product}" in texts:
        out.add("product")
    mentions = any(k in texts for k in ("{company}", "{first}", "{city}"))
    if (kind != "venue" and mentions) or kind in (
        "username", "display_name", "person_name", "job_title", "file_name", "handle",
        "company_name",
    ):  # fmt: skip
        out.add("person")
    if kind == "job_posting":
        out.add("staff")
    if any(k in texts for k in ("{year}", "{month}", "{mm}", "{ref}")) or kind in (
        "invoice_number", "quote_number", "reference", "file_name",
    ):  # fmt: skip
        out.add("now")
    return out


def _kind_fits(kind: str, node: dict[str, Any]) -> bool:
    """Whether every value of a kind passes the field's pattern and lengths (checked on
    samples drawn here, at compile time)."""
    pattern = node.get("pattern") if isinstance(node.get("pattern"), str) else None
    lo = node.get("minLength") if isinstance(node.get("minLength"), int) else None
    hi = node.get("maxLength") if isinstance(node.get("maxLength"), int) else None
    if pattern is None and lo is None and hi is None:
        return True
    values = _samples(kind)
    return bool(values) and all(
        (not pattern or _fits(pattern, v))
        and (lo is None or len(v) >= lo)
        and (hi is None or len(v) <= hi)
        for v in values
    )


_SAMPLES: dict[str, list[str]] = {}


def _samples(kind: str) -> list[str]:
    if kind not in _SAMPLES:
        pool = seed_pool(0)
        rng = random.Random(f"samples:{kind}")
        out = list(vocab.values_of(kind))
        for k in range(40):
            about = (pool.people[k % len(pool.people)], pool.products[k % len(pool.products)])
            out.append(pool.text(kind, rng, *about, pool.staff[k % len(pool.staff)]))
        out += pool.distinct(kind, rng, 60)
        _SAMPLES[kind] = out
    return _SAMPLES[kind]


def _fits_all(values: tuple[str, ...], node: dict[str, Any]) -> bool:
    pattern = node.get("pattern") if isinstance(node.get("pattern"), str) else None
    hi = node.get("maxLength") if isinstance(node.get("maxLength"), int) else None
    return all((not pattern or _fits(pattern, v)) and (hi is None or len(v) <= hi) for v in values)


def _money(low: str) -> tuple[float, float] | None:
    for pattern, lo, hi in _MONEY:
        if re.search(pattern, low):
            return lo, hi
    return None


def _counts(low: str) -> bool:
    return any(w in low for w in ("count", "quantity", "qty", "seats", "size"))


def _clamp(lo: float, hi: float, lo_b: Any, hi_b: Any) -> tuple[float, float]:
    if lo_b is not None:
        lo, hi = max(lo, lo_b), max(hi, lo_b)
    if hi_b is not None:
        lo, hi = min(lo, hi_b), min(hi, hi_b)
    return lo, max(lo, hi)


def _after(expr: Expr, after: str) -> Expr:
    """A past stamp drawn after ``after`` rather than after the record's creation."""
    if isinstance(expr, Call):
        args = [(k, after if v == "created" else _after(v, after)) for k, v in expr.args]
        return Call(expr.head, args, expr.brackets)
    return expr.replace("rng, now, created)", f"rng, now, {after})")


def _told_states(schema: dict[str, Any]) -> tuple[str, ...]:
    """The states a value an action is told lives in: a cancel's reason on canceled
    records (ingest marks such a field with the action that tells it)."""
    tool = schema.get(TOLD_BY) if isinstance(schema, dict) else None
    return TARGETS.get(action_word(tool), ()) if isinstance(tool, str) else ()


# A reference to what the record turned into (a lead's converted contact, a ticket merged
# into another): that record came later, so this one's creation does not follow it.
_BECAME = frozenset({"converted", "merged", "replaced", "superseded", "successor", "renewed"})


def _became(name: str) -> bool:
    return bool(_BECAME & set(_snake(name).split("_")))


def _created_first(steps: list[tuple[str, Expr]]) -> list[tuple[str, Expr]]:
    """``created`` moved up to the first step that reads it (a hoisted timestamp drawn after
    the creation moment), when what ``created`` itself reads (a span's start, a referenced
    record) is already there."""
    names = [target for target, _ in steps]
    if "created" not in names:
        return steps
    at = names.index("created")
    users = [i for i, (_, e) in enumerate(steps[:at]) if _uses(e, "created")]
    reads = [n for n in names[:at] if _uses(steps[at][1], n)]
    if not users or any(n not in names[: users[0]] for n in reads):
        return steps
    moved = steps.pop(at)
    steps.insert(users[0], moved)
    return steps


def _fitted(expr: Expr | None, spec: TypeSpec) -> Expr | None:
    """Text the seed draws by a field's name (``"standard"``), fitted to the spec's length."""
    if expr is None or spec.kind is not Kind.STR or spec.semantic == "id":
        return expr
    low, high = _length_bounds(spec.schema)
    flat = expr.flat() if isinstance(expr, Call) else expr
    drawn = flat.startswith(("pattern_text(", "pool.pattern("))  # drawn within the bounds
    if (not low and high is None) or drawn or flat == "None":
        return expr
    args = [flat, str(low)] + ([str(high)] if high is not None else [])
    return f"fit_text({', '.join(args)})"


def _length_bounds(node: dict[str, Any]) -> tuple[int, int | None]:
    """A text field's declared (minLength, maxLength), 0 and None where not declared."""
    low, high = node.get("minLength"), node.get("maxLength")
    low = low if isinstance(low, int) and not isinstance(low, bool) and low > 0 else 0
    high = high if isinstance(high, int) and not isinstance(high, bool) else None
    return low, high


def _fallback(spec: TypeSpec) -> str:
    if spec.kind is Kind.STR:
        return fallback_text(spec)
    return {
        Kind.INT: "0",
        Kind.FLOAT: "0.0",
        Kind.BOOL: "False",
        Kind.LIST: "[]",
        Kind.DICT: "{}",
    }.get(spec.kind, "None")


def _uses(expr: Expr, name: str) -> bool:
    text = expr.flat() if isinstance(expr, Call) else expr
    return re.search(rf"(?<![\w.]){name}\b(?!\s*=[^=])", text) is not None  # not a keyword


def _lit(value: Any) -> str:
    if isinstance(value, tuple):  # as ruff format writes it
        return f"({', '.join(map(_lit, value))}{',' * (len(value) == 1)})"
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _bounds(node: dict[str, Any], integer: bool) -> tuple[Any, Any]:
    lo, hi = node.get("minimum"), node.get("maximum")
    step = 1 if integer else 0.01
    if isinstance(node.get("exclusiveMinimum"), int | float):
        lo = node["exclusiveMinimum"] + step
    if isinstance(node.get("exclusiveMaximum"), int | float):
        hi = node["exclusiveMaximum"] - step
    lo = lo if isinstance(lo, int | float) and not isinstance(lo, bool) else None
    hi = hi if isinstance(hi, int | float) and not isinstance(hi, bool) else None
    if integer:  # an integer's fractional bound is the whole number inside it
        lo = math.ceil(lo) if lo is not None else None
        hi = math.floor(hi) if hi is not None else None
    if lo is not None and hi is not None and hi < lo:
        hi = lo
    return lo, hi


def _fits(pattern: str, value: str) -> bool:
    try:
        return re.search(pattern, value) is not None
    except re.error:
        return True


def _names_country(low: str) -> bool:
    """Whether a field's name says it holds a country (``country``, ``country_code``)."""
    return by_name(tuple(t for t in low.split("_") if t), "string", None) == ("country", None)
