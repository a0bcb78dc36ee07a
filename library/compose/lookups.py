"""Steps that find records: the opening lookup of something a user can name, lookups of
the same entity in other services, reference fetches; and the records they inject (decoys
for selection rules, distractors, the record a cross-service lookup must find)."""

from __future__ import annotations

import datetime as dt
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, get_args

from library.compiler.actions import STATUS_FIELDS
from library.compose.binding import Binding, money_received
from library.compose.catalog import (
    FETCH,
    LOOKUP,
    CollectionInfo,
    Param,
    ToolInfo,
    ref_collection,
    title,
)
from library.compose.coherence import (
    FINAL,
    OPT_OUT_FLAGS,
    born_after,
    double_booked,
    gives_back,
    gives_back_untaken,
    money_taken,
    moved_after,
    not_yet_sent,
    out_of_its_time,
    predates,
    range_pairs,
    sends_back,
    status_of,
    work_over,
)
from library.compose.context import Entity, Fact, field_words, ties
from library.compose.env import naming_fields, strings_in
from library.compose.inject import clone, fresh_key, new_id, shifted
from library.compose.plan import QUERY_PARAMS, Bound, Step, id_alone, show, user_knowable
from library.compose.realism import (
    LARGEST,
    LATEST,
    MATCHING,
    Rule,
    apply_rule,
    categories,
    matching_literal,
    picks_by,
    rule_options,
    rule_text,
    rule_words,
)
from library.compose.roles import (
    EXTERNAL_ROLES,
    PERSON_KEYS,
    hands_over,
    is_staff_role,
    names_person,
    present_fields,
    role_of,
)
from library.compose.topics import ASKED_BY_COLLEAGUES, asked_by_colleague, matter_texts
from library.compose.walk_state import Reject, as_record, found_records
from library.runtime.service import Record
from library.seed.pool import (
    BIRTH_FIELDS,
    LIKELIHOOD_FIELDS,
    SeedPool,
    grade_order,
    graded_score,
    in_band,
    lifecycle_rank,
    score_range,
)
from library.seed.vocab import is_person_resource, meaning
from library.seed.vocab import role_of as field_role


def moved_with(
    base: Record, name: str, old: Any, new: Any, now: dt.datetime | None = None
) -> dict[str, Any]:
    """The changes that move field ``name`` of a copy of ``base`` from ``old`` to ``new``
    while keeping its ranges ordered: the other end of a start/end pair moves by the same
    amount, and a record is never updated before it was created. A step of the record's
    lifecycle (its creation, when it was sent or approved) moves the whole lifecycle as
    one, back in time where forward would put any of it after ``now``."""
    changes: dict[str, Any] = {name: new}
    fields = type(base).model_fields
    dated = isinstance(new, dt.date) and isinstance(old, dt.date)
    if dated and now is not None and _in_lifecycle(name):
        life = {
            f: v
            for f in fields
            if _in_lifecycle(f) and type(v := getattr(base, f, None)) is type(new)
        }
        delta = new - old
        if any(_moment(v + delta) > now for v in life.values()):
            delta = -delta  # what happened lies in the past
        return {f: v + delta for f, v in life.items()} | {name: old + delta}
    numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (new, old))
    if numeric and name in _FROM_LINES:
        repriced = _repriced(base, old, new)
        if repriced is not None:
            return repriced
    if dated or numeric:
        delta = new - old
        for start, end in range_pairs(fields):
            other = end if name == start else start if name == end else None
            value = getattr(base, other, None) if other else None
            if other and type(value) is type(new) and (dated or numeric):
                changes[other] = value + delta  # the other end moves as far
    total = getattr(base, "total", None)
    if numeric and name in _CHARGES and isinstance(total, float):
        changes["total"] = round(total + new - old, 2)  # a charge moves the total it is part of
    changes |= _graded_with(base, name, new)
    changes |= _likely_as(base, name, new)
    if name == "created_at" and "updated_at" in fields:
        updated = getattr(base, "updated_at", None)
        if isinstance(updated, dt.datetime) and isinstance(new, dt.datetime) and updated < new:
            changes["updated_at"] = new
    return changes


def _graded_with(base: Record, name: str, new: Any) -> dict[str, Any]:
    """A score and the label that grades it move together: a copy whose health score
    changes takes the band's label, and one relabelled takes a score in the label's band."""
    fields = type(base).model_fields
    numbers = [f for f in fields if type(getattr(base, f, None)) in (int, float) and f != name] + (
        [name] if type(new) in (int, float) else []
    )
    pairs = [(label, graded_score(label, numbers)) for label in fields]
    for label, score in pairs:
        if score is None or name not in (label, score):
            continue
        ordered = grade_order(get_args(fields[label].annotation) or ())
        if ordered is None:
            continue
        info = fields[score]
        bounds = {type(m).__name__: m for m in info.metadata}
        low = getattr(bounds.get("Ge"), "ge", None)
        high = getattr(bounds.get("Le"), "le", None)
        low, high = score_range(low, high, info.description or "")
        if name == score:
            return {label: SeedPool.band(new, ordered, low, high)}
        if new in ordered:
            whole = isinstance(getattr(base, score, None), int)
            return {score: in_band(new, ordered, low, high, whole)}
    return {}


def _likely_as(base: Record, name: str, new: Any) -> dict[str, Any]:
    """A copy moved to another stage has the win probability it implies: 100 once won, 0
    once lost, neither while open (``SeedPool.likelihood``)."""
    if name not in STATUS_FIELDS:
        return {}
    fields = type(base).model_fields
    stages = get_args(fields[name].annotation) or ()
    return {
        f: SeedPool.likelihood(new, drawn, stages)
        for f in fields
        if LIKELIHOOD_FIELDS.search(f) and type(drawn := getattr(base, f, None)) in (int, float)
    }


# Money a record's lines make (the parts that scale with them; ``total`` adds the rest).
_FROM_LINES = ("subtotal", "tax_total", "total")
# Parts of a record's ``total``.
_CHARGES = ("subtotal", "tax_total", "shipping_total")


def _repriced(base: Record, old: float, new: float) -> dict[str, Any] | None:
    """A total its line makes moves by the line: the quantity of a one-line record scales
    toward ``new``, and the money the line makes scales with it (the subtotal, the tax at
    the same rate; the total is their sum with the shipping), so the total stays the sum
    of its parts. None where the record has no such line."""
    lines = [
        (f, items)
        for f in type(base).model_fields
        if isinstance(items := getattr(base, f, None), list)
        and len(items) == 1
        and isinstance(getattr(items[0], "quantity", None), int | float)
    ]
    if len(lines) != 1 or not old:
        return None
    field, (line,) = lines[0]
    quantity = line.quantity
    wanted = max(1, round(quantity * new / old))
    if wanted == quantity:
        wanted = quantity + 1 if new > old or quantity == 1 else quantity - 1
    factor = wanted / quantity
    changes: dict[str, Any] = {
        field: [line.model_copy(update={"quantity": type(quantity)(wanted)})]
    }
    parts = [f for f in ("subtotal", "tax_total") if isinstance(getattr(base, f, None), float)]
    for f in parts:
        changes[f] = round(getattr(base, f) * factor, 2)
    total = getattr(base, "total", None)
    if isinstance(total, float) and parts:
        shipping = getattr(base, "shipping_total", None) or 0.0
        changes["total"] = round(sum(changes[f] for f in parts) + shipping, 2)
    elif isinstance(total, float):
        changes["total"] = round(total * factor, 2)
    return changes


def holding(records: list[Record], name: str, value: Any) -> list[Record]:
    """The records to copy a decoy with ``value`` in ``name`` from: those that already hold
    it where any does, so what goes with a state comes along (a lost deal's probability, a
    canceled booking's reason), else all of them."""
    return [r for r in records if getattr(r, name, None) == value] or records


def _in_lifecycle(name: str) -> bool:
    """Whether a time field records a step of its record's lifecycle (see ``LIFECYCLE``)."""
    return name in ("created_at", "updated_at") or lifecycle_rank(name) is not None


def _moment(value: dt.date) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
    return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)


def _paged(data: Any, found: list[tuple[str, dict[str, Any]]]) -> bool:
    """Whether a list output says more records match than it returned."""
    total = data.get("total") if isinstance(data, dict) else None
    return isinstance(total, int) and total > len(found)


_DUE = re.compile(r"(^|_)(due|deadline)(_|$)")  # when work must be done by
_SEARCHABLE_NAMES = frozenset({"name", "title", "subject", "full_name", "display_name"})


