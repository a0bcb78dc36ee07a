"""The generated ``seed()``: records drawn from the shared pool.

Every record takes its people, companies and products from the one pool every service seeds
from (so the customer in the CRM is the sender in the mailbox), dates around the World clock,
enum values from the spec, and ids of records seeded earlier for its references. Collections
are seeded parents first, so references resolve.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from library.compiler.actions import STATUS_FIELDS, TERMINAL
from library.compiler.model import Kind, ModelPlan, RecordPlan, ServicePlan, TypeSpec
from library.compiler.naming import singular, words
from library.compiler.patterns import regex_sample
from library.compiler.source import INDENT, Call, Expr, docstring, render
from library.compiler.values import example_of

# Email/name fields about someone other than the record's subject: a colleague fills them.
STAFF = (
    "owner", "assignee", "approver", "manager", "recruiter", "host", "organizer", "organiser",
    "technician", "agent", "created_by", "updated_by", "uploaded_by", "admin", "sales_rep",
    "rep_", "interviewer", "hiring_manager", "account_manager", "csm",
)  # fmt: skip
_ONE_OF = re.compile(r"\bone of:?\s*((?:[\w-]+,\s*)+(?:or\s+)?[\w-]+)", re.IGNORECASE)
_ID_LIKE = re.compile(r"^([A-Za-z][A-Za-z0-9]*[_-])[A-Za-z0-9]{4,}$")
CONTEXT = ("person", "colleague", "company", "product", "created")


class SeedWriter:
    """Writes ``seed`` and one ``_seed_<collection>`` method per collection."""

    def __init__(self, plan: ServicePlan) -> None:
        self.plan = plan
        self.models = {m.name: m for m in plan.models}
        self.order = seed_order(plan.records)
        self.helpers: set[str] = set()  # module-level helpers the seed code calls

    def methods(self) -> list[str]:
        state = f"{self.plan.cls}State"
        head = f"{INDENT}def seed(self, pool: SeedPool, rng: random.Random, size: int) -> {state}:"
        if len(head) > 100:
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
        if self.order:
            lines.append(f"{INDENT * 2}now = self.now()")
        for record in self.order:
            lines.append(f"{INDENT * 2}self._seed_{record.resource}(pool, rng, size, now)")
        lines.append(f"{INDENT * 2}return self.state")
        for record in self.order:
            lines += ["", *self._collection(record)]
        return lines

    def _collection(self, record: RecordPlan) -> list[str]:
        seeded = {r.resource for r in self.order[: self.order.index(record)]}
        ctx = _Context(record, seeded, set(self.plan.records), self.models, self.helpers)
        values: list[tuple[str | None, Expr]] = []
        for f in record.fields.values():
            expr = ctx.value(f.name, f.type, f.required, f.unique, 0)
            if expr is not None:
                values.append((f.attr, expr))
        pad = INDENT * 2
        head = (
            f"{INDENT}def _seed_{record.resource}("
            "self, pool: SeedPool, rng: random.Random, size: int, now: dt.datetime"
            ") -> None:"
        )
        lines = [head if len(head) <= 100 else _wrapped_head(record.resource)]
        for ref in sorted(ctx.refs):
            lines.append(f"{pad}{ref}_ids = list(self.state.{ref})")
        used = {name for name in CONTEXT if any(_uses(expr, name) for _, expr in values)}
        if "person" in used or "company" in used:
            lines.append(f"{pad}people = rng.sample(pool.people, len(pool.people))")
        if "product" in used:
            lines.append(f"{pad}products = rng.sample(pool.products, len(pool.products))")
        loop = "i" if any(_uses(expr, "i") for _, expr in values) else "_"
        loop = "i" if "person" in used or "company" in used else loop
        loop = "i" if "product" in used else loop
        lines.append(f"{pad}for {loop} in range(size):")
        body = INDENT * 3
        if "person" in used or "company" in used:
            lines.append(f"{body}person = people[i % len(people)]")
        if "colleague" in used:
            lines.append(f"{body}colleague = rng.choice(pool.people)")
        if "company" in used:
            lines.append(f"{body}company = pool.company(person.company)")
        if "product" in used:
            lines.append(f"{body}product = products[i % len(products)]")
        if "created" in used:
            lines.append(
                f"{body}created = now - dt.timedelta(days=rng.randint(1, 90), "
                "minutes=rng.randint(0, 1439))"
            )
        new_id = f"self.new_id({json.dumps(record.id_prefix)})"
        if any(_uses(expr, "record_id") for _, expr in values):
            lines.append(f"{body}record_id = {new_id}")
            new_id = "record_id"
        args: list[tuple[str | None, Expr]] = [("id", new_id), *values]
        lines += put_call(record.resource, record.cls, args, 3)
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


def _wrapped_head(resource: str) -> str:
    return (
        f"{INDENT}def _seed_{resource}(\n{INDENT * 2}self, pool: SeedPool, rng: random.Random, "
        f"size: int, now: dt.datetime\n{INDENT}) -> None:"
    )


def _uses(expr: Expr, name: str) -> bool:
    text = expr.flat() if isinstance(expr, Call) else expr
    return re.search(rf"(?<![\w.]){name}\b(?!\s*=[^=])", text) is not None  # not a keyword


def seed_order(records: dict[str, RecordPlan]) -> list[RecordPlan]:
    """Collections ordered so that a record's required references are seeded before it."""
    deps: dict[str, set[str]] = {}
    for name, record in records.items():
        deps[name] = {
            f.type.ref
            for f in record.fields.values()
            if f.type.semantic == "id" and f.type.ref in records and f.type.ref != name
        }
    order: list[str] = []
    pending = list(records)
    while pending:
        ready = [n for n in pending if deps[n] <= set(order)] or [pending[0]]
        for name in ready:
            order.append(name)
            pending.remove(name)
    return [records[n] for n in order]