class Lookups(Binding):
    """The read steps of a walk, and the records they need in the state."""

    # -- the opening lookup ---------------------------------------------------------------
    def _start(self) -> bool:
        # A request opens on its matter or its person, not on a record many matters point
        # at (a hotel property, a plan, a room): "about the property Harbour View" is no
        # one's request.
        starts = [
            t
            for t in self.env.starts
            if t.service not in self.avoid_start
            and (t.service, t.collection) not in self.env.catalogs
        ]
        if not starts:
            return False
        by_service: dict[str, list[ToolInfo]] = {}
        for t in starts:
            by_service.setdefault(t.service, []).append(t)
        services = sorted(by_service)
        home = sorted(set(services) & (self.start_services() or set()))
        at_work = self.work_starts()
        for i in range(self.cfg.tries_per_step):
            # Most workflows open where their work is done; some from a record elsewhere.
            # Every fourth try (the second first) opens on the very records the work acts
            # on: in a service with many ways in, most of them find something else.
            if at_work and i % 4 == 1:
                tool = self.rng.choice(at_work)
                if self._hopeless_opening(tool):
                    continue
                if self._attempt_start(tool) is not None:
                    return True
                continue
            pick = home if home and i % 4 != 3 else services
            tool = self.rng.choice(by_service[self.rng.choice(pick)])
            if self._hopeless_opening(tool):
                continue
            step = self._attempt_start(tool)
            if step is not None:
                return True
        return False

    def start_services(self) -> frozenset[str] | None:
        """Services a walk should open in (None: any)."""
        return None

    def _hopeless_opening(self, tool: ToolInfo) -> bool:
        """Whether to pass over an opening that seldom led this run's walks for the same
        workflow to its work (``Balance.opening_odds``)."""
        if self.opening_odds is None or self.motif is None:
            return False
        return self.rng.random() >= self.opening_odds(self.motif.name, tool.qualified)

    def mail_request(self) -> tuple[str, str, str] | None:
        """(subject, body, reason) of the e-mail the request arrives in, or None."""
        return None

    def _as_request(self, service: str, coll: str, anchor: Record) -> Record:
        """A request that arrives by e-mail opens on the sender's message asking for the
        work ("Please cancel my order"), not on whatever mail they were copied on: a copy
        of the anchor with the request's words, and no one else copied."""
        request = self.mail_request()
        if request is None:
            return anchor
        self.asked_reason, self.by_mail = request[2], True
        fields = type(anchor).model_fields
        changes: dict[str, Any] = {}
        for name in fields:
            kind = meaning(name) or ""
            if name == "subject" or kind == "email_subject":
                changes[name] = request[0]
            elif name in ("body", "text", "content", "message") or kind.startswith("body"):
                changes[name] = request[1]
            elif role_of(name) in ("cc", "bcc") and not fields[name].is_required():
                changes[name] = None
        changes |= self._lately(anchor)
        if not changes:
            return anchor
        try:
            copy = clone(anchor, new_id(self.world, service, coll, anchor.id, self.rng), changes)
        except ValueError:
            return anchor
        self._inject(service, coll, copy)
        return copy

    def _lately(self, record: Record) -> dict[str, Any]:
        """A request that is waiting on us came in lately: ``record``'s times moved
        together (their order kept) so that the last is a few hours to three days ago."""
        now = self.base.clock
        times = {
            n: v for n, v in record.model_dump().items() if isinstance(v, dt.datetime) and v.tzinfo
        }
        if not times:
            return {}
        ago = dt.timedelta(minutes=self.rng.randint(3 * 60, 3 * 24 * 60))
        delta = now - ago - max(times.values())
        if delta <= dt.timedelta(0) and max(times.values()) <= now:
            return {}  # already lately (and nothing ahead of now)
        return {n: (v + delta).replace(microsecond=0) for n, v in times.items()}

    def work_starts(self) -> list[ToolInfo]:
        """Start tools that find the records the walk's work acts on (none: no workflow)."""
        return []

    def core_work(self, tool: ToolInfo) -> bool:
        """Whether a tool is the walk's workflow's own work (False: no workflow)."""
        return False

    def may_act_on(self, service: str, collection: str) -> bool:
        """Whether the walk's work can write to a record of this collection (which is
        what makes choosing the right one checkable)."""
        return True

    def _attempt_start(self, tool: ToolInfo) -> Step | None:
        before = self.world.snapshot()
        self.call_people = {}
        try:
            step = self._open(tool)
        except Reject as exc:
            self.failures[exc.reason] = self.failures.get(exc.reason, 0) + 1
            step = None
        if step is None:
            self.world.restore(before)
            self.injections.clear()
            self.decoys.clear()
            self.entities.clear()
            self.facts.clear()
            self.asked_reason, self.by_mail = "", False
            return None
        self.used.add(tool.qualified)
        self.services.append(tool.service)
        self.steps.append(step)
        return step

    def _open(self, tool: ToolInfo) -> Step | None:
        coll = str(tool.collection)
        info = self._coll(tool.service, coll)
        ids = sorted(getattr(self.world.services[tool.service].state, coll))
        if not ids or info is None:
            raise Reject("start_empty")
        anchor = getattr(self.world.services[tool.service].state, coll)[self.rng.choice(ids)]
        if tool.service in self.env.inboxes:
            anchor = self._as_request(tool.service, coll, anchor)
        record = anchor.model_dump(mode="json")
        choices: list[tuple[Param, str]] = []
        naming = self.env.naming(tool)
        person = is_person_resource(coll)
        for p in tool.params:
            if p.name in QUERY_PARAMS and p.type == "string":
                for fname, meta in sorted(info.fields.items()):
                    value = record.get(fname)
                    if not isinstance(value, str) or not 2 < len(value) <= 60:
                        continue
                    if person and meta.key == "company":
                        continue  # a candidate is found by who they are, not where they work
                    if meta.key is None and not _reads_as_a_name(value):
                        continue  # "the input 'Flagged during the weekly review.'": a note
                    if user_knowable(meta.key) or fname in _SEARCHABLE_NAMES:
                        choices.append((p, fname))
            elif user_knowable(p.key) or (p.type == "string" and p.name in naming):
                fname = self._field_for(p, info)
                value = record.get(fname) if fname else None
                if not isinstance(value, str):
                    continue
                if p.key is None and not _reads_as_a_name(value):
                    continue  # named by a note's sentence: no one names a record so
                if p.key in PERSON_KEYS and not self._fits_role(p.name, str(p.key), value):
                    continue  # a seeded record whose staff field holds a customer
                choices.append((p, fname))
            elif p.name == tool.own and p.quoted and re.fullmatch(p.quoted, anchor.id):
                choices.append((p, "id"))  # a booking reference, a username: theirs to quote
        if not choices:
            if self.env.listing(tool):
                return self._open_listing(tool, info, anchor.id)
            raise Reject("start_unbindable")
        p, fname = self.rng.choice(choices)
        value = anchor.id if fname == "id" else record[fname]
        search = p.name in QUERY_PARAMS and p.type == "string"
        args = {p.name: value}
        if any(q.required and q.name != p.name for q in tool.params):
            raise Reject("start_unbindable")
        text = {
            "kind": LOOKUP,
            "service": title(tool.service),
            "noun": info.noun,
            "nouns": info.nouns,
        }
        if search:
            text["search"] = show(value)
        else:
            text["by"] = [[field_words(p.name if fname == "id" else fname), show(value)]]
        if fname == "id":
            # fetched by the id the user quotes: that record and no other, nothing to pick
            envelope = self._call(tool, args)
            found = found_records(envelope["data"], tool.many, info.id_key)
            if [r.get("id") for _, r in found] != [value]:
                raise Reject("fetch_mismatch")
            binds = {p.name: {"from": "user"}}
            return self._found_step(tool, args, binds, text, [value], envelope, found, 0, None, [])
        if not search and self.rng.random() < self.cfg.p_distractor:
            self._distract(tool.service, coll, anchor, fname, info)
        return self._finish_lookup(
            tool, args, {p.name: {"from": "user"}}, text, [value], info, anchor.id, []
        )

    def _open_listing(self, tool: ToolInfo, info: CollectionInfo, anchor: str) -> Step:
        """Open on a service that lists records without filtering: list them and find the
        anchor by a value the user states ("the project whose name is ..."). A plain lookup
        where no other listed record holds that value (the others are only distractors);
        a selection where records seeded to share it differ in what a rule picks by (two
        tasks "Review the Q3 budget", the one due first)."""
        envelope = self._call(tool, {})
        found = found_records(envelope["data"], tool.many, info.id_key)
        if _paged(envelope["data"], found):
            raise Reject("lookup_paged")
        index = next((i for i, (_, r) in enumerate(found) if r["id"] == anchor), None)
        if index is None:
            raise Reject("lookup_misses_anchor")
        record = found[index][1]
        names = []
        for fname in sorted(self.env.naming(tool)):
            value = record.get(fname)
            if not isinstance(value, str) or not 2 < len(value) <= 60:
                continue
            if not _reads_as_a_name(value):
                continue
            same = [r for _, r in found if str(r.get(fname, "")).casefold() == value.casefold()]
            key = info.fields[fname].key
            if len(same) == 1 and (key not in PERSON_KEYS or self._fits_role(fname, key, value)):
                names.append(fname)
        if not names:
            raise Reject("start_unbindable")
        fname = self.rng.choice(names)
        value = record[fname]
        text: dict[str, Any] = {
            "kind": LOOKUP,
            "service": title(tool.service),
            "noun": info.noun,
            "nouns": info.nouns,
            "by": [[field_words(fname), show(value)]],
        }
        base = self._state_record(tool.service, info.name, anchor)
        if (
            base is not None
            # (never a person's namesake: a second "Valerie Morales" is another identity)
            and not is_person_resource(info.name)
            and self.rng.random() < self.cfg.p_selection
            and self.may_act_on(tool.service, info.name)
            and self._shareable(tool.service, info, [fname])
            and self._add_decoys(tool.service, info.name, base, info, [fname])
        ):
            envelope = self._call(tool, {})
            found = found_records(envelope["data"], tool.many, info.id_key)
            if _paged(envelope["data"], found):
                raise Reject("lookup_paged")
        named = [
            (path, r) for path, r in found if str(r.get(fname, "")).casefold() == value.casefold()
        ]
        rule, literals = None, [value]
        if len(named) > 1:
            rule, pick = self._choose(tool.service, info, named, text)
            index = next(i for i, (_, r) in enumerate(found) if r is named[pick][1])
            if rule.kind == MATCHING:
                literals.append(matching_literal(rule.field, rule.value))
        for path, rec in found:
            if all(rec is not r for _, r in named):
                # listed beside it under other names: what the lookup must not return
                self._remember_listed(tool.service, info, rec, path)
        return self._found_step(tool, {}, {}, text, literals, envelope, found, index, rule, [])

    @staticmethod
    def _field_for(p: Param, info: CollectionInfo) -> str | None:
        """The record field a filter parameter compares with."""
        if p.name in info.fields:
            return p.name
        same_key = [n for n, m in sorted(info.fields.items()) if m.key == p.key]
        return same_key[0] if len(same_key) == 1 else None

    # -- lookups --------------------------------------------------------------------------
    def _lookup(self, tool: ToolInfo) -> Step | None:
        coll = tool.collection
        info = self._coll(tool.service, coll)
        if info is None or self._has_entity(tool.service, coll):
            return None
        exclude = (tool.service, coll)
        args: dict[str, Any] = {}
        binds: dict[str, dict[str, Any]] = {}
        sources: list[Fact] = []
        literals: list[str] = []
        by: list[list[str]] = []
        of: list[str] = []
        for p in tool.params:
            if not p.required:
                continue
            facts = self._about_subject(self._facts_for(p, tool.service, exclude))
            fact = self._best(p, facts, tool.service)
            if fact is None:
                return None
            stated = self._as_stated(fact)
            if stated is not None:
                # A person as the request named them: "the tickets whose email is
                # <theirs>", not "... is the respondent email of the response".
                args[p.name], binds[p.name] = fact.value, stated.bind
                by.append([field_words(p.name), stated.phrase])
                literals += stated.literals
                continue
            args[p.name], binds[p.name] = fact.value, Bound.of(fact).bind
            sources.append(fact)
            (of if fact.field == "id" else by).append(
                fact.entity.the if fact.field == "id" else [field_words(p.name), fact.phrase()]
            )
        search = None
        if not args:
            # An optional filter (or a search) on something another record told the agent.
            filters = []
            for p in tool.params:
                if p.name in QUERY_PARAMS and p.type == "string":
                    cands = [
                        f
                        for f in self.facts
                        if user_knowable(f.key)
                        and isinstance(f.value, str)
                        and (f.entity.service, f.entity.collection) != exclude
                        and not f.entity.deleted
                    ]
                    filters += [(p, f) for f in self._about_subject(cands)]
                elif p.key and (user_knowable(p.key) or p.key.startswith("id:")):
                    facts = self._facts_for(p, tool.service, exclude)
                    filters += [(p, f) for f in self._about_subject(facts)]
            if not filters:
                return None
            p, fact = self.rng.choice(filters)
            args[p.name], binds[p.name] = fact.value, Bound.of(fact).bind
            stated = self._as_stated(fact) if p.name not in QUERY_PARAMS else None
            if stated is not None:  # a person, as the request named them
                binds[p.name] = stated.bind
                literals += stated.literals
                by.append([field_words(p.name), stated.phrase])
            else:
                sources.append(fact)
                if p.name in QUERY_PARAMS:
                    search = fact.phrase()
                elif fact.field == "id":
                    of.append(fact.entity.the)
                else:
                    by.append([field_words(p.name), fact.phrase()])
        text: dict[str, Any] = {
            "kind": LOOKUP,
            "service": title(tool.service),
            "noun": info.noun,
            "nouns": info.nouns,
        }
        if search:
            text["search"] = search
        if by:
            text["by"] = by
        if of:
            text["of"] = of
        return self._finish_lookup(tool, args, binds, text, literals, info, None, sources)

    def _about_subject(self, facts: list[Fact]) -> list[Fact]:
        """Facts a lookup may search by: a person searched for is the request's subject
        (a hop to some other person's records is not part of the work)."""
        subjects = self.subjects()
        if not subjects:
            return facts
        return [
            f
            for f in facts
            if f.key not in PERSON_KEYS or self.env.identity(str(f.key), f.value) in subjects
        ]

    def _finish_lookup(
        self,
        tool: ToolInfo,
        args: dict[str, Any],
        binds: dict[str, dict[str, Any]],
        text: dict[str, Any],
        literals: list[str],
        info: CollectionInfo,
        expect: str | None,
        sources: list[Fact],
    ) -> Step:
        coll = info.name
        try:
            envelope = self._call(tool, args)
        except Reject as exc:
            # a read answering an id alone says "not found" where a search lists nothing
            if not tool.id_only or exc.reason != "call_failed:not_found":
                raise
            envelope = {"data": None}
        found = found_records(envelope["data"], tool.many, info.id_key)
        if not found:
            if any(f.entity.created for f in sources):
                # Seeding a record that points at something the plan itself creates would
                # put a future id into the initial state.
                raise Reject("lookup_empty")
            self._supply(tool, args, info)
            envelope = self._call(tool, args)
            found = found_records(envelope["data"], tool.many, info.id_key)
            if not found:
                raise Reject("lookup_empty")
        if expect is not None and all(r["id"] != expect for _, r in found):
            raise Reject("lookup_misses_anchor")
        search = "search" in text
        leavers = self._leavers_work(tool, args, info)
        now = self.base.clock.isoformat()
        if leavers and all(work_over(r, now) for _, r in found):
            raise Reject("nothing_to_hand_over")  # a to-do ticked off, a meeting held
        if leavers and len(found) > 1:
            # A hand-over hands over all of the leaver's live work of a kind: the world gives
            # them one such record, the other live ones are other colleagues'; what they
            # finished stays theirs (none of their work is left behind).
            # (a meeting they held is handed to another too: the one left to hand over is
            # ahead, and no ended one beside it needs telling apart)
            live = [i for i, (_, r) in enumerate(found) if not work_over(r)]
            keep = self.rng.choice([i for i in live if not work_over(found[i][1], now)])
            for i in live:
                if i != keep:
                    self._hand_to_another(tool.service, info, str(found[i][1]["id"]), leavers)
            envelope = self._call(tool, args)
            found = found_records(envelope["data"], tool.many, info.id_key)
        if self._about_the_matter(tool, args, info, found):
            envelope = self._call(tool, args)
            found = found_records(envelope["data"], tool.many, info.id_key)
        if search and len(found) > 1:
            # "Matching" is fuzzy: another way of searching could see another set of
            # records, so a search must single out its record by itself.
            raise Reject("search_ambiguous")
        if (
            not search
            and len(found) == 1
            and self.rng.random() < self.cfg.p_selection
            and self.may_act_on(tool.service, str(coll))
        ):
            base = self._state_record(tool.service, coll, found[0][1]["id"])
            keep = self._filter_fields(tool, args, info)
            if keep and not self._shareable(tool.service, info, keep):
                keep = None
                base = None
            if base is not None and self._add_decoys(
                tool.service, coll, base, info, keep, finished=bool(leavers)
            ):
                envelope = self._call(tool, args)
                found = found_records(envelope["data"], tool.many, info.id_key)
        if _paged(envelope["data"], found):
            raise Reject("lookup_paged")
        if len(found) > self.cfg.max_matches:
            raise Reject("lookup_too_vague")
        rule = None
        index = 0
        if len(found) > 1:
            rule, index = self._choose(tool.service, info, found, text, bool(leavers))
            if rule.kind == MATCHING:
                literals = [*literals, matching_literal(rule.field, rule.value)]
        return self._found_step(
            tool, args, binds, text, literals, envelope, found, index, rule, sources
        )

    def _choose(
        self,
        service: str,
        info: CollectionInfo,
        found: list[tuple[str, dict[str, Any]]],
        text: dict[str, Any],
        leavers: bool = False,
    ) -> tuple[Rule, int]:
        """(the selection rule that picks one of ``found``, the index it picks), its words
        put in ``text``; the others are remembered as its decoys. A real choice only: by
        an order (due first, the largest) or a state or kind (the open one), never by a
        value only one record holds because the request named it."""
        records = [r for _, r in found]
        options = rule_options(records, info)
        if leavers:
            # the leaver's live record is handed over; the rule says why the others stay
            # theirs (the ticket whose status is "open": the others are closed)
            options = [
                o
                for o in options
                if o.field in STATUS_FIELDS and not work_over(records[apply_rule(o, records)])
            ]
        # "the ticket due first" is the first of the open work: never a solved ticket
        options = [
            o
            for o in options
            if not _DUE.search(o.field) or not work_over(records[apply_rule(o, records)])
        ]
        # only a rule a person would state, in their words ("their next booking"): none
        # by a size that is no reason to pick one ("the issue with the most points")
        now = self.base.clock.isoformat()
        said = {o: rule_words(o, records, info, now) for o in options}
        options = [o for o in options if said[o] is not None]
        if not options:
            raise Reject("ambiguous")
        rule = self.rng.choices(options, _reading_weights(options, records))[0]
        index = apply_rule(rule, records)
        text["rule"] = rule_text(rule, info.noun, said[rule])
        text["pick"] = list(said[rule] or ("", ""))
        for path, rec in found:
            if rec is not found[index][1]:
                self._remember_decoy(service, info.name, rec, path, info)
        return rule, index

    def _found_step(
        self,
        tool: ToolInfo,
        args: dict[str, Any],
        binds: dict[str, dict[str, Any]],
        text: dict[str, Any],
        literals: list[str],
        envelope: dict[str, Any],
        found: list[tuple[str, dict[str, Any]]],
        index: int,
        rule: Rule | None,
        sources: list[Fact],
    ) -> Step:
        """The lookup step that found ``found[index]`` (chosen by ``rule`` among several)."""
        coll = str(tool.collection)
        path, record = found[index]
        step_no = len(self.steps)
        # Fields every matching record shares: reading them needs no rule (what the rule
        # decides must show in what later steps read).
        shared = (
            frozenset(k for k in record if all(r.get(k) == record[k] for _, r in found))
            if rule is not None
            else frozenset()
        )
        entity = Entity(
            tool.service,
            coll,
            record["id"],
            record,
            step_no,
            path,
            self._label(tool.service, coll, created=False),
        )
        text["label"] = entity.label
        entity.shared = shared
        self._add_entity(entity)
        for fact in sources:
            if ties(fact.key):
                entity.link(fact.entity)
        return Step(
            tool, args, binds, text, list(literals), envelope, entity, rule, sources=sources
        )

    def _leavers_work(
        self, tool: ToolInfo, args: dict[str, Any], info: CollectionInfo
    ) -> list[str]:
        """The fields by which a lookup finds what the colleague leaving handles (their
        tickets by ``assignee_email``): none outside a hand-over."""
        if not self.hands_work_over() or not self.steps:
            return []
        subjects = self.subjects()
        out = []
        for name, value in args.items():
            p = tool.param(name)
            field = self._field_for(p, info) if p is not None else None
            if (
                field is not None
                and p is not None
                and p.key in PERSON_KEYS
                and isinstance(value, str)
                and hands_over(role_of(field))
                and self.env.identity(str(p.key), value) in subjects
            ):
                out.append(field)
        return out

    def _about_the_matter(
        self,
        tool: ToolInfo,
        args: dict[str, Any],
        info: CollectionInfo,
        found: list[tuple[str, dict[str, Any]]],
    ) -> bool:
        """Messages a customer sent that the request finds (to reply to them) are about
        its matter: in a refund, their mail asks for the refund ("Ordered by mistake"), not
        "Notes from our call", which a reply "your money is on its way" would not answer;
        a candidate's asks for news of their application. A colleague's too, where the work
        is theirs (their trip, their expenses), and elsewhere a colleague's asks for the
        work done for them ("Could you take care of the renewal?"), never a customer's
        "Question about my order". Each found message of theirs the plan did not make is
        given the words of one such message, in place; True where any was. A follow-up's
        conversation can be about anything."""
        if self.motif is None or tool.service not in self.env.inboxes:
            return False
        if self.motif.name == "follow-up":
            return False  # following up on a conversation: whatever it was about
        texts = list(matter_texts(self.motif.name))
        if not self.steps:
            return False  # a request that opens on their mail is theirs already (``_as_request``)
        subjects = self.subjects()
        senders = [
            n
            for n, v in args.items()
            if (p := tool.param(n)) is not None
            and (p.key == "email" or n.lower() in QUERY_PARAMS)
            and role_of(n.lower()) in ("sender", "query")
            and isinstance(v, str)
            and "@" in v  # their address, never words a search shares with the subject line
            and self.env.identity("email", v) in subjects
        ]
        colleague = [n for n in senders if self.env.is_staff("email", args[n])]
        if colleague and self.motif.name not in ASKED_BY_COLLEAGUES:
            texts = list(asked_by_colleague(self.motif.name))
            senders = colleague if texts else []
        if not texts or not senders or len(found) > len(texts):
            return False
        said = {t[0] for t in texts}
        made = {(e.service, e.collection, e.id) for e in self.entities if e.created}
        # what it is about was made before it (no "Please cancel my order" before the order)
        matter = [e.record for e in self.entities if e.service != tool.service and not e.created]
        self.rng.shuffle(texts)
        changed = False
        for (_, row), (subject, body, _) in zip(found, texts, strict=False):
            rid = str(row.get(info.id_key) or row.get("id"))
            base = self._state_record(tool.service, info.name, rid)
            if base is None or (tool.service, info.name, rid) in made:
                continue
            fields = type(base).model_fields
            changes: dict[str, Any] = {}
            for name in fields:
                kind = meaning(name) or ""
                if name == "subject" or kind == "email_subject":
                    if getattr(base, name, None) in said:
                        break  # already about the matter
                    changes[name] = subject
                elif name in ("body", "text", "content", "body_text") or kind.startswith("body"):
                    changes[name] = body
            else:
                if changes and predates(self.env.dumps.dump(base), matter):
                    times = {
                        n: v
                        for n, v in base.model_dump().items()
                        if isinstance(v, dt.datetime) and v.tzinfo
                    }
                    # (how far on, from its id: the walk's random stream stays as it was)
                    share = 0.3 + 0.6 * (zlib.crc32(base.id.encode()) % 1000) / 1000
                    later = moved_after(times, matter, self.base.clock, share)
                    if later is None:
                        continue  # (no time left for it between the matter and now)
                    changes |= later
                try:
                    copy = clone(base, base.id, changes) if changes else None
                except ValueError:
                    continue  # a record the runtime would not take back as it is
                if copy is not None:
                    self._inject(tool.service, info.name, copy)
                    changed = True
        return changed

    def _nothing_left_behind(self) -> None:
        """After a hand-over, the colleague leaving handles nothing else in the services the
        request works in: their live records of kinds the request does not hand over (a
        CRM's leads beside the deals it hands over) are colleagues' in the world, so "hand
        over Ann's work" is the whole of it. Records the plan saw are left as they are."""
        if not self.hands_work_over():
            return
        subjects = self.subjects()
        now = self.base.clock.isoformat()
        seen = {(e.service, e.collection, e.id) for e in self.entities}
        seen |= {(d.service, d.collection, d.id) for d, _ in self.decoys}
        for (service, name), info in self.catalog.collections.items():
            if service not in self.services:
                continue
            # (a lead is a person record, but its owner is a colleague's role like any)
            fields = [
                f
                for f, meta in info.fields.items()
                if meta.key == "email" and hands_over(role_of(f))
            ]
            teams = [  # lists of colleagues in a role (an interview's interviewers)
                f
                for f, meta in info.fields.items()
                if meta.type == "array" and f.endswith("emails") and hands_over(role_of(f))
            ]
            if not fields and not teams:
                continue
            records = getattr(self.world.services[service].state, name, {})
            for rid, record in list(records.items()):
                # (the fields read straight off the record: this runs over every record)
                theirs = [
                    f
                    for f in fields
                    if isinstance(v := getattr(record, f, None), str)
                    and self.env.identity("email", v) in subjects
                ]
                lists = [
                    f
                    for f in teams
                    if any(
                        isinstance(v, str) and self.env.identity("email", v) in subjects
                        for v in getattr(record, f, None) or ()
                    )
                ]
                if not theirs and not lists:
                    continue
                if (service, name, rid) in seen or work_over(record.model_dump(), now):
                    continue
                if theirs:
                    try:
                        self._hand_to_another(service, info, rid, theirs)
                    except Reject:
                        continue  # no colleague to give it to: as it was
                for f in lists:
                    self._off_the_team(service, info, rid, f, subjects)

    def _off_the_team(
        self, service: str, info: CollectionInfo, rid: str, field: str, subjects: set[str]
    ) -> None:
        """The colleague leaving is off a list of colleagues of a live record (an upcoming
        interview's interviewers): another colleague, not on it yet, takes their place."""
        base = self._state_record(service, info.name, rid)
        team = getattr(base, field, None) if base is not None else None
        if base is None or not isinstance(team, list):
            return
        if not any(isinstance(v, str) and self.env.identity("email", v) in subjects for v in team):
            return
        taken = {str(v).casefold() for v in team} | subjects
        others = [p for p in self.env.staff if p.email.casefold() not in taken]
        if not others:
            return
        person = self.rng.choice(others)
        moved = [
            person.email if isinstance(v, str) and self.env.identity("email", v) in subjects else v
            for v in team
        ]
        try:
            record = self._copy(service, info, base, rid, {field: moved})
        except ValueError:
            return
        self._inject(service, info.name, record)

    def _hand_to_another(
        self, service: str, info: CollectionInfo, rid: str, fields: list[str]
    ) -> None:
        """Give seeded record ``rid`` to a colleague who is not leaving, in ``fields`` (and
        the name and phone of their role)."""
        base = self._state_record(service, info.name, rid)
        if base is None:
            raise Reject("lookup_too_vague")
        subjects = self.subjects()
        taken = {id(x) for x in self.staff_roles.values()}
        others = [
            p for p in self.env.staff if p.email.casefold() not in subjects and id(p) not in taken
        ]
        if not others:
            raise Reject("lookup_too_vague")
        person = self.rng.choice(others)
        changes: dict[str, Any] = {}
        for field in fields:
            changes[field] = person.email
            changes |= self._identity_of(info, field, person.email, base)
        try:
            record = self._copy(service, info, base, rid, changes)
        except ValueError:
            raise Reject("lookup_too_vague") from None
        self._inject(service, info.name, record)

    def _shareable(self, service: str, info: CollectionInfo, keep: list[str]) -> bool:
        """Whether other records may be made to hold the values of fields ``keep`` (decoys
        that match the same filter or share the stated name)."""
        if any(self._identifying(service, info.name, f) for f in keep):
            return False  # one shipment has a tracking number: no decoys share it
        # a copy of the person found by their own e-mail is a second identity (three
        # "Valerie Morales" candidates): decoys are of what a person has, not of them
        return not (is_person_resource(info.name) and any(_own_contact(info, f) for f in keep))

    def _remember_listed(
        self, service: str, info: CollectionInfo, rec: dict[str, Any], path: str
    ) -> None:
        """A record a listing showed beside the one the request names: not a decoy of a
        rule (nothing to choose: it holds another name), a record the work must leave be."""
        entity = Entity(service, info.name, rec["id"], rec, len(self.steps), path, info.noun)
        self.decoys.append((entity, "distractor"))

    def _remember_decoy(
        self, service: str, coll: str, rec: dict[str, Any], path: str, info: CollectionInfo
    ) -> None:
        decoy = Entity(service, coll, rec["id"], rec, len(self.steps), path, info.noun)
        self.decoys.append((decoy, "matched"))

    def _filter_fields(
        self, tool: ToolInfo, args: dict[str, Any], info: CollectionInfo
    ) -> list[str] | None:
        """The record fields a lookup's arguments filter on, with the fields naming the
        same person as a filtered e-mail (a decoy for "the customer's tickets" is another
        ticket of that customer); None when an argument maps to no field."""
        out: list[str] = []
        for name in args:
            p = tool.param(name)
            field = self._field_for(p, info) if p is not None else None
            if field is None:
                return None
            out.append(field)
            meta = info.fields[field]
            if meta.key == "email":
                role = role_of(field)
                prefix = field.removesuffix("_email").removesuffix("email")
                out += [
                    f
                    for f, m in info.fields.items()
                    if names_person(f, m.key)
                    and f != field
                    and (role_of(f) == role or (prefix and f.startswith(prefix)))
                ]
        return out

    def _add_decoys(
        self,
        service: str,
        coll: str,
        base: Record,
        info: CollectionInfo,
        keep: list[str] | None = None,
        finished: bool = False,
    ) -> bool:
        """Records a selection rule must tell apart from ``base``: other records that match
        the same filter (``keep``: the filtered fields, copied from ``base``) and differ
        from it in one field a rule can order by. Each is a seeded sibling made to match in
        place, so it differs from the chosen record as another real record does (a copy
        would leave its twin behind: the same mail sent by two people); none where the
        filter is unknown or no sibling is free. With ``finished`` (a hand-over) they are
        the leaver's finished work, siblings already in a final state: a closed ticket
        stays with whoever closed it, the live ones are all handed over."""
        state = getattr(self.world.services[service].state, coll)
        siblings = [state[r] for r in sorted(state) if r != base.id] if keep is not None else []
        kept = base.model_dump() if keep else {}
        people = {kept[f] for f in keep or () if info.fields[f].key in PERSON_KEYS}
        # not a sibling the subject already holds another role on (their own report made
        # one they approve), nor one something else holds or names
        held = self._held(service, self._keeps_owner(info, keep or [])) if siblings else set()
        fitting = [
            r
            for r in siblings
            if not _names_elsewhere(r, info, people, keep or []) and r.id not in held
        ]
        if finished:
            # work they finished is work of their department (a Marketing job is hired for
            # by a Marketing manager)
            fitting = self._of_their_department(info, fitting, *people)
            done = [r for r in fitting if status_of(self.env.dumps.dump(r)) in FINAL]
            made = 0
            if not done:
                # no sibling is finished work yet: one becomes work they finished, its
                # state moved on as a record of that state holds it
                return self._finish_a_sibling(service, info, fitting, kept, keep or [])
            for source in self.rng.sample(done, min(len(done), self.rng.randint(1, 2))):
                if not self._decoy_from(service, info, source, kept, keep or [], {}):
                    break
                made += 1
            return made > 0
        candidates = []
        values_of: dict[str, tuple[Any, ...]] = {}  # the values a level or kind takes
        for name, meta in sorted(info.fields.items()):
            value = getattr(base, name, None)
            if name in ("id", "updated_at") or value is None or (meta.key or "").startswith("id"):
                continue
            if keep and name in keep:
                continue
            kinds = categories(name, meta, (getattr(r, name, None) for r in state.values()))
            if len(kinds) >= 2:
                candidates.append((name, MATCHING))
                values_of[name] = kinds
            elif picks_by(name, meta, value) and shifted(value, self.rng, set()) is not None:
                kind = LATEST if meta.key in ("date", "datetime") else LARGEST
                candidates.append((name, kind))
        if not candidates:
            return False
        # An order (due first, the largest) as likely as a state or kind, however many
        # fields hold kinds: the record's many enums would otherwise make it a state
        # almost always.
        ordered = [c for c in candidates if c[1] != MATCHING]
        kinds = [c for c in candidates if c[1] == MATCHING]
        name, kind = self.rng.choice(
            ordered if ordered and (not kinds or self.rng.random() < 0.5) else kinds
        )
        value = getattr(base, name)
        taken = {value}
        for _ in range(self.rng.randint(1, 2)):
            if kind == MATCHING:
                others = [v for v in values_of[name] if v not in taken and v is not None]
                if not others:
                    break
                live = [v for v in others if _any_live(name, [v])]
                if live and not _any_live(name, taken - {value}):
                    # one decoy at least in another live state (an issue "in_review" beside
                    # the "in_progress" one): the stated state, not common sense, tells them
                    # apart, where the state machine has live states besides the record's
                    others = live
                new = self.rng.choice(others)
            else:
                new = shifted(value, self.rng, taken)
                if new is None:
                    break
            if not fitting:
                break
            # a sibling already in the decoy's state where one is: what goes with the state
            # (a lost deal's probability, a canceled booking's reason) comes along
            source = self.rng.choice(holding(fitting, name, new))
            fitting.remove(source)
            changes = moved_with(source, name, getattr(source, name, value), new, self.base.clock)
            if not self._decoy_from(service, info, source, kept, keep or [], changes):
                break  # (decoys made before this one stay, and the caller must read them)
            taken.add(new)
        return len(taken) > 1

    def _of_their_department(
        self, info: CollectionInfo, records: list[Record], *people: Any
    ) -> list[Record]:
        """The ``records`` a colleague among ``people`` would hold: of a collection whose
        records name a department (a job's), those of the colleague's department where the
        world has any; all of them otherwise."""
        if "department" not in info.fields:
            return records
        departments = {
            str(getattr(person, "department", "") or "")
            for who in people
            if isinstance(who, str) and (person := self.env.person_by_email(who)) is not None
        } - {""}
        theirs = [r for r in records if getattr(r, "department", None) in departments]
        return theirs or records

    def _finish_a_sibling(
        self,
        service: str,
        info: CollectionInfo,
        fitting: list[Record],
        kept: dict[str, Any],
        keep: list[str],
    ) -> bool:
        """A decoy for a hand-over where no sibling is finished: a live one moved to a final
        state of its status (a job filled, a meeting held) and made the leaver's."""
        status = next((f for f in STATUS_FIELDS if f in info.fields and info.fields[f].enum), None)
        if status is None or not fitting:
            return False
        finals = [v for v in info.fields[status].enum if isinstance(v, str) and v in FINAL]
        if not finals:
            return False
        final = self.rng.choice(finals)
        source = self.rng.choice(holding(fitting, status, final))
        changes = moved_with(source, status, getattr(source, status, None), final, self.base.clock)
        return self._decoy_from(service, info, source, kept, keep, changes)

    def _decoy_from(
        self,
        service: str,
        info: CollectionInfo,
        source: Record,
        kept: dict[str, Any],
        keep: list[str],
        changes: dict[str, Any],
    ) -> bool:
        """Make seeded record ``source`` match a lookup's filter in place: ``keep``'s values
        from ``kept`` (the chosen record's), with ``changes``. False where it cannot."""
        rule = set(changes)
        changes = changes | {f: kept[f] for f in keep if f not in rule and f in kept}
        for f in keep:
            if f in rule:
                continue
            if info.fields[f].key in PERSON_KEYS and isinstance(kept.get(f), str):
                # a sibling's record made the subject's: their name goes with their e-mail
                changes |= self._identity_of(info, f, kept[f], source)
                changes |= self._person_ref(service, info, source, f, kept[f])
            elif str(info.fields[f].key or "").startswith("id:"):
                # ... and a sibling made another of the customer's payments goes to them
                key = str(info.fields[f].key)[3:]
                changes |= self._owner_of(service, info, key, str(kept.get(f)), source)
        try:
            record = self._copy(service, info, source, source.id, changes)
        except ValueError:
            return False
        self._inject(service, info.name, record)
        return True

    def _held(self, service: str, keeps_owner: bool) -> set[str]:
        """The ids of ``service`` a record may not be changed in place under: records the
        walk holds (found, decoys) or an output showed so far, and records another lists
        (a customer's ``order_ids``). A change that gives the record to another customer
        (not ``keeps_owner``) also spares every record another one points at (a payment's
        invoice): what hangs on it would name someone else."""
        state = self.world.services[service].state
        key = (id(state), keeps_owner)
        hit = _HELD.get(key)
        if hit is None or hit[0] is not state:
            # States are never changed in place: worked out once per state (every supply asks)
            named: Counter[str] = Counter()
            for coll in type(state).collection_types:
                for record in getattr(state, coll).values():
                    named.update(self._names_in(record, keeps_owner))
            if len(_HELD) >= 20_000:
                _HELD.clear()
            # (a record names its own id once, outside a list)
            hit = _HELD[key] = (
                state,
                {v for v, n in named.items() if n > (0 if keeps_owner else 1)},
            )
        out = set(hit[1])
        out |= {e.id for e in self.entities if e.service == service}
        out |= {d.id for d, _ in self.decoys if d.service == service}
        for step in self.steps:
            if step.tool.service == service:
                out.update(strings_in((step.envelope or {}).get("data")))
        return out

    def _names_in(self, record: Record, lists_only: bool) -> tuple[str, ...]:
        """The strings a record holds (in its lists only, with ``lists_only``), worked out
        once per record: ``_held`` reads every record of a service on every supply."""
        key = (id(record), lists_only)
        hit = _NAMES.get(key)
        if hit is not None and hit[0] is record:
            return hit[1]
        if len(_NAMES) >= 200_000:
            _NAMES.clear()
        found = tuple(
            text
            for value in self.env.dumps.dump(record).values()
            if isinstance(value, list) or not lists_only
            for text in strings_in(value)
        )
        _NAMES[key] = (record, found)
        return found

    @staticmethod
    def _keeps_owner(info: CollectionInfo, fields: Iterable[str]) -> bool:
        """Whether setting ``fields`` leaves a record with whoever it belongs to: only a
        colleague's role (the assignee) or no person changes, not its customer or parent."""
        for f in fields:
            key = str(info.fields[f].key or "") if f in info.fields else ""
            if (key in PERSON_KEYS and not is_staff_role(role_of(f))) or key.startswith("id:"):
                return False
        return True

    def _distract(
        self, service: str, coll: str, anchor: Record, fname: str, info: CollectionInfo
    ) -> None:
        """A record the lookup must not return that could be taken for the anchor: a free
        seeded sibling with another value in the field the user named (someone else's), made
        to share the anchor's title or subject (two customers who both wrote "Question about
        my order"), a record of its own in every other field."""
        # A person's is another person as they are (a namesake would pair someone's name
        # with another's address, a copy another's links with their name).
        person = is_person_resource(coll)
        current = getattr(anchor, fname, None)
        titles = [
            n
            for n in sorted(naming_fields(info))
            if not person
            and n != fname
            and info.fields[n].key is None
            and isinstance(getattr(anchor, n, None), str)
            and not self._identifying(service, coll, n)
        ]
        if not titles and not person:
            return
        records = getattr(self.world.services[service].state, coll, {})
        held = self._held(service, True)
        options = [
            r
            for rid, r in sorted(records.items())
            if rid != anchor.id and rid not in held and getattr(r, fname, None) != current
        ]
        if not options:
            return
        record = self.rng.choice(options)
        if titles:
            try:
                changes = {n: getattr(anchor, n) for n in titles}
                record = self._copy(service, info, record, record.id, changes)
            except ValueError:
                return
            self._inject(service, coll, record)
        rec = record.model_dump(mode="json")
        self.decoys.append((Entity(service, coll, record.id, rec, 0, "", info.noun), "distractor"))

    def _referred(
        self, service: str, info: CollectionInfo, changes: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """The records (JSON rows) of ``service`` that ``changes`` make a record refer to,
        as the request finds them (before the plan's writes: a payment it captures is
        still only authorised there)."""
        kinds = type(self.world.services[service].state).collection_types
        out = []
        for name, value in changes.items():
            key = str(getattr(info.fields.get(name), "key", "") or "")
            coll = ref_collection(key[3:], kinds) if key.startswith("id:") else None
            if coll and isinstance(value, str) and (p := self._at_start(service, coll, value)):
                out.append(self.env.dumps.dump(p))
        return out

    def _at_start(self, service: str, coll: str, rid: str) -> Record | None:
        """Record ``rid`` as the request finds it: as last injected, else as seeded."""
        for i in reversed(self.injections):
            if i.record.id == rid and i.collection == coll and i.service == service:
                return i.record
        return getattr(self._seeded(service), coll).get(rid)

    def _tied_across(
        self, service: str, info: CollectionInfo, base: Record, changes: dict[str, Any]
    ) -> dict[str, Entity]:
        """The records of other services the request holds that a copy of ``base`` made a
        person's names by its fields that refer there: the one it is given, or where
        ``changes`` give it a person's e-mail and no such name, in place of the one ``base``
        named, the one record of theirs the request read, in its currency (a return request
        names the customer's order). A return of an order that has not left yet is refused
        (ValueError)."""
        emails = {
            v.casefold()
            for n, v in changes.items()
            if isinstance(v, str) and getattr(info.fields.get(n), "key", None) == "email"
        }
        own = type(self.world.services[service].state).collection_types
        money = changes.get("currency", getattr(base, "currency", None))

        def theirs(e: Entity) -> bool:  # the person's, in the copy's currency where it has one
            held = {str(v).casefold() for v in e.record.values() if isinstance(v, str)}
            same = sends_back(info.noun) or e.record.get("currency", money) in (None, money)
            return bool(emails & held) and same  # (a return is refunded in the order's)

        out: dict[str, Entity] = {}
        for name, meta in sorted(info.fields.items()):
            key = str(meta.key or "")
            if not key.startswith("id:") or ref_collection(key[3:], own):
                continue
            held = [
                e
                for e in self.entities
                if e.service != service
                and not e.created
                and ref_collection(key[3:], [e.collection]) == e.collection
                and (
                    e.id == changes[name]
                    if name in changes
                    else getattr(base, name, None) is not None and theirs(e)
                )
            ]
            if len(held) != 1:
                continue
            if sends_back(info.noun) and not_yet_sent(held[0].record):
                raise ValueError(f"{info.name}: a return of {held[0].id}, not sent yet")
            out[name] = held[0]
        return out

    def _money_at_odds(self, service: str, info: CollectionInfo, copy: Record) -> bool:
        """Whether ``copy`` is a refund of a charge that took no money, or a charge that
        took none while a refund of it stands (a payment made "authorised" in place)."""
        row = self.env.dumps.dump(copy)
        if gives_back(info.noun):
            refs = {n: row.get(n) for n in info.fields}
            charges = self._referred(service, info, refs)
            return any(gives_back_untaken(row, info.noun, p) for p in charges)
        if money_taken(row):
            return False
        state = self.world.services[service].state  # (refunds the plan makes come after)
        for coll in type(state).collection_types:
            child = self._coll(service, coll)
            if child is None or not gives_back(child.noun):
                continue
            links = [
                n
                for n, m in sorted(child.fields.items())
                if str(m.key or "").startswith("id:")
                and ref_collection(str(m.key)[3:], [info.name]) == info.name
            ]
            records = getattr(state, coll).values()
            if any(getattr(r, n, None) == copy.id for r in records for n in links):
                return True
        return False

    def _copy(
        self, service: str, info: CollectionInfo, base: Record, rid: str, changes: dict[str, Any]
    ) -> Record:
        """A copy of ``base`` under ``rid`` with ``changes``, still one coherent record: a
        business key that names one record (an invoice number) gets a number of its own
        unless the changes set it, and its text follows what changed (the description of
        an invoice's payment names the new number and the new customer's company)."""
        changes = dict(changes)
        keyed: set[str] = set()  # the business keys drawn anew
        records = getattr(self.world.services[service].state, info.name)
        for name in sorted(info.fields):
            held = getattr(base, name, None)
            if (
                name not in changes
                and rid != base.id  # a record changed in place keeps its own numbers
                and isinstance(held, str)
                and self._identifying(service, info.name, name)
            ):
                taken = {str(getattr(r, name, None)) for r in records.values()}
                if (fresh := fresh_key(held, taken, self.rng)) is not None:
                    changes[name] = fresh
                    keyed.add(name)
        said = {  # who and which number the record is about, as its prose may cite them
            old: new
            for name, new in changes.items()
            if (meta := info.fields.get(name)) is not None
            and (meta.key in PERSON_KEYS or str(meta.key).startswith("key:") or name in keyed)
            and isinstance(old := getattr(base, name, None), str)
            and isinstance(new, str)
            and len(old) >= 4
            and old != new
        }
        for name, new in list(said.items()):  # a person's company goes with their e-mail
            was, now = self.env.pool.person_by_email(name), self.env.pool.person_by_email(new)
            if was is not None and now is not None and was.company != now.company:
                said[was.company] = now.company
        for name in type(base).model_fields if said else ():
            text = getattr(base, name, None)
            if name in changes or not isinstance(text, str) or " " not in text.strip():
                continue  # prose only: a one-word value is a field of its own
            moved = text
            for old, new in said.items():
                if old in moved:  # (whole words only: "fulfilled" is not in "unfulfilled")
                    moved = re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", lambda _, n=new: n, moved)
            if moved != text:
                changes[name] = moved
        changes |= self._people_listed(base, said, changes)
        if any(self.env.pool.person_by_email(new) for new in said.values()):
            # a record made someone else's keeps none of its person's wishes (a contact
            # flagged "do not contact" is not Victor's unless Victor asked)
            changes |= {f: False for f in OPT_OUT_FLAGS if getattr(base, f, None) is True}
        changes |= self._unset_in_its_state(base, records, changes)
        across = self._tied_across(service, info, base, changes)
        changes |= {name: e.id for name, e in across.items()}
        for e in across.values():  # (the refund of a return is in the order's currency)
            if "currency" in info.fields and isinstance(e.record.get("currency"), str):
                changes["currency"] = e.record["currency"]
        copy = clone(base, rid, changes)
        now, dump = self.base.clock.isoformat(), self.env.dumps.dump  # (JSON rows, cached)
        named = self._referred(service, info, changes) + [e.record for e in across.values()]
        later = born_after(dump(copy), named, now)
        if later is None:  # (made the customer's, an order would predate its customer)
            raise ValueError(f"{info.name} {rid}: older than the records it refers to")
        copy = clone(base, rid, changes | later) if later else copy
        if self._money_at_odds(service, info, copy):
            raise ValueError(f"{info.name} {rid}: a refund of a payment that took no money")
        if out_of_its_time(dump(copy), now) and not out_of_its_time(dump(base), now):
            # (a stay moved a month on while it says "checked in")
            raise ValueError(f"{info.name} {rid}: its status and its dates disagree")
        others = (dump(r) for r in records.values())
        if double_booked(dump(copy), info.noun, others, present_fields(info)) is not None:
            # (a second stay of the same guest on the same nights, made as a decoy)
            raise ValueError(f"{info.name} {rid}: books its guest twice for the same nights")
        return copy

    def _unset_in_its_state(
        self, base: Record, records: Mapping[str, Record], changes: dict[str, Any]
    ) -> dict[str, Any]:
        """A copy moved to another state leaves what no record in that state holds (a draft
        invoice has nothing paid on it, a ringing call no duration): the fields every other
        record of the collection in that state leaves unset."""
        dump = self.env.dumps.dump
        state = status_of(dict(changes)) if changes else None
        if state is None or state == status_of(dump(base)):
            return {}
        peers = [r for r in records.values() if status_of(dump(r)) == state]
        if not peers and state not in FINAL:
            # none in that state here: an open record leaves unset what every open one
            # does (no open ticket is solved at any time)
            peers = [
                r
                for r in records.values()
                if (other := status_of(dump(r))) is not None and other not in FINAL
            ]
        if not peers:
            return {}  # nothing tells what the state leaves unset
        out: dict[str, Any] = {}
        for name, field in type(base).model_fields.items():
            value = changes[name] if name in changes else getattr(base, name, None)
            if value is None or field.is_required():
                continue
            if name in changes and not isinstance(value, dt.date):
                continue  # what the copy is made to hold stays (a moment moved along with
                # the rest of its lifecycle does not: a "new" ticket is solved at no time)
            if all(getattr(r, name, None) is None for r in peers):
                out[name] = None
        return out

    def _people_listed(
        self, base: Record, said: dict[str, str], changes: dict[str, Any]
    ) -> dict[str, Any]:
        """A copy made someone else's lists them where its source listed its owner (a
        booking's passengers, a reservation's guests): Katherine's copy of Gary's booking
        flies Katherine, not Gary."""
        pool = self.env.pool
        swaps = [
            (was, now)
            for old, new in said.items()
            if (was := pool.person_by_email(old)) is not None
            and (now := pool.person_by_email(new)) is not None
        ]
        out: dict[str, Any] = {}
        for name in type(base).model_fields if swaps else ():
            items = getattr(base, name, None)
            if name in changes or not isinstance(items, list) or not items:
                continue
            rows = [i.model_dump() if hasattr(i, "model_dump") else i for i in items]
            if not all(isinstance(r, dict) for r in rows):
                continue
            if not all("first_name" in r and "last_name" in r for r in rows):
                continue  # not a list of people
            moved = False
            for row in rows:
                for was, now in swaps:
                    if (row["first_name"], row["last_name"]) == (was.first_name, was.last_name):
                        moved = _listed_as(row, now) or moved
            # ... and an outside person's (a customer's trip) lists none of our colleagues:
            # the first such place is theirs, the other colleagues are not on it
            outside = [now for _, now in swaps if not self.env.is_staff("email", now.email)]
            if outside:
                who, kept = outside[0], []
                placed = any(
                    (r["first_name"], r["last_name"]) == (who.first_name, who.last_name)
                    for r in rows
                )
                for row in rows:
                    email = row.get("email")
                    if isinstance(email, str) and self.env.is_staff("email", email):
                        moved = True
                        if placed:
                            continue
                        _listed_as(row, who)
                        placed = True
                    kept.append(row)
                rows = kept
            if moved and rows:
                out[name] = rows
        return out

    def _identity_of(
        self, info: CollectionInfo, fname: str, value: str, base: Record | None = None
    ) -> dict[str, Any]:
        """The fields of ``fname``'s role that must name the owner of ``value`` (an e-mail,
        a phone or a name: their e-mail, name parts, phone, company), so an injected record
        never pairs one person's e-mail with another's name or phone; with ``base`` (the
        record copied), an outside person's addresses on it become theirs too."""
        pool = self.env.pool
        person = (
            pool.person_by_email(value) or pool.person_by_phone(value) or pool.person_by_name(value)
        )
        keyed = {n: m.key for n, m in info.fields.items() if n != fname}
        role = field_role(fname)
        prefix = re.sub(r"_?(email|phone|mobile|name)$", "", fname)
        # A field named like the e-mail (contact_name beside contact_email) is its person's.
        same = {n: k for n, k in keyed.items() if prefix and n.startswith(prefix)}
        if person is None:
            named = {n for n, k in keyed.items() if k == "person_name" or n in same}
            if any(n in same or field_role(n) == role for n in named):
                raise Reject("unknown_person")  # a name nobody could pair with this e-mail
            return {}
        out = self.env.pool.person_fields(person, keyed, role)
        # (a closed set of departments or titles the pool's does not fit stays as it was)
        out = {n: v for n, v in out.items() if not info.fields[n].enum or v in info.fields[n].enum}
        for n in same:
            out |= self.env.pool.person_fields(person, {n: keyed[n]}, field_role(n))
        if role in EXTERNAL_ROLES:
            # The outside party a record is about is one person in every role that names
            # them (a ticket's customer e-mail and its requester name).
            for other in {field_role(n) for n in keyed} & EXTERNAL_ROLES - {role}:
                mine = {n: k for n, k in keyed.items() if field_role(n) == other}
                out |= self.env.pool.person_fields(person, mine, other)
        if base is not None and not is_staff_role(role) and not person.staff:
            for n in keyed:
                held = getattr(base, n, None)
                held = held.model_dump() if hasattr(held, "model_dump") else held
                if isinstance(held, dict) and "city" in held and not _ours(n):
                    out[n] = self.env.pool.address_of(person, held)
            # ... and so is an address laid flat on the record (a user's address1, city, zip)
            flat = {n: getattr(base, n, None) for n in keyed if _address_part(n)}
            if "city" in {meaning(n) for n in flat}:
                out |= self.env.pool.address_of(person, flat)
        return out

    def _person_ref(
        self, service: str, info: CollectionInfo, base: Record, fname: str, email: Any
    ) -> dict[str, Any]:
        """The references of a copy of ``base`` that now names ``email`` in ``fname`` (an
        order copied for Victor): they point at Victor's own record in the service (his
        customer record; a copy of the one ``base`` pointed at, made his, where he has none),
        never at the customer the source belonged to."""
        if is_staff_role(field_role(fname)) or not isinstance(email, str) or "@" not in email:
            return {}
        state = self.world.services[service].state
        names = list(type(state).model_fields)
        out: dict[str, Any] = {}
        for n, m in sorted(info.fields.items()):
            ref = str(m.key or "")
            coll = ref_collection(ref[3:], names) if ref.startswith("id:") else None
            records = getattr(state, coll, None) if coll else None
            current = getattr(base, n, None)
            if not isinstance(records, Mapping) or current not in records:
                continue
            theirs = getattr(records[current], "email", None)
            if not isinstance(theirs, str) or theirs.casefold() == email.casefold():
                continue  # not a person's record, or already theirs
            mine = next(
                (
                    rid
                    for rid, r in sorted(records.items())
                    if str(getattr(r, "email", "")).casefold() == email.casefold()
                ),
                None,
            )
            pinfo = self._coll(service, str(coll))
            if mine is None and pinfo is not None:
                rid = new_id(self.world, service, str(coll), current, self.rng)
                made = {
                    "email": email,
                    **self._identity_of(pinfo, "email", email, records[current]),
                }
                try:
                    copy = self._copy(service, pinfo, records[current], rid, made)
                    self._inject(service, str(coll), copy)
                except ValueError:
                    continue
                mine = rid
            if mine is not None:
                out[n] = mine
        return out

    def _identifying(self, service: str, coll: str, field: str) -> bool:
        """Whether ``field`` names one record of the collection (a tracking number, an order
        number): a business key whose seeded values are all different."""
        info = self._coll(service, coll)
        meta = info.fields.get(field) if info is not None else None
        if meta is None or field == "id" or (meta.key and not meta.key.startswith("key:")):
            return False
        values = [
            getattr(r, field, None)
            for r in getattr(self.world.services[service].state, coll).values()
        ]
        values = [v for v in values if v is not None]
        # a field of no known meaning counts where every value reads as a code (an issue's
        # ``MS-128``): one word with a number in it
        coded = meta.key is not None or all(
            isinstance(v, str) and _CODE.fullmatch(v) for v in values
        )
        return coded and len(values) >= 3 and len(set(map(str, values))) == len(values)

    def _owner_of(
        self, service: str, info: CollectionInfo, target: str, rid: str, base: Record
    ) -> dict[str, Any]:
        """The person fields a record tied to ``rid`` (a payment of a customer) takes from
        the person that record is (the receipt goes to the customer it is charged to), as
        the seed writer ties them; none where the referenced record names no one."""
        state = self.world.services[service].state
        coll = ref_collection(target, [n for n in type(state).model_fields])
        record = getattr(state, coll, {}).get(rid) if coll else None
        if record is None:
            return {}
        own = record.model_dump(mode="json")
        email = next(
            (v for k, v in own.items() if k.lower() == "email" and isinstance(v, str)), None
        )
        if email is None or self.env.pool.person_by_email(email) is None:
            return {}
        return self._owned_by(info, email, base)

    def _owned_by(self, info: CollectionInfo, email: str, base: Record) -> dict[str, Any]:
        """The outside person fields of a copy of ``base`` (a payment's receipt e-mail and
        the rest of that person) made ``email``'s."""
        out: dict[str, Any] = {}
        for n, m in sorted(info.fields.items()):
            role = field_role(n)
            if m.key == "email" and role not in ("",) and not is_staff_role(role):
                out[n] = email
                out |= self._identity_of(info, n, email, base)
        return out

    def _holder_of(self, value: Any) -> tuple[str, Entity] | None:
        """The outside person (an e-mail) on the record the plan read a business key from,
        with that record: the customer of the invoice whose number a payment is looked up
        by."""
        for fact in self.facts:
            if fact.value != value or not str(fact.key or "").startswith("key:"):
                continue
            held = self._coll(fact.entity.service, fact.entity.collection)
            for n, m in sorted(held.fields.items()) if held is not None else ():
                who = fact.entity.record.get(n)
                person = self.env.pool.person_by_email(who) if isinstance(who, str) else None
                if m.key == "email" and person is not None and not person.staff:
                    return str(who), fact.entity
        return None

    def _settling(self, info: CollectionInfo, cited: Entity) -> dict[str, Any]:
        """The money of a payment that cites a record by its number (an invoice's): what
        was paid on that record, in its currency. A record with nothing paid on it (a
        draft invoice) has no payment to find."""
        held = self._coll(cited.service, cited.collection)
        if not money_received(info.name) or held is None:
            return {}
        record = cited.record
        paid = [n for n in sorted(held.fields) if "paid" in n.lower().split("_")]
        if paid and not money_taken(record):
            raise Reject("lookup_empty")
        total = record.get(paid[0]) if paid else record.get("total")
        out: dict[str, Any] = {}
        money = [n for n, m in sorted(info.fields.items()) if m.key == "money"]
        if isinstance(total, int | float) and not isinstance(total, bool) and len(money) == 1:
            out[money[0]] = total
        if "currency" in info.fields and isinstance(record.get("currency"), str):
            out["currency"] = record["currency"]
        return out

    def _supply(self, tool: ToolInfo, args: dict[str, Any], info: CollectionInfo) -> None:
        """Inject the record a cross-service lookup must find: a copy of an existing record
        whose filtered field carries the value (and, for a person, their other details)."""
        state = self.world.services[tool.service].state
        ids = sorted(getattr(state, info.name))
        if not ids or len(args) != 1:
            raise Reject("lookup_empty")
        [(pname, value)] = args.items()
        p = tool.param(pname)
        if p is None or not isinstance(value, str):
            raise Reject("lookup_empty")
        if pname in QUERY_PARAMS:
            fact_key = next((f.key for f in self.facts if f.value == value), None)
            matches = [n for n, m in sorted(info.fields.items()) if m.key == fact_key and fact_key]
            fname = matches[0] if matches else None
        else:
            fname = self._field_for(p, info)
        if fname is None:
            raise Reject("lookup_empty")
        records = getattr(state, info.name)
        # not a record the person already holds another role on (a report they filed is no
        # one they approve)
        fitting = [r for r in ids if not _names_elsewhere(records[r], info, {value}, [fname])]
        if not fitting:
            raise Reject("lookup_empty")
        # A seeded record made theirs in place where one is free: a copy would leave its
        # twin behind (the same issue reported by two people).
        # (whoever it was paid by or is about may change with it: nothing may name it)
        held = self._held(tool.service, keeps_owner=False)
        theirs = self._of_their_department(info, [records[r] for r in fitting], value)
        fitting = [r.id for r in theirs]
        free = [r for r in fitting if r not in held]
        base = records[self.rng.choice(free or fitting)]
        changes: dict[str, Any] = {fname: value}
        meta = info.fields[fname]
        if meta.key in PERSON_KEYS:
            changes.update(self._identity_of(info, fname, value, base))
            changes.update(self._person_ref(tool.service, info, base, fname, value))
        elif (meta.key or "").startswith("id:"):
            changes.update(self._owner_of(tool.service, info, str(meta.key)[3:], value, base))
        elif (held := self._holder_of(value)) is not None:
            # the payment of the invoice whose number it is was paid by that invoice's
            # customer, not by whoever the copied payment was, and paid what was paid on it
            holder, cited = held
            changes.update(self._owned_by(info, holder, base))
            changes.update(self._settling(info, cited))
            for n in sorted(info.fields):
                if changes.get(n) == holder:
                    changes.update(self._person_ref(tool.service, info, base, n, holder))
        # A person's record made someone else's where ids are handles of the holder's name
        # ('matthew_oliver_823') takes a handle of the new holder's name, in place too.
        handle = self._handle_of(records, base, value) if meta.key in PERSON_KEYS else None
        try:
            rid = (
                base.id if free else new_id(self.world, tool.service, info.name, base.id, self.rng)
            )
            copy = self._copy(tool.service, info, base, handle or rid, changes)
        except ValueError:
            raise Reject("lookup_empty") from None
        if not free and _twins(copy, base):
            # a copy that differs from the record it came from in a field or two (one
            # customer account under two managers) is a second of one thing, not another
            raise Reject("lookup_empty")
        replaced = base.id if free and handle else None
        self._inject(tool.service, info.name, copy, replaces=replaced)

    def _handle_of(self, records: Mapping[str, Record], base: Record, value: str) -> str | None:
        """A new id of ``value``'s person's own name where ``base``'s id is a handle of its
        holder's (their first and last names, then digits, as tau's user ids); None where
        it is not, or the person is unknown."""
        found = re.fullmatch(r"([a-z]+)_([a-z]+)_(\d+)", str(base.id))
        person = self.env.pool.person_by_email(value) if isinstance(value, str) else None
        if found is None or person is None:
            return None
        dumped = base.model_dump()
        nested = [v for d in dumped.values() if isinstance(d, dict) for v in d.values()]
        held = {str(v).casefold() for v in [*dumped.values(), *nested] if isinstance(v, str)}
        if not {found.group(1), found.group(2)} <= held:
            return None  # words, not its holder's names
        pattern = rf"[a-z]{{2,12}}_[a-z]{{2,12}}_\d{{{len(found.group(3))}}}"
        return SeedPool.handle_id(person, self.rng, pattern, records)

    def _fetch(self, tool: ToolInfo) -> Step | None:
        """Follow a reference: get the record another record's id field points at, or the
        record a read found by its id alone (``id_alone``: a user's id, then their details)."""
        p = tool.param(str(tool.own))
        coll = tool.collection
        info = self._coll(tool.service, coll)
        if p is None or info is None:
            return None
        held = [e for e in self.entities if e.service == tool.service and e.collection == coll]
        if held and not (len(held) == 1 and id_alone(held[0].record) and not held[0].deleted):
            return None
        refs = [
            f
            for f in self.facts
            if f.field != "id"
            and f.entity.service == tool.service
            and not f.entity.deleted
            and isinstance(f.value, str)
            and (f.key or "").startswith("id:")
            and ref_collection(str(f.key).split(":", 1)[1], [coll]) == coll
        ]
        if held:  # the id the lookup answered
            refs = [f for f in self.facts if f.entity is held[0] and f.field == "id"]
        if not refs:
            return None
        fact = self.rng.choice(refs)
        envelope = self._call(tool, {p.name: fact.value})
        record = as_record(envelope["data"], info.id_key)
        if record is None or record.get("id") != fact.value:
            raise Reject("fetch_mismatch")
        bind, via = Bound.of(fact).bind, fact.phrase()  # as found, before a refresh
        if held:
            # the record found by its id is read in full: later steps bind from this one
            entity = held[0]
            self._refresh(entity, record, len(self.steps), "")
        else:
            entity = Entity(
                tool.service,
                str(coll),
                fact.value,
                record,
                len(self.steps),
                "",
                self._label(tool.service, str(coll), created=False),
            )
            self._add_entity(entity)
            entity.link(fact.entity)
        text = {
            "kind": FETCH,
            "service": title(tool.service),
            "noun": info.noun,
            "via": via,
            "label": entity.label,
        }
        return Step(
            tool,
            {p.name: fact.value},
            {p.name: bind},
            text,
            [],
            envelope,
            entity,
            sources=[fact],
        )


def _names_elsewhere(
    record: Record, info: CollectionInfo, people: set[Any], fields: list[str]
) -> bool:
    """Whether ``record`` holds one of ``people`` (e-mails, phones, names) in a person field
    of another role than ``fields``': a copy putting them in ``fields`` would make one
    person two roles of one record."""
    roles = {field_role(f) for f in fields}

    def holds(value: Any) -> bool:  # one person, or one among a list (a message's ``to``)
        if isinstance(value, list):
            return any(isinstance(v, str) and v in people for v in value)
        return isinstance(value, str) and value in people

    return any(
        (m.key in PERSON_KEYS or m.type == "array")
        and field_role(n) not in roles
        and holds(getattr(record, n, None))
        for n, m in info.fields.items()
        if n not in fields
    )


def _listed_as(row: dict[str, Any], person: Any) -> bool:
    """Make a listed person (a passenger, a guest) ``person``: their names, and their
    e-mail, phone and birth date where the list keeps them. True where anything changed."""
    before = dict(row)
    row.update(first_name=person.first_name, last_name=person.last_name)
    for key, value in (("email", person.email), ("phone", person.phone)):
        if isinstance(row.get(key), str):
            row[key] = value
    for key in BIRTH_FIELDS:
        if row.get(key) is not None:  # one person, one birth date (as the row keeps it)
            born = person.born.date()
            row[key] = born.isoformat() if isinstance(row[key], str) else born
    return row != before


# ``Lookups._names_in``'s memo: (record identity, lists only) -> (record, its strings).
_NAMES: dict[tuple[int, bool], tuple[Record, tuple[str, ...]]] = {}
_HELD: dict[tuple[int, bool], tuple[Any, set[str]]] = {}  # ``Lookups._held``, per state


def _twins(a: Record, b: Record) -> bool:
    """Whether two records agree on at least 80% of their own fields (ids and references
    aside): one record twice, as a reader sees it."""
    one, two = a.model_dump(), b.model_dump()
    keys = [k for k in one if k != "id" and not k.endswith("_id")]
    return bool(keys) and sum(one[k] == two.get(k) for k in keys) >= 0.8 * len(keys)


def _reads_as_a_name(value: str) -> bool:
    """Whether a value can name a record: a name or a title, not a sentence of prose (a
    note's "Flagged during the weekly review." names nothing)."""
    return not value.rstrip().endswith(".") and len(value.split()) <= 8


_CODE = re.compile(r"[A-Za-z0-9_./-]*\d[A-Za-z0-9_./-]*")


_ADDRESS_PARTS = frozenset({"street", "line2", "city", "region", "postal_code"})


def _address_part(field: str) -> bool:
    """Whether a field of a record is a part of an address laid flat on it."""
    return meaning(field) in _ADDRESS_PARTS or field.lower() in ("country", "country_code")


def _ours(field: str) -> bool:
    """Whether a nested address is our own end of a record (where a parcel ships from, a
    venue): it stays when the record is copied for another customer."""
    return any(w in field.lower() for w in ("from", "origin", "return", "venue", "warehouse"))


def _own_contact(info: CollectionInfo, field: str) -> bool:
    """Whether ``field`` is a record's own e-mail or phone (``email``, not ``manager_email``):
    on a record of a person, it is who they are."""
    meta = info.fields.get(field)
    return meta is not None and meta.key in ("email", "phone") and not role_of(field)


def _any_live(field: str, values: Iterable[Any]) -> bool:
    """Whether any of a status field's ``values`` is a live state (not finished business)."""
    return field in STATUS_FIELDS and any(str(v).lower() not in FINAL for v in values)


def _reading_weights(rules: list[Rule], records: list[dict[str, Any]]) -> list[float]:
    """How much each of ``rules`` is worth choosing: one a reader must apply (an order, a
    kind, a state among live states) over one common sense applies for them (the one live
    record among finished ones: no one hands over a closed ticket); a field's worth shared
    among the rules that match its values, so that a field of many values (three
    priorities, three rules) is no likelier than one order."""
    weights: list[float] = []
    for rule in rules:
        if rule.kind != MATCHING or rule.field not in STATUS_FIELDS:
            weight = 3
        else:
            chosen = apply_rule(rule, records)
            live = any(not work_over(r) for i, r in enumerate(records) if i != chosen)
            weight = 2 if live else 1
        same = [
            o
            for o in rules
            if o.field == rule.field and (o.kind == MATCHING) == (rule.kind == MATCHING)
        ]
        weights.append(weight / len(same))
    return weights