class _Context:
    """Seed expressions for the fields of one record."""

    def __init__(
        self,
        record: RecordPlan,
        seeded: set[str],
        collections: set[str],
        models: dict[str, ModelPlan],
        helpers: set[str],
    ) -> None:
        self.helpers = helpers
        self.record = record
        self.seeded = seeded
        self.collections = collections
        self.models = models
        self.refs: set[str] = set()

    def value(
        self, name: str, spec: TypeSpec, required: bool, unique: bool, depth: int
    ) -> Expr | None:
        expr = self._value(name, spec, required, unique, depth)
        if expr is None and required:
            expr = "None" if spec.nullable else self._fallback(spec)
        return expr

    def _value(
        self, name: str, spec: TypeSpec, required: bool, unique: bool, depth: int
    ) -> Expr | None:
        kind, sem = spec.kind, spec.semantic
        low = name.lower()
        who = "colleague" if low.startswith(STAFF) else "person"
        if kind is Kind.ENUM:
            return self._enum(low, spec)
        if sem == "id" and kind is Kind.STR:
            return self._ref(spec, name, required)
        if sem == "email":
            return f"{who}.email"
        if sem == "person_name" or low in ("first_name", "last_name", "full_name"):
            attr = {"first_name": "first_name", "last_name": "last_name"}.get(low, "full_name")
            return f"{who}.{attr}"
        if sem == "phone":
            return f"{who}.phone"
        if sem == "company":
            return "person.company"
        if sem == "address":
            return "company.address"
        if sem == "country":
            return "person.country"
        if sem == "currency":
            return "product.currency"
        if sem == "url":
            return self._url(low, spec)
        if kind is Kind.DATE:
            if "birth" in low or low in ("dob", "birthday"):
                parts = ("rng.randint(1960, 2002)", "rng.randint(1, 12)", "rng.randint(1, 28)")
                return Call("dt.date", [(None, p) for p in parts])
            return "(now + dt.timedelta(days=rng.randint(-60, 60))).date()"
        if kind is Kind.DATETIME:
            if low in ("created_at", "updated_at"):
                return "created"
            return "now + dt.timedelta(hours=rng.randint(-720, 720))"
        if kind is Kind.BOOL:
            return "rng.random() < 0.5"
        if kind in (Kind.INT, Kind.FLOAT):
            return self._number(low, spec)
        if kind is Kind.STR:
            return self._text(low, spec, unique)
        if kind is Kind.LIST:
            if spec.item is None or depth > 3:
                return "[]"
            if spec.item.kind in (Kind.DICT, Kind.ANY):
                return "[]"
            item = self._value(singular(name), spec.item, True, False, depth + 1)
            if item is None:
                return "[]"
            return Call("", [(None, item)], brackets="[]")
        if kind is Kind.MODEL and spec.model in self.models and depth <= 3:
            model = self.models[spec.model]
            args = [
                (f.attr, self.value(f.name, f.type, f.required, False, depth + 1))
                for f in model.fields
            ]
            return Call(model.name, [(a, e) for a, e in args if e is not None])
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
        if not open_states or len(open_states) == len(spec.enum):
            return every
        listed = Call("", [(None, _lit(v)) for v in open_states])
        self.helpers.add("_pick_state")
        return Call(
            "_pick_state", [(None, "rng"), (None, listed), (None, f"get_args({spec.annotation})")]
        )

    def _ref(self, spec: TypeSpec, name: str, required: bool) -> str | None:
        ref = spec.ref
        if ref in self.seeded:
            self.refs.add(ref)  # type: ignore[arg-type]
            return f"rng.choice({ref}_ids)"
        if ref == self.record.resource and required:
            return "record_id"  # a required reference to its own kind: the record itself
        if ref in self.collections and not required:
            return None  # seeded later (a cycle) or itself: left unset rather than dangling
        example = example_of(spec.schema)
        match = _ID_LIKE.match(example) if isinstance(example, str) else None
        prefix = match.group(1) if match else f"{singular(ref or name.removesuffix('_id'))}_"
        return f'f"{prefix}{{rng.getrandbits(32):08x}}"'

    def _url(self, low: str, spec: TypeSpec) -> str:
        home = low == "url" and self.record.resource in ("companies", "accounts", "organizations")
        if home or "website" in low or "domain" in low:
            return 'f"https://{company.domain}"'
        path = singular(self.record.resource).replace("_", "-")
        return f'f"https://{{company.domain}}/{path}/{{i + 1}}"'

    def _number(self, low: str, spec: TypeSpec) -> str:
        node = spec.schema
        lo, hi = _bounds(node, spec.kind is Kind.INT)
        if spec.semantic == "money" or low in ("price", "unit_price", "amount", "total"):
            hi = min(hi, 5000) if hi is not None else 5000
            lo = max(lo, 0) if lo is not None else 0
            if spec.kind is Kind.FLOAT and lo == 0 and hi >= 2500:
                return "round(product.price * rng.randint(1, 2), 2)"
        if lo is None:
            lo = 1 if any(w in low for w in ("count", "quantity", "qty", "seats", "size")) else 0
        if hi is None:
            hi = 2026 if "year" in low else lo + 100
        if "year" in low and lo < 2000:
            lo = max(lo, 2020)
        if spec.kind is Kind.INT:
            return f"rng.randint({int(lo)}, {int(hi)})"
        return f"round(rng.uniform({lo!r}, {hi!r}), 2)"

    def _text(self, low: str, spec: TypeSpec, unique: bool) -> str:
        node = spec.schema
        pattern = node.get("pattern") if isinstance(node.get("pattern"), str) else None
        if low == "sku" or low.endswith("_sku"):
            return "product.sku"
        if low in ("product_name", "product"):
            return "product.name"
        if low == "city":
            return "person.city"
        if low in ("job_title", "title") and self.record.resource in (
            "contacts", "employees", "candidates", "people", "users", "members",
        ):  # fmt: skip
            return "person.title"
        if low == "domain":
            return "company.domain"
        if low == "industry":
            return "company.industry"
        example = example_of(node)
        listed = _ONE_OF.search(str(node.get("description") or ""))
        if listed and not unique:  # "One of: outbound, inbound." in a description
            values = [v.strip() for v in listed.group(1).split(",") if v.strip()]
            listed_values = ", ".join(json.dumps(v) for v in values)
            return f"rng.choice(({listed_values}{',' if len(values) == 1 else ''}))"
        examples = [e for e in (node.get("examples") or ()) if isinstance(e, str)]
        if isinstance(example, str) and example not in examples:
            examples.append(example)
        examples = [e for e in examples if not pattern or _fits(pattern, e)]
        if unique:
            base = examples[0] if examples else words(low).capitalize()
            for form in ('f"{base}-{{i + 1}}"', 'f"{base}{{i + 1}}"', 'f"{base}_{{i + 1}}"'):
                expr = form.format(base=_fstring_text(base))
                if not pattern or all(_fits(pattern, _render(expr, i)) for i in (0, 98)):
                    return expr
            return f'f"{{i + 1}}{_fstring_text(base)}"'
        if len(examples) > 1:
            return f"rng.choice(({', '.join(json.dumps(e) for e in examples)}))"
        if examples:
            return json.dumps(examples[0])
        label = _fstring_text(words(low).capitalize() or "Value")
        if pattern:
            slug = re.sub(r"[^a-z0-9]+", "-", low).strip("-") or "value"
            for form in (f'f"{slug}-{{i + 1}}"', f'f"{slug}{{i + 1}}"'):
                if all(_fits(pattern, _render(form, i)) for i in (0, 98)):
                    return form
            sample = regex_sample(pattern, random.Random(low))
            if sample is not None:
                return json.dumps(sample)
        return f'f"{label} {{i + 1}}"'

    def _fallback(self, spec: TypeSpec) -> str:
        return {
            Kind.STR: '""',
            Kind.INT: "0",
            Kind.FLOAT: "0.0",
            Kind.BOOL: "False",
            Kind.LIST: "[]",
            Kind.DICT: "{}",
        }.get(spec.kind, "None")


def _lit(value: Any) -> str:
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
    if lo is not None and hi is not None and hi < lo:
        hi = lo
    if lo is not None and hi is None:
        hi = lo + 100
    return lo, hi


def _fits(pattern: str, value: str) -> bool:
    try:
        return re.search(pattern, value) is not None
    except re.error:
        return True


def _fstring_text(text: str) -> str:
    return json.dumps(text)[1:-1].replace("{", "{{").replace("}", "}}")


def _render(expr: str, i: int) -> str:
    """The value an ``f"...{i + 1}"`` seed expression takes for index ``i``."""
    body = expr[2:-1].replace("{i + 1}", str(i + 1))
    return json.loads(f'"{body}"').replace("{{", "{").replace("}}", "}")
