"""Steps that write: creates that carry found values into a service, updates and actions
on records in hand (with thresholds), deletes; a write must change something no later
write undoes."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator, Sequence
from typing import Any

from library.compose.binding import Binding
from library.compose.catalog import (
    ACTION,
    CREATE,
    DELETE,
    UPDATE,
    ToolInfo,
    ref_collection,
    singular,
    title,
)
from library.compose.coherence import (
    FINAL,
    PAUSED,
    against_its_verb,
    archived,
    double_booked,
    ends_record,
    halts_work_under,
    inverted,
    kept_once_begun,
    may_write,
    opted_out,
    range_pairs,
    status_of,
    too_early,
    waits_for_resume,
)
from library.compose.context import Entity, Fact, field_words, ties
from library.compose.derive import changed_fields
from library.compose.direction import DECIDED, WAITING, is_stage, past_stage_of
from library.compose.domains import service_domain
from library.compose.env import naming_fields
from library.compose.literals import literal
from library.compose.matters import counts, hung_on, is_annotation, is_message
from library.compose.motifs import (
    ABOUT_NOT_FOR,
    APPOINTMENTS,
    BY_NAME,
    CALLED_OFF,
    LOG_TEXTS,
    MONEY_WORK,
    ONE_MATTER,
    ONGOING,
    STAFF_WORKFLOWS,
    claimed_by,
    gives_back_another,
    other_kind,
    staff_work,
)
from library.compose.plan import Bound, Step
from library.compose.referring import tidy_summary
from library.compose.roles import (
    PERSON_KEYS,
    TAKES_WORK,
    hands_over,
    is_staff_role,
    people_fields,
    present_fields,
    role_of,
)
from library.compose.tense import past
from library.compose.topics import topic_texts
from library.compose.walk_state import ListedId, Reject, as_record
from library.graph.nodes import name_words, tool_verb
from library.rubric import same
from library.seed.pool import window, window_kind
from library.seed.vocab import is_person_resource, is_staff_resource


def _stored(value: Any, diff: Any) -> bool:
    """Whether a stated argument shows in what the write changed (a created record's
    fields, an updated field's new value), so that a criterion can check it."""
    wanted = value if isinstance(value, list) else [value]
    seen: list[Any] = []
    for colls in diff.services.values():
        for d in colls.values():
            for record in d.added.values():
                seen += list(record.values()) if isinstance(record, dict) else []
            for changes in d.updated.values():
                seen += [new for _, new in changes.values()]

    def found(v: Any) -> bool:
        return any(same(s, v) or (isinstance(s, list) and any(same(x, v) for x in s)) for s in seen)

    return all(found(v) for v in wanted)


# Final states that are a step of the way, not its end: an accepted quote sent again goes
# back to "sent" (a closed or cancelled record ends wherever it was).
_GONE_OUT = frozenset({"sent", "posted", "shipped", "submitted"})

# Acts that are the record's owner's (whoever filed it), and the roles that decide it.
_OWNERS_ACTS = frozenset({"submit", "resubmit", "withdraw"})
_DECIDERS = frozenset({"approver", "reviewer", "manager"})

# Times someone is booked for besides meetings: an interview, a room or desk booking (a
# flight booking is a trip's, see ``_second_appointment``).
_BOOKED_TIMES = frozenset({"interview", "interviews", "booking", "bookings"})


# What a new record is called by (its name, its title).
_NAMING = frozenset({"name", "title", "display_name", "displayname"})
_OWN_NAMES = frozenset({"name", "display_name", "displayname"})  # one record's each


# Ids that read as numbers a person quotes: an optional "#", a few capitals, digits.
CODE_ID = re.compile(r"#?[A-Z]{0,4}-?\d{4,12}")


class Writes(Binding):
    """The write steps of a walk."""

    def _target(self, tool: ToolInfo) -> Entity | None:
        """The known record a tool acting on one record would act on, if its state allows
        it (a canceled order is not edited, a paid invoice is not voided) and it is not a
        shared reference record (a plan, a property: ``ComposeEnv.catalogs``)."""
        finished = self._finished()
        options = [
            e
            for e in self.entities
            if e.service == tool.service
            and e.collection == tool.collection
            and (e.service, e.collection) not in self.env.catalogs
            and not e.deleted
            and (e.service, e.collection, e.id) not in finished
            and self._may_write(e, tool)
            and (tool.own_field == "id" or self._named_uniquely(e, tool.own_field))
        ]
        if not options and tool.own_field == "id":
            options = self._listed_targets(tool, finished)
        # After the plan made a booking, "check in the booking" reads as the new one: no
        # older record of a kind the plan made is acted on (a reviewer's failed task).
        made = {(e.service, e.collection) for e in self.entities if e.created and not e.deleted}
        options = [e for e in options if e.created or (e.service, e.collection) not in made]
        options = [e for e in options if not self._another_matter([e], tool)]
        # (an escalation raises no renewal CTA: ``motifs.OTHER_KINDS``)
        options = [e for e in options if not other_kind(self.motif, e.record)]
        options = [e for e in options if not self._gives_back_another(tool, e)]
        if self.motif is not None and self.motif.name in STAFF_WORKFLOWS:
            # Someone joining or leaving: their own person records change, not those of
            # the people they manage ("suspend Gregory's report" is no offboarding).
            options = [
                e
                for e in options
                if (
                    self.subjects_own_person(e)
                    if is_person_resource(e.collection)
                    # what they handle is handed over; what others handle stays theirs
                    else not self._handing_over(tool, e) or self.handled_by_subject(e)
                )
            ]
        return self.rng.choice(options) if options else None

    def _gives_back_another(self, tool: ToolInfo, record: Entity) -> bool:
        """Whether a step of a refund on ``record`` would give back money of another record
        than the one the request names or the refund already gave back
        (``motifs.gives_back_another``): "refund Ralph's order", then receive the return of
        another order of his, is two matters."""
        if self.motif is None or self.motif.name not in MONEY_WORK or record.created:
            return False
        if not self.core_work(tool) and self.motif.name not in claimed_by(record.collection):
            return False
        anchors: list[Entity | None] = [self._about_a_record()]
        for step in self.steps:
            if step.write and self.core_work(step.tool) and step.entity is not None:
                # a refund made is the payment's it was made on
                made = step.entity.created
                anchors += hung_on(step.sources, self.env.catalogs) if made else [step.entity]
        return any(
            gives_back_another(self.motif, a, record)
            for a in anchors
            if a is not None and a is not record
        )

    def _about_a_record(self) -> Entity | None:
        """The record the request is about where it names one (a payment by its number),
        not a person (whose records are all theirs)."""
        opening = self.steps[0] if self.steps else None
        if opening is None or opening.entity is None:
            return None
        for name, value in opening.args.items():
            p = opening.tool.param(name)
            if (p is not None and p.key in PERSON_KEYS) or (
                isinstance(value, str) and "@" in value
            ):
                return None
        return opening.entity

    # -- one matter per request (``matters``) ----------------------------------------------
    def _another_matter(self, records: Sequence[Entity], tool: ToolInfo) -> bool:
        """Whether working on ``records`` would take the request past the matters it may
        be about (``max_matters``). Until the workflow's own work is done, a step that is
        not that work takes none of the matters the work needs."""
        cap = self.max_matters
        if cap is None:
            return False
        if self.colleague_matters is not None and self._covering():
            cap = self.colleague_matters
        if not self.core_work(tool) and not self._did_core_work():
            cap -= 1
        matters = self._matters()
        fresh = [e for e in records if counts(e)]
        return matters.count + matters.new(fresh, self._work_of) > cap

    def _covering(self) -> bool:
        """Whether the request picks up a colleague's work (their plate), which may hold
        several matters."""
        return any(self.env.is_staff("email", s) for s in self.subjects())

    def _on_a_house_rule(self, bound: dict[str, Bound]) -> bool:
        """Whether a create would hang on a policy note the plan reads for a rule (a comment
        on the refund policy is no one's work)."""
        notes = {(r["service"], r["id"]) for r in self.house_rules}
        return any(
            b.fact is not None and (b.fact.entity.service, b.fact.entity.id) in notes
            for b in bound.values()
        )

    def _moves_money_again(self, tool: ToolInfo) -> bool:
        """Whether the plan already moved money (a payment taken, a refund, an invoice
        made): a request charges or pays back once, not a capture, then a new payment,
        then a payment link for the same customer."""
        return moves_money(tool) and any(s.write and moves_money(s.tool) for s in self.steps)

    def _same_parents(self, tool: ToolInfo, bound: dict[str, Bound]) -> bool:
        """Whether a record of the collection already hangs on the same two or more records
        (an application for the candidate and the job they already applied to)."""
        ids = {
            n: b.value
            for n, b in bound.items()
            if b.fact is not None and b.fact.field == "id" and isinstance(b.value, str)
        }
        if len(ids) < 2:
            return False
        records = getattr(self.world.services[tool.service].state, str(tool.collection))
        return any(all(getattr(r, n, None) == v for n, v in ids.items()) for r in records.values())

    def _second_appointment(self, tool: ToolInfo) -> bool:
        """Whether the plan already made a meeting, event or appointment: a request books
        one, not a meeting and then an event for the same matter; someone's scheduling is
        one time booked (not an interview, then a meeting, then a room at another hour). A
        trip's flight and hotel are one trip; a hiring step's interview and debrief two."""

        one_matter = self.motif is not None and self.motif.name in ONE_MATTER

        def appointment(t: ToolInfo) -> bool:
            nouns = set(name_words(str(t.collection or "")))
            if t.kind != CREATE:
                return False
            booked = one_matter and service_domain(t.service) != "travel"
            return bool(nouns & APPOINTMENTS or (booked and nouns & _BOOKED_TIMES))

        return appointment(tool) and any(s.write and appointment(s.tool) for s in self.steps)

    def _listed_targets(self, tool: ToolInfo, finished: set[tuple[str, str, str]]) -> list[Entity]:
        """Records the agent knows only by the id another record lists (a customer's one
        line, where nothing reads a line on its own): acted on by that id, and named as
        the one listed there. Taken in hand when the step that acts on one is kept."""
        out = []
        held = {(e.service, e.collection, e.id) for e in self.entities}
        for fact in self.facts:
            if not isinstance(fact, ListedId) or fact.entity.deleted:
                continue
            key = (tool.service, str(tool.collection), str(fact.value))
            if fact.entity.service != tool.service or fact.key != f"id:{tool.collection}":
                continue
            if key in held or key in finished:
                continue
            entity = Entity(
                *key, {"id": fact.value}, fact.step, "", fact.phrase().removeprefix("the ")
            )
            entity.link(fact.entity)
            if self._may_write(entity, tool):
                out.append(entity)
        return out

    def _own(self, tool: ToolInfo, entity: Entity) -> Bound:
        """The argument naming the record acted on: its id, or its name for a tool that
        finds records by name (``ToolInfo.own_field``); for a record known only by the id
        another lists (``_listed_targets``), that listed id."""
        field = tool.own_field
        fact = next((f for f in self.facts if f.entity is entity and f.field == field), None)
        if fact is None:
            fact = next(
                f
                for f in self.facts
                if isinstance(f, ListedId)
                and f.value == entity.id
                and f.key == f"id:{entity.collection}"
            )
            if all(e is not entity for e in self.entities):
                self.entities.append(entity)  # in hand from now on (undone with the step)
        return Bound.of(fact)

    def _named_uniquely(self, entity: Entity, field: str) -> bool:
        """Whether the record's ``field`` (its name) is one no other record of its
        collection shares: a tool that finds records by name must find this one."""
        value = entity.record.get(field)
        if not isinstance(value, str) or not value:
            return False
        records = getattr(self.world.services[entity.service].state, entity.collection)
        return not any(
            rid != entity.id and r.model_dump(mode="json").get(field) == value
            for rid, r in records.items()
        )

    def _finished(self) -> set[tuple[str, str, str]]:
        """Records a step of this plan already moved on with an action (paused, advanced,
        replied to, submitted): that is their part of the story, so no later step edits
        them or hangs new records on them (an interview after the hire)."""
        return {
            (s.entity.service, s.entity.collection, s.entity.id)
            for s in self.steps
            if s.tool.kind == ACTION and s.entity is not None
        }

    def _may_write(self, entity: Entity, tool: ToolInfo) -> bool:
        current = self._state_record(entity.service, entity.collection, entity.id)
        if current is None:
            return False
        record = self.env.dumps.dump(current)
        if too_early(record, tool.name, self.base.clock):
            return False  # a check-in on the day, not a week before
        if tool.kind == ACTION and self._against_its_state(tool, entity, record, {}):
            return False  # a checked-in booking is not cancelled, a paused plan not renewed
        return may_write(record, str(tool.kind), tool.name)

    def _against_its_state(
        self, tool: ToolInfo, entity: Entity, record: dict[str, Any], changes: dict[str, Any]
    ) -> bool:
        """Whether a write setting ``changes`` on ``record`` goes against where its state and
        the clock put it: a happening under way or over keeps its host and its room
        (``coherence.kept_once_begun``), a record on hold keeps its substance until it
        resumes (``coherence.waits_for_resume``)."""
        info = self._coll(entity.service, entity.collection)
        noun = info.noun if info is not None else entity.collection
        now = self.base.clock.isoformat()
        if kept_once_begun(record, noun, now, tool.name, changes):
            return True
        return bool(waits_for_resume(record, tool.name, changes, people_fields(info)))

    def _record_now(self, entity: Entity) -> dict[str, Any]:
        """``entity``'s record as the world holds it now (as last read where it is gone)."""
        current = self._state_record(entity.service, entity.collection, entity.id)
        return self.env.dumps.dump(current) if current is not None else entity.record

    def _write(
        self,
        tool: ToolInfo,
        bound: dict[str, Bound],
        text: dict[str, Any],
        entity: Entity | None,
    ) -> Step:
        if any(_id_as_text(tool, name, b) for name, b in bound.items()):
            raise Reject("id_as_text")
        args = {name: b.value for name, b in bound.items()}
        if self._opted_out(self._recipients(tool, args, entity)):
            raise Reject("opted_out")  # no mail to a contact who asked for none
        binds = {name: b.bind for name, b in bound.items()}
        label = self._label(tool.service, str(tool.collection), True) if tool.kind == CREATE else ""
        literals = [t for b in bound.values() for t in b.literals]
        sources = [b.fact for b in bound.values() if b.fact is not None]
        before = self.world.snapshot()
        envelope = self._call(tool, args)
        diff = self.world.diff(before)
        changed = changed_fields(diff, {k: [v] for k, v in args.items()})
        adds_or_deletes = any(
            d.added or d.deleted for colls in diff.services.values() for d in colls.values()
        )
        if not changed and not adds_or_deletes:
            raise Reject("write_without_effect")
        unstored = [
            name
            for name, b in bound.items()
            if b.bind.get("from") == "user" and not _stored(b.value, diff)
        ]
        if unstored:
            # A value the instruction states must be checkable; this tool keeps it nowhere.
            raise Reject("unstored_literal")
        for svc, colls in diff.services.items():
            for coll, d in colls.items():
                for rid in [*d.added, *d.updated]:
                    rec = self._state_record(svc, coll, rid)
                    if rec is not None and inverted(rec.model_dump(mode="json")):
                        # A faithful agent would be graded against an invalid record.
                        raise Reject("inverted_range")
        if self._past_its_stage(diff):
            raise Reject("past_its_stage")
        if self._under_a_halt(tool, diff):
            raise Reject("under_a_halt")  # no interview for a job on hold, closed or a draft
        if self._double_booked(diff):
            raise Reject("double_booked")  # one guest, two hotel stays on the same nights
        if self._moves_back(diff):
            raise Reject("moves_back")  # an approved report is not submitted again
        if tool.kind == ACTION and self._decided_at_once(diff):
            # A report filed and approved in one breath skips the review it exists for.
            raise Reject("decided_at_once")
        if self._skips_ahead(diff):
            raise Reject("skips_ahead")  # a new issue is not put "in review" untouched
        if tool.kind == ACTION and entity is not None and self._answers_own(entity, diff):
            raise Reject("answers_own_record")  # no reply to the message the plan just sent
        deleted = {
            (svc, coll, rid)
            for svc, colls in diff.services.items()
            for coll, d in colls.items()
            for rid in d.deleted
        }
        touched = {w[:3] for w in self.written}
        touched |= {(e.service, e.collection, e.id) for e in self.entities if e.created}
        if changed & self.written or deleted & touched:
            # A later write undoing an earlier one (approve, then reject) makes the earlier
            # one pointless: no rubric could tell whether it happened.
            raise Reject("overwrites_earlier_write")
        self.written |= changed
        step_no = len(self.steps)
        created: Entity | None = None
        info = self._coll(tool.service, tool.collection)
        data = as_record(envelope.get("data"), info.id_key if info is not None else "id")
        if tool.kind == CREATE and data is not None:
            # What the create set from its arguments is final: a later write changing it
            # would make the argument pointless.
            self.written |= {
                (tool.service, str(tool.collection), data["id"], name)
                for name in args
                if name in data
            }
            created = Entity(
                tool.service, str(tool.collection), data["id"], data, step_no, "", label, True
            )
            self._add_entity(created)
            for fact in sources:
                if ties(fact.key):
                    created.link(fact.entity)
            text["label"] = created.label
        elif entity is not None and tool.kind == DELETE:
            self.remember(entity)
            entity.deleted = True
        elif entity is not None and isinstance(data, dict) and data.get("id") == entity.id:
            self._refresh(entity, data, step_no, "")
        threshold_used = any(b.bind.get("rule") == "threshold" for b in bound.values())
        extra, self.pending_sources = list(self.pending_sources), []
        return Step(
            tool,
            args,
            binds,
            text,
            literals,
            envelope,
            created or entity,
            threshold=threshold_used,
            sources=sources,
            extra_sources=extra,
        )

    def _create(self, tool: ToolInfo) -> Step | None:
        if self._after_calling_off(tool):
            return None
        exclude = (tool.service, tool.collection)
        required = self._bind_required(tool, set(), exclude)
        if required is None:
            return None
        if self._another_matter(
            hung_on([b.fact for b in required.values() if b.fact], self.env.catalogs), tool
        ):
            return None  # known before the rest is bound (checked again with all of it below)
        flows = any(b.fact is not None for b in required.values())
        if self._reports_team_work(tool):
            # the report of a team's work says in its body what was made, by name
            logged = self._logs_the_work(tool, set(required) - {"body"})
            if logged is None:
                return None
            required, logs = {**required, **logged}, set(logged)
        elif not flows and not (
            self._tells_subject(tool, required) or self._files_for_subject(tool, required)
        ):
            logged = self._logs_the_work(tool, set(required))
            if logged is None:
                return None  # a create that uses nothing the agent found is not a flow
            required, logs = {**required, **logged}, set(logged)
        else:
            logs = set()
        told = self._addresses_subject(tool, required) and not self.core_work(tool)
        if told and not any(s.write for s in self.steps):
            return None  # telling them what was done comes after doing it
        if self._already_there(tool, required) or self._found_twin(tool, required):
            return None  # a person is added once: an HR record for someone who has one is no work
        finished = self._finished()
        if any(
            b.fact is not None
            and b.fact.field == "id"
            and (b.fact.entity.service, b.fact.entity.collection, b.fact.entity.id) in finished
            for n, b in required.items()
            if n not in logs  # a log names the cancelled order in its text; it hangs nothing on it
        ):
            return None
        settable = self._settable(tool, None)
        optional = [p for p in settable if p.enum][:1]
        # A colleague who takes the new record on (assignee, owner, host): work has people.
        optional += [
            p
            for p in settable
            if (p.key or p.item_key) in PERSON_KEYS and is_staff_role(role_of(p.name))
        ][:1]
        # A record that nothing names yet is made with its name (a new DNS zone's domain).
        if not any(n.lower() in _NAMING for n in required):
            optional += [p for p in settable if p.name.lower() in _NAMING and not p.enum][:1]
        owners = [b.fact.entity for b in required.values() if b.fact and ties(b.fact.key)]
        if logs and (about := self._logged_step()) is not None and about.entity is not None:
            # a log is about the record its text names: how urgent the follow-up task for
            # an invoice is may follow the invoice's total ("p1 over $5,000")
            owners.append(about.entity)
        related = list(dict.fromkeys(owners))  # a new record is decided by what it belongs to
        extra, threshold_text = self._values(tool, optional, None, exclude, related)
        bound = self._in_the_money_s_currency(tool, {**required, **extra})
        bound = self._in_their_currency(tool, bound) if bound is not None else None
        if bound is None or self._told_again(tool, bound, None):
            return None
        bound = self._spanned(tool, bound)
        bound = self._named_anew(tool, bound)
        if bound is None:
            return None  # a new zone "docs.example.com" where one exists: the API refuses it
        if self._back_on_their_plate(bound):
            return None  # a task for the colleague who asked us to do the work is no help
        if self._off_the_leaver(tool, bound):
            return None  # "Leaver: access removed" for whoever filed a handed expense report
        if self._filed_for_another(tool, bound):
            return None  # a colleague's trip files their own expense report, not their manager's
        if other_kind(self.motif, {n: b.value for n, b in bound.items()}):
            return None  # an escalation adds no renewal CTA (``motifs.OTHER_KINDS``)
        parents = hung_on([b.fact for b in bound.values() if b.fact], self.env.catalogs)
        if self._another_matter(parents, tool) or self._on_a_house_rule(bound):
            return None  # one matter per request; nothing hangs on a policy note
        if any(self._gives_back_another(tool, p) for p in parents):
            return None  # a refund for the order is made on no other payment of its payer
        if self._staff_news_to_outsiders(tool, bound, parents):
            return None  # a customer's ticket hears nothing of a colleague leaving
        if any(archived(p.record) for p in parents) or self._into_archived(tool, bound):
            return None  # nothing is posted into an archived channel or added to a closed book
        if is_annotation(tool.collection) and any(self._settled(p) for p in parents):
            return None  # no one remarks on a closed case: the work chases what is open
        if is_annotation(tool.collection) and not all(self._in_the_matter(p) for p in parents):
            # A comment remarks on the work: it goes on a record the request is already
            # about, never opens a matter of its own ("Time found in both calendars." on
            # some document of theirs), even where a long request may hold several.
            return None
        if self._second_appointment(tool) or self._same_parents(tool, bound):
            return None
        ids = {
            n
            for n, b in bound.items()
            if b.fact is not None and b.fact.field == "id" and n not in logs
        }
        text: dict[str, Any] = {
            "kind": CREATE,
            "service": title(tool.service),
            "summary": tool.summary,
            "for": [bound[n].phrase for n in sorted(ids)],
            "values": self._pairs(bound, ids),
        }
        if threshold_text:
            text["threshold"] = threshold_text
        return self._write(tool, bound, text, None)

    def _spanned(self, tool: ToolInfo, bound: dict[str, Bound]) -> dict[str, Bound]:
        """A stated start and end as one span of the record's kind (a room booked for an
        hour or two, a rental for days; ``library.seed.pool.window_kind``): the end is the
        start plus such a length, not a second date drawn weeks apart."""
        stated = {
            n: b.value
            for n, b in bound.items()
            if b.bind.get("from") == "user" and isinstance(b.value, str)
        }
        pairs = range_pairs(stated)
        if not pairs:
            return bound
        info = self._coll(tool.service, tool.collection)
        noun = info.noun if info is not None else str(tool.collection or "")
        fields = list(info.fields) if info is not None else []
        out = dict(bound)
        for start, end in pairs:
            text = stated[start]
            date = "T" not in text
            try:
                begin = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                continue
            lo, hi = window(window_kind(start, end, noun, fields, date), self.rng, begin)
            finish = begin + (hi - lo)
            said = finish.date().isoformat() if date else finish.strftime("%Y-%m-%dT%H:%M:%SZ")
            out[end] = Bound.literal(said)
        return out

    def _in_their_currency(self, tool: ToolInfo, bound: dict[str, Bound]) -> dict[str, Bound]:
        """A currency the request states for a new record (no amount to follow) is that of
        the person it is for: a colleague's expense report in ours, a customer's order in
        their company's; never one drawn at random (a trip to Munich claimed in rupees)."""
        pool = self.env.pool
        people = [
            person
            for n, b in bound.items()
            if (p := tool.param(n)) is not None
            and p.key == "email"
            and isinstance(b.value, str)
            and (person := pool.person_by_email(b.value)) is not None
        ]
        if not people:
            return bound
        try:
            company = pool.company(people[0].company) if not people[0].staff else pool.org
        except KeyError:
            return bound
        if company is None:
            return bound
        theirs = company.currency
        out = dict(bound)
        for n, b in bound.items():
            p = tool.param(n)
            if p is None or b.fact is not None or "currency" not in (n.lower(), p.key):
                continue
            if (not p.enum or theirs in p.enum) and b.value != theirs:
                out[n] = Bound.literal(theirs)
        return out

    def _in_the_money_s_currency(
        self, tool: ToolInfo, bound: dict[str, Bound]
    ) -> dict[str, Bound] | None:
        """An amount taken from a record is in that record's currency: a payment of the
        refund's amount is in the refund's currency, never one drawn at random. None where
        the tool cannot take that currency."""
        money = [b.fact for b in bound.values() if b.fact is not None and b.fact.key == "money"]
        if not money:
            return bound
        source = money[0].entity
        out = dict(bound)
        for p in tool.params:
            if p.name not in out or out[p.name].fact is not None:
                continue
            if "currency" not in (p.name.lower(), (p.key or "").split(":", 1)[0]):
                continue
            name = p.name if isinstance(source.record.get(p.name), str) else "currency"
            value = source.record.get(name)
            if not isinstance(value, str):
                continue  # the record keeps no currency: nothing to follow
            if p.enum and value not in p.enum:
                return None
            read = next((f for f in self.facts if f.entity is source and f.field == name), None)
            out[p.name] = Bound.of(read) if read is not None else Bound.literal(value)
        return out

    def _logged_step(self) -> Step | None:
        """The write a log of the work is about: the last change to a record the request
        found, or where the work only made records (a new DNS zone), the last it made (not a
        message it sent: telling someone is no record of the work)."""
        changed = [s for s in self.steps if s.write and s.entity and not s.entity.created]
        changed = changed or [
            s
            for s in self.steps
            if s.write and s.entity and s.kind == CREATE and not is_message(s.entity.collection)
        ]
        return changed[-1] if changed else None

    def _reports_team_work(self, tool: ToolInfo) -> bool:
        """Whether ``tool`` tells a colleague by e-mail that a team's work on its own thing
        is done (the DNS change made), after the work: the report is part of the flow."""
        return (
            tool.qualified in self.env.report_tools
            and self._team_s_own_thing()
            and any(s.write for s in self.steps)
            and (self.motif is None or self._did_core_work())  # once the work is done
        )

    def reported_the_work(self) -> bool:
        """Whether a step told a colleague that a team's work is done: nothing is done
        after saying it is ("DNS change made", then two more keys made)."""
        return (
            any(
                s.write and s.tool.qualified in self.env.report_tools and s.entity is not None
                for s in self.steps
            )
            and self._team_s_own_thing()
        )

    def _logs_the_work(self, tool: ToolInfo, taken: set[str]) -> dict[str, Bound] | None:
        """A record that logs the work done (a ticket for the refund) names the record the
        plan changed in its text: ``{description: the order's id}``, which is what makes
        logging it part of the flow. None where the tool has no such text or nothing was
        changed yet."""
        texts = [
            p
            for p in tool.params
            if (
                p.name in LOG_TEXTS
                or (p.name == "body" and tool.qualified in self.env.report_tools)
            )
            and p.name not in taken
            and p.type == "string"
            and not p.enum
            and p.key is None
        ]
        changed = self._logged_step()
        if not texts or changed is None:
            return None
        reports = tool.qualified in self.env.report_tools and texts[0].name == "body"
        if reports:
            # A report says all the work done, not its last piece ("Created the domain
            # api.example.com and the TSIG key backup-agent.", not only the key).
            whole = self._work_done_text()
            if whole is not None:
                return {texts[0].name: Bound.literal(whole)} | self._log_title(tool, taken)
        entity = changed.entity
        assert entity is not None
        fact = self._readable_name(entity)
        if fact is None:
            return None  # a note a person writes names the work in words, never by a raw id
        # "the order listed on the user" was just named as the order the work changed
        the = entity.the.split(" listed on ")[0]
        if self._said(fact.value) or (reports and self._picked_by(fact.value)):
            # a name the request gave already: the note says what was done with it
            # ("Created the zone cdn.example.com."), not the bare name; so does a report
            # on the record the request named ("Scaled the deployment search-service.",
            # not an e-mail saying only "search-service")
            done = past(tool_verb(changed.tool.name))
            text = f"{done.capitalize()} {_as_named(the, changed.tool.summary)} {fact.value}."
            return {texts[0].name: Bound.literal(text)} | self._log_title(tool, taken)
        phrase = f"the {field_words(fact.field)} of {the}"
        bind = Bound.of(fact).bind
        if fact.field == "id":
            # the number as the work was given it (a cancel answers ``order_id``, not ``id``)
            bind = next(
                (
                    dict(s.binds[n])
                    for s in self.steps
                    for n, v in s.args.items()
                    if v == fact.value and s.binds.get(n, {}).get("from") == "step"
                ),
                bind,
            )
        out = {texts[0].name: Bound(fact.value, bind, phrase, (), fact)}
        return out | self._log_title(tool, taken)

    def _work_done_text(self) -> str | None:
        """Every record the work made or changed, in a report's words ("Created the domain
        api.example.com, the Cryptokey and the TSIG key backup-agent."); None where the
        work touched only one record (the report names that one, as a log does)."""
        told = self.env.log_tools | self.env.report_tools
        done: dict[int, Step] = {}
        for s in self.steps:
            entity = s.entity
            if not s.write or entity is None or s.tool.qualified in told:
                continue
            if is_message(entity.collection):
                continue
            done.setdefault(id(entity), s)  # a record once, by its first change
        if len(done) < 2:
            return None
        clauses: dict[str, list[str]] = {}
        for s in done.values():
            assert s.entity is not None
            the = _as_named(s.entity.the.split(" listed on ")[0], s.tool.summary)
            fact = self._readable_name(s.entity)
            if fact is not None and self._said(fact.value):
                the = f"{the} {fact.value}"
            clauses.setdefault(past(tool_verb(s.tool.name)), []).append(the)
        text = _and([f"{verb} {_and(things)}" for verb, things in clauses.items()])
        return f"{text[:1].upper()}{text[1:]}."

    def _log_title(self, tool: ToolInfo, taken: set[str]) -> dict[str, Bound]:
        """A log's title as we would title the work, not as a customer's complaint."""
        titles = topic_texts(self._topic(), "email_subject", internal=True)
        for p in tool.params:
            if titles and p.name in ("title", "subject", "summary", "name") and p.type == "string":
                if p.required or p.name not in taken:
                    return {p.name: Bound.literal(self.rng.choice(titles))}
                break
        return {}

    def _picked_by(self, value: object) -> bool:
        """Whether the request picks a record by ``value`` (the deployment "search-service"
        found in a list by its name, with or without a rule to choose it by)."""
        return any(
            (s.rule is not None and same(s.rule.value, value))
            or (not s.write and any(same(lit, value) for lit in s.literals))
            for s in self.steps
        )

    def _said(self, value: object) -> bool:
        """Whether the request states ``value`` already (an argument the user gave)."""
        return any(
            step.binds.get(name, {}).get("from") == "user" and same(arg, value)
            for step in self.steps
            for name, arg in step.args.items()
        )

    def _quoted_id(self, entity: Entity, value: str) -> bool:
        """Whether an id is one people quote (a booking reference 'ZFA04Y'), as the tools
        taking it show (``Catalog.quoted``)."""
        pattern = self.catalog.quoted(entity.service, entity.collection)
        return pattern is not None and re.fullmatch(pattern, value) is not None

    def _readable_name(self, entity: Entity) -> Fact | None:
        """What a person writing about ``entity`` calls it: its business number (an order
        number) or its name, title or subject; None where it has none (only its id)."""
        info = self._coll(entity.service, entity.collection)
        names = naming_fields(info) if info is not None else frozenset()
        facts = [
            f
            for f in self.facts
            if f.entity is entity
            and f.field in names
            and f.key not in PERSON_KEYS
            and isinstance(f.value, str)
            and 2 < len(f.value) <= 80
        ]
        # an id the API gives as a number people quote (tau's order "#W2378156", not a
        # generated ``ord_3fa9...``) names the record as a business number does
        facts += [
            f
            for f in self.facts
            if f.entity is entity
            and f.field in {"id", info.id_key if info is not None else "id"}
            and isinstance(f.value, str)
            and (CODE_ID.fullmatch(f.value) or self._quoted_id(entity, f.value))
        ]
        # a number quoted back is the surest name; a title next
        facts.sort(key=lambda f: (not str(f.key or "").startswith("key:"), f.field))
        return facts[0] if facts else None

    def _staff_news_to_outsiders(
        self, tool: ToolInfo, bound: dict[str, Bound], parents: Sequence[Entity]
    ) -> bool:
        """Whether a create in work about a colleague (someone joining or leaving) says it
        where an outside person reads it: a note on a customer's ticket, a message to them.
        Such work is internal; what it writes goes to colleagues."""
        if self.motif is None or self.motif.name not in STAFF_WORKFLOWS:
            return False
        told = self._notified(tool, {n: b.value for n, b in bound.items()}, None)
        people = told | {
            self.env.identity("email", v)
            for e in parents
            for v in e.record.values()
            if isinstance(v, str) and "@" in v
        }
        return any(self._outsider(who) for who in people)

    def _outsider(self, email: str) -> bool:
        """Whether ``email`` is an outside person's (a customer's), not a colleague's."""
        person = self.env.person_by_email(email)
        return person is not None and not self.env.is_staff("email", email)

    def _tells_subject(self, tool: ToolInfo, bound: dict[str, Bound]) -> bool:
        """Whether a create is telling the person the request is about what was done (a
        reply to the customer who asked for the refund): after the work, a message to the
        one the opening named is part of it, though its address is stated, not found."""
        if not any(s.write for s in self.steps):
            return False  # nothing done yet: nothing to tell
        return self._addresses_subject(tool, bound)

    def _addresses_subject(self, tool: ToolInfo, bound: dict[str, Bound]) -> bool:
        """Whether a create tells the person the request is about something (a message,
        a call to them)."""
        if tool.qualified not in self.env.core_tools(BY_NAME["follow-up"]):
            return False
        return bool(self.naming_subject(tool, {n: b.value for n, b in bound.items()}))

    def _done_for(self) -> set[str]:
        """The colleagues a request is done for (who asked, or whose plate it is): none for
        a joiner's or a leaver's work (they did not ask) nor for an outside person's."""
        if self.motif is None or self.motif.name in STAFF_WORKFLOWS:
            return set()
        people = {self.env.identity("email", s) for s in self.subjects()}
        if people and all(self.env.is_staff("email", p) for p in people):
            return people
        return set()

    def reported_done(self) -> bool:
        """Whether the plan has told the colleague the work is for that it is done: that
        message closes the request ("nothing more is needed from you" comes last)."""
        colleagues = self._done_for()
        return bool(colleagues) and any(
            s.write and (told := self._recipients(s.tool, s.args, s.entity)) and told <= colleagues
            for s in self.steps
        )

    def _into_archived(self, tool: ToolInfo, bound: dict[str, Bound]) -> bool:
        """Whether a new record would hang on one put away (a post into an archived
        channel): any record of the service its id arguments name."""
        state = self.world.services[tool.service].state
        names = list(type(state).collection_types)
        for n, b in bound.items():
            p = tool.param(n)
            key = str(p.key or "") if p is not None else ""
            coll = ref_collection(key[3:], names) if key.startswith("id:") else None
            records = getattr(state, coll, {}) if coll else {}
            record = records.get(b.value) if isinstance(b.value, str) else None
            if record is not None and archived(self.env.dumps.dump(record)):
                return True
        return False

    def _off_the_leaver(self, tool: ToolInfo, bound: dict[str, Bound]) -> bool:
        """Whether a record a hand-over makes (a to-do, a note) takes a person or words from
        a record other than the leaver's own: "Leaver: access removed" is about the leaver,
        for the colleague taking over or one the request names, not for the employee of an
        expense report the leaver approved, with that report's title for notes."""
        if not self.hands_work_over():
            return False
        subjects = self.subjects()
        for name, b in bound.items():
            p = tool.param(name)
            if b.fact is None or p is None or (p.key is not None and p.key != "email"):
                continue
            if self.subjects_own_person(b.fact.entity):
                continue  # the leaver's own user record: their name, their address
            if isinstance(b.value, str) and self.env.identity("email", b.value) in subjects:
                continue
            return True
        return False

    def _back_on_their_plate(self, bound: dict[str, Bound]) -> bool:
        """Whether a write gives work to the colleague who asked us to take care of it (a
        task assigned to them, a ticket handed back to them): the work comes off their plate."""
        colleagues = self._done_for()
        return bool(colleagues) and any(
            role_of(name) in TAKES_WORK
            and isinstance(b.value, str)
            and self.env.identity("email", b.value) in colleagues
            for name, b in bound.items()
        )

    def _under_a_decision(self, entity: Entity) -> bool:
        """Whether a record belongs to one the request knows is decided or over (its
        ``report_id`` names an approved report), or one this plan already moved on (a
        report it submitted): what hangs on it is settled with it, fixed before, not after."""
        named = {str(v) for v in entity.record.values() if isinstance(v, str)}
        finished = {rid for _, _, rid in self._finished()}
        return any(
            e is not entity and e.id in named and (self._settled(e) or e.id in finished)
            for e in self.entities
        )

    def _under_a_sibling(self, entity: Entity) -> bool:
        """Whether a record belongs to another record of a kind the plan wrote to (the
        request approved one report; this expense is on another report): a second matter."""
        info = self._coll(entity.service, entity.collection)
        if info is None or self.hands_work_over():
            return False  # a leaver's work is many matters, each handed over
        written = {(w[0], w[1], w[2]) for w in self.written}
        for name, meta in info.fields.items():
            target = str(meta.key or "")
            value = entity.record.get(name)
            if not target.startswith("id:") or not isinstance(value, str):
                continue
            coll = ref_collection(target[3:], [w[1] for w in written if w[0] == entity.service])
            if coll and any(w[:2] == (entity.service, coll) and w[2] != value for w in written):
                return True
        return False

    def _takes_off(self, entity: Entity, bound: dict[str, Bound]) -> bool:
        """Whether a write hands a record to someone else while the plan already gave work
        to the person it takes it from (a to-do or a meeting for the ticket's assignee, then
        the ticket reassigned): who is taken off a record is not also asked to act on it.
        (Their note on it before it moves on is no work given to them.)"""
        info = self._coll(entity.service, entity.collection)
        fields = info.fields if info is not None else {}
        current = self._state_record(entity.service, entity.collection, entity.id)
        before = self.env.dumps.dump(current) if current is not None else entity.record
        leaving = {
            self.env.identity("email", before[name])
            for name, b in bound.items()
            if name in fields
            and fields[name].key in PERSON_KEYS
            and isinstance(before.get(name), str)
            and b.value != before.get(name)
        }
        return bool(leaving) and any(  # (each of a message's recipients)
            self._in_roles(s.args, _GIVEN_WORK) & leaving for s in self.steps if s.write
        )

    def _told_again(self, tool: ToolInfo, bound: dict[str, Bound], entity: Entity | None) -> bool:
        """Whether this message (or new to-do) goes to someone the plan already told (a
        draft, a new e-mail and a reply to one customer with the same news; an e-mail and a
        to-do for one colleague: one notice a person; a to-do for whoever the plan just
        assigned the ticket to), or to the colleague an offboarding is for (a reply to the
        leaver's own message)."""
        told = set()
        to_do_for = self._to_do_for(tool, bound)
        for step in self.steps:
            if step.write:
                told |= self._notified(step.tool, step.args, step.entity)
                if step.tool.kind != CREATE and to_do_for:  # a ticket assigned to them, an
                    told |= self._handed_to(step.args) & to_do_for  # application, a deal...
        mine = self._notified(tool, {n: b.value for n, b in bound.items()}, entity)
        return bool(mine & told) or any(self._leaver("email", who) for who in mine)

    def _handed_to(self, args: dict[str, Any]) -> set[str]:
        """Who a step hands a record to (its assignee, recruiter, owner...): that is their
        notice of it, so no to-do about it follows."""
        return {
            self.env.identity("email", v)
            for n, v in args.items()
            if isinstance(v, str) and "@" in v and hands_over(role_of(n))
        }

    def _to_do_for(self, tool: ToolInfo, bound: dict[str, Bound]) -> set[str]:
        """Who a new to-do is assigned to (none where the step makes no to-do)."""
        if tool.kind != CREATE or not set(name_words(str(tool.collection or ""))) & _TO_DOS:
            return set()
        return self._in_roles({n: b.value for n, b in bound.items()}, TAKES_WORK)

    def _in_roles(self, args: dict[str, Any], roles: frozenset[str]) -> set[str]:
        """Who ``args`` name in ``roles`` (each of a list of them), as identities."""
        return {
            self.env.identity("email", who)
            for n, v in args.items()
            if role_of(n) in roles
            for who in (v if isinstance(v, list) else [v])
            if isinstance(who, str)
        }

    def _notified(self, tool: ToolInfo, args: dict[str, Any], entity: Entity | None) -> set[str]:
        """Who a step tells something: a message's readers, the colleague a new to-do is
        assigned to (an e-mail and a to-do saying the same to one person is one too many),
        and whoever a new meeting invites (its host, its attendees)."""
        out = self._recipients(tool, args, entity)
        nouns = set(name_words(str(tool.collection or "")))
        if tool.kind == CREATE and nouns & _TO_DOS:
            out |= self._in_roles(args, TAKES_WORK)
        if tool.kind == CREATE and nouns & APPOINTMENTS:  # the invite tells who is in it
            out |= self._in_roles(args, _INVITED)
        return out

    def _opted_out(self, people: set[str]) -> bool:
        """Whether any of ``people`` asked not to be contacted: a person record of theirs in
        any service says so (a CRM contact flagged ``do_not_contact``)."""
        if not people:
            return False
        return any(
            opted_out(row) and self.env.identity("email", row.get("email")) in people
            for row in self.person_rows()
        )

    def _recipients(self, tool: ToolInfo, args: dict[str, Any], entity: Entity | None) -> set[str]:
        """Who a message-writing step writes to: its recipients, or the sender of the
        message it replies to."""
        if not is_message(str(tool.collection or "")):
            return set()
        out = {
            self.env.identity("email", v)
            for name, value in args.items()
            if (p := tool.param(name)) is not None
            and (p.key or p.item_key) in ("email", "phone")
            and role_of(name) == "recipient"
            for v in (value if isinstance(value, list) else [value])
            if isinstance(v, str)
        }
        if tool_verb(tool.name) == "reply" and entity is not None and not entity.created:
            out |= {  # a reply goes to the message's sender
                self.env.identity("email", v)
                for k, v in entity.record.items()
                if role_of(k) == "sender" and isinstance(v, str)
            }
        if tool.kind == CREATE and not out:
            # a post in a channel or thread is read by whoever wrote there
            for name, value in args.items():
                p = tool.param(name)
                if p is not None and str(p.key or "").startswith("id:"):
                    out |= self.readers_of(value)
        return out

    def _already_there(self, tool: ToolInfo, bound: dict[str, Bound]) -> bool:
        """Whether a create of a person record (an employee, a user, a contact) names an
        e-mail that a record of that collection already holds."""
        coll = str(tool.collection or "")
        if not is_person_resource(coll):
            return False
        emails = {
            str(b.value).casefold()
            for n, b in bound.items()
            if (p := tool.param(n)) is not None and p.key == "email" and isinstance(b.value, str)
        }
        if not emails:
            return False
        info = self._coll(tool.service, coll)
        own = [  # the record's own addresses, not its owner's or assignee's
            n
            for n, meta in (info.fields.items() if info else ())
            if meta.key == "email" and not is_staff_role(role_of(n))
        ]
        records = getattr(self.world.services[tool.service].state, coll).values()
        return any(str(getattr(r, n, "") or "").casefold() in emails for r in records for n in own)

    def _named_anew(self, tool: ToolInfo, bound: dict[str, Bound]) -> dict[str, Bound] | None:
        """``bound`` with a stated name no record of the collection already has (a second
        zone of one domain, a second TSIG key "release-bot": the API refuses it, and no one
        asks for it), drawn again where it is taken; None where no free one comes. Titles
        repeat (two tickets "Delivery update"); names do not."""
        info = self._coll(tool.service, str(tool.collection or ""))
        if info is None:
            return bound

        def said(value: Any) -> str:
            return str(value).strip().rstrip(".").casefold()

        records = getattr(self.world.services[tool.service].state, info.name).values()
        out = dict(bound)
        for n, b in bound.items():
            p = tool.param(n)
            if n.lower() not in _OWN_NAMES or n not in info.fields or p is None:
                continue
            if not (isinstance(b.value, str) and b.value and b.fact is None):
                continue  # (a name carried from a record found is that record's)
            taken = {said(getattr(r, n, "") or "") for r in records}
            value: Any = b.value
            for _ in range(12):
                if said(value) not in taken:
                    break
                value = literal(p, self.rng, self.world.now(), where=self._where(tool))
            else:
                return None
            if value is None or said(value) in taken:
                return None
            out[n] = Bound.literal(value)
        return out

    def _found_twin(self, tool: ToolInfo, bound: dict[str, Bound]) -> bool:
        """Whether the plan already found a record of this collection for the same outside
        person (their subscription, their reservation): making another for them is a
        duplicate, not the work."""
        emails = {
            str(b.value).casefold()
            for b in bound.values()
            if isinstance(b.value, str)
            and "@" in b.value
            and not self.env.is_staff("email", b.value)
        }
        if not emails:
            return False
        # A message to someone who wrote one is a reply, not a second copy of theirs.
        replying = any(role_of(p.name) == "recipient" for p in tool.params if p.name in bound)
        for e in self.entities:
            if e.created or (e.service, e.collection) != (tool.service, tool.collection):
                continue
            values = [
                v
                for name, v in e.record.items()
                if not (replying and role_of(name) == "sender")
                for v in (v if isinstance(v, list) else [v])
            ]
            if any(isinstance(v, str) and v.casefold() in emails for v in values):
                return True
        return False

    def _update(self, tool: ToolInfo) -> Step | None:
        if self._after_calling_off(tool):
            return None
        entity = self._target(tool)
        if entity is None or entity.created:
            return None  # what a step creates it creates as wanted: no "then change the new one"
        if self._under_a_decision(entity) or self._under_a_sibling(entity):
            return None  # an approved report's expenses are not recategorised after the fact
        settable = self._settable(tool, entity)
        # A PUT-style update requires fields of the record: it sets some, resends the rest.
        put = [
            p.name
            for p in tool.params
            if p.required and p.name != tool.own and p.name in entity.record
        ]
        if not settable and not put:
            return None
        self._hold_record(entity)
        self.rng.shuffle(settable)
        # An enum first: it is what thresholds and readable instructions are made of.
        settable.sort(key=lambda p: not p.enum)
        if self.want_colleague:
            settable.sort(
                key=lambda p: (
                    not ((p.key or p.item_key) in PERSON_KEYS and is_staff_role(role_of(p.name)))
                )
            )
        chosen = settable[: self.rng.choice((1, 1, 2))]
        values, threshold_text = self._values(tool, chosen, entity, (tool.service, tool.collection))
        if not values and not put:
            return None
        if self._ends_what_it_keeps({n: b.value for n, b in values.items()}):
            return None
        own = self._own(tool, entity)
        resent: set[str] = set()
        where = (tool.service, tool.collection)
        required = self._bind_required(tool, {str(tool.own)}, where, entity, resent)
        if required is None:
            return None
        for name, b in list(required.items()):
            # A value the record already holds is resent, not a change to ask for ("set the
            # key's address to the input's address" of the key found by that address).
            p = tool.param(name)
            if name in values or name in resent or p is None or b.value != entity.record.get(name):
                continue
            kept = self._current(entity, p)
            if kept is not None:
                required[name] = kept
                resent.add(name)
        if not values and all(
            n in resent or b.value == entity.record.get(n) for n, b in required.items()
        ):
            return None  # nothing would change
        bound = self._spanned(tool, {str(tool.own): own, **required, **values})
        if self._back_on_their_plate(values) or self._takes_off(entity, values):
            return None
        if self._against_its_state(tool, entity, self._record_now(entity), _set(bound, tool)):
            return None  # a live meeting is not handed over, a paused plan's seats wait
        resent -= set(values)  # a value the step changes is said, not resent
        text: dict[str, Any] = {
            "kind": UPDATE,
            "service": title(tool.service),
            "target": entity.the,
            "values": self._pairs(bound, {str(tool.own)} | resent, tool),
        }
        if self.motif is not None and self.motif.name in ABOUT_NOT_FOR:
            text["unasked"] = True  # their values are ours to set, not what they asked
        if values and all(n.lower() in LOG_TEXTS for n in values):
            text["unasked"] = True  # our notes on their call are ours, not what they asked
        if threshold_text:
            text["threshold"] = threshold_text
        return self._write(tool, bound, text, entity)

    def _files_for_subject(self, tool: ToolInfo, bound: dict[str, Bound]) -> bool:
        """Whether a create files, after the work, a record only our own people have in the
        name of the colleague the request is for (the expense report for their trip): part
        of the work, though their address is stated, not found."""
        subjects = self.subjects()
        own = [
            bound[p.name].value
            for p in tool.params
            if p.name in bound
            and (p.key or p.item_key) == "email"
            and not hands_over(role_of(p.name))
        ]
        return (
            staff_work(tool.collection, tool.name)
            and any(s.write for s in self.steps)
            and bool(own)
            and all(isinstance(v, str) and self.env.identity("email", v) in subjects for v in own)
            and any(self.env.is_staff("email", s) for s in subjects)
        )

    def _filed_for_another(self, tool: ToolInfo, bound: dict[str, Bound]) -> bool:
        """Whether a record only our own people have (an expense report) would be filed in
        the name of someone other than the colleague the request is for: the person it is
        of (its employee, not its approver) is them."""
        if not staff_work(tool.collection, tool.name):
            return False
        subjects = self.subjects()
        if not any(self.env.is_staff("email", s) for s in subjects):
            return False
        return any(
            not hands_over(role_of(p.name))
            and self.env.identity("email", bound[p.name].value) not in subjects
            for p in tool.params
            if p.name in bound
            and (p.key or p.item_key) == "email"
            and isinstance(bound[p.name].value, str)
        )

    def _stage_moves(self, diff: Any) -> Iterator[tuple[tuple[str, str, str], list[str], str, str]]:
        """Each move of a record along its life cycle in ``diff``: the record, the stage
        values in the order the spec declares them, and where it was and is."""
        for svc, colls in diff.services.items():
            for coll, d in colls.items():
                info = self._coll(svc, coll)
                for rid, fields in d.updated.items():
                    for name, (old, new) in fields.items():
                        meta = info.fields.get(name) if info is not None else None
                        if meta is None or not meta.enum or not is_stage(name):
                            continue
                        order = [str(v).lower() for v in meta.enum]
                        was, now = str(old).lower(), str(new).lower()
                        if was in order and now in order:
                            yield (svc, coll, rid), order, was, now

    def _moves_back(self, diff: Any) -> bool:
        """Whether a write moves a record back along its life cycle (the stage values in the
        order the spec declares them): "submit" on an approved report. A record that waits
        (on hold) resumes where it was; cancelling or closing is the end, not a step back."""
        return any(
            order.index(now) < order.index(was)
            for _, order, was, now in self._stage_moves(diff)
            if was not in WAITING and (now not in FINAL or now in _GONE_OUT)
        )

    def _skips_ahead(self, diff: Any) -> bool:
        """Whether a write moves a record the plan made more than one stage on (a new issue
        straight to "in review"): what the plan files starts at its first step (a new
        report submitted, a new booking checked in), with no work between skipped."""
        made = {(e.service, e.collection, e.id) for e in self.entities if e.created}
        return any(
            order.index(now) - order.index(was) > 1
            for record, order, was, now in self._stage_moves(diff)
            if record in made and now not in FINAL
        )

    def _answers_own(self, entity: Entity, diff: Any) -> bool:
        """Whether an action makes a record of its own kind from one the plan made (a reply
        to the message the plan just sent): one answers what others wrote."""
        made = {(e.service, e.collection, e.id) for e in self.entities if e.created}
        if (entity.service, entity.collection, entity.id) not in made:
            return False
        d = diff.services.get(entity.service, {}).get(entity.collection)
        return d is not None and bool(d.added)

    def _after_calling_off(self, tool: ToolInfo) -> bool:
        """Whether a write would plan on after the request called its matter off (a trip
        cancelled, then its expense report filed and a briefing booked): what follows a
        cancellation is telling people (``CALLED_OFF``)."""
        if self.motif is None or self.motif.name not in CALLED_OFF:
            return False
        if is_message(str(tool.collection or "")):
            return False
        return any(s.write and ends_record(s.tool.name) for s in self.steps)

    def _calls_off_planned(self, tool: ToolInfo) -> bool:
        """Whether an action would call the matter off after the request planned on it
        (a booking cancelled after the hotel rooms were changed for the same trip)."""
        if self.motif is None or self.motif.name not in CALLED_OFF or not ends_record(tool.name):
            return False
        return any(s.write and not is_message(str(s.tool.collection or "")) for s in self.steps)

    def _decided_at_once(self, diff: Any) -> bool:
        """Whether an action puts a record the plan made at a decision (approved, hired)."""
        made = {(e.service, e.collection, e.id) for e in self.entities if e.created}
        for svc, colls in diff.services.items():
            for coll, d in colls.items():
                for rid in d.updated:
                    rec = self._state_record(svc, coll, rid)
                    if (svc, coll, rid) not in made or rec is None:
                        continue
                    if status_of(rec.model_dump(mode="json")) in DECIDED:
                        return True
        return False

    def _past_its_stage(self, diff: Any) -> bool:
        """Whether a record the plan makes or edits hangs on one that stands past the stage
        such records belong to (``direction.past_stage_of``): an interview booked or
        rescheduled for an application that is hired, or advanced to "offer" in the same
        request (what is past is history)."""
        made = {(e.service, e.collection, e.id) for e in self.entities if e.created}
        made |= {
            (s.entity.service, s.entity.collection, s.entity.id)
            for s in self.steps
            if s.write and s.entity is not None
        }
        made |= {
            (svc, coll, rid)
            for svc, colls in diff.services.items()
            for coll, d in colls.items()
            for rid in (*d.added, *d.updated)
        }
        for svc, coll, rid in made:
            info, rec = self._coll(svc, coll), self._state_record(svc, coll, rid)
            if info is None or rec is None:
                continue
            values = rec.model_dump(mode="json")
            for name, meta in info.fields.items():
                if not (meta.key or "").startswith("id:") or not values.get(name):
                    continue
                parent_coll = ref_collection(
                    meta.key[3:], type(self.world.services[svc].state).model_fields
                )
                parent = self._coll(svc, parent_coll)
                held = self._state_record(svc, parent_coll, values[name]) if parent else None
                if parent is None or held is None:
                    continue
                stages = {n: m.enum for n, m in parent.fields.items() if m.enum and is_stage(n)}
                if past_stage_of(stages, held.model_dump(mode="json"), coll):
                    return True
        return False

    def _under_a_halt(self, tool: ToolInfo, diff: Any) -> bool:
        """Whether a write makes or moves on a record under one whose state halts the work
        hanging on it (``coherence.halts_work_under``), up to two links up: an interview
        booked, or an application advanced, for a job on hold, closed or still a draft; a
        purchase order for a vendor on hold. Work that ends the record (an application
        rejected because the job closed), gives money back (a refund) or only remarks on it
        (a comment) goes; so does handing a record on under a parent that waits (the
        application of a job on hold gets a new recruiter when the old one leaves)."""
        if tool.kind == DELETE or ends_record(tool.name):
            return False
        for svc, colls in diff.services.items():
            for coll, d in colls.items():
                words = set(name_words(coll))
                if is_annotation(coll) or is_message(coll) or words & _GIVES_BACK:
                    continue
                info = self._coll(svc, coll)
                for rid in (*d.added, *d.updated):
                    rec = self._state_record(svc, coll, rid)
                    if info is None or rec is None:
                        continue
                    values = self.env.dumps.dump(rec)
                    if str(status_of(values)) in _CALLED_OFF:
                        continue  # the work calls it off (hiring into it does not: "hired")
                    moved = set(d.updated.get(rid, {})) - {"updated_at"}
                    handed = rid not in d.added and moved <= people_fields(info)
                    if self._halted_above(svc, info, values, handed, 2):
                        return True
        return False

    def _halted_above(
        self, svc: str, info: Any, values: dict[str, Any], handed: bool, levels: int
    ) -> bool:
        """Whether a record (``values`` of collection ``info``) hangs, within ``levels``
        links, on one that halts work under it; ``handed``: the write only hands it on."""
        names = type(self.world.services[svc].state).model_fields
        outsider = self._names_outsider(svc, info, values)
        for name, meta in info.fields.items():
            key = meta.key or ""
            if not key.startswith("id:") or not isinstance(values.get(name), str):
                continue
            parent_coll = ref_collection(key[3:], names)
            parent = self._coll(svc, parent_coll) if parent_coll else None
            if parent is None or (svc, parent.name) in self.env.catalogs:
                continue
            if is_person_resource(parent.name):
                continue  # a colleague suspended still has records others take on
            held = self._state_record(svc, parent.name, values[name])
            if held is None:
                continue
            above = self.env.dumps.dump(held)
            stages = {n: m.enum for n, m in parent.fields.items() if m.enum and is_stage(n)}
            state = halts_work_under(above, stages)
            if state == "draft" and (outsider or self._names_outsider(svc, parent, above)):
                return True  # no one outside applies to a job not yet posted
            if state is not None and state != "draft" and not (handed and state in PAUSED):
                return True
            if levels > 1 and self._halted_above(svc, parent, above, handed, levels - 1):
                return True
        return False

    def _names_outsider(self, svc: str, info: Any, values: dict[str, Any]) -> bool:
        """Whether a record names someone outside our organisation (a candidate, an
        attendee, a respondent): by id of a person record that is not staff, or by e-mail."""
        for name, meta in info.fields.items():
            key, value = meta.key or "", values.get(name)
            if not isinstance(value, str) or not value:
                continue
            if key.startswith("id:") and is_person_resource(key[3:]):
                if not is_staff_resource(key[3:]):
                    return True
            elif key == "email" and not self.env.is_staff("email", value):
                return True
        return False

    def _double_booked(self, diff: Any) -> bool:
        """Whether a record a write makes or changes books its person for a span another
        of their records holds, where one is in one such place at a time (two hotel stays
        on the same nights: ``coherence.double_booked``)."""
        for svc, colls in diff.services.items():
            for coll, d in colls.items():
                info = self._coll(svc, coll)
                if info is None:
                    continue
                # who is there (the guest, the driver), not who booked it for them
                who = present_fields(info)
                records = getattr(self.world.services[svc].state, coll)
                dump = self.env.dumps.dump
                for rid in (*d.added, *d.updated):
                    rec = records.get(rid)
                    if rec is None:
                        continue
                    others = (dump(r) for r in records.values() if r is not rec)
                    if double_booked(dump(rec), info.noun, others, who) is not None:
                        return True
        return False

    def _ends_what_it_keeps(self, values: dict[str, Any]) -> bool:
        """Whether an edit would set a final status (closed, cancelled) in a workflow that
        keeps its records going (``motifs.ONGOING``: escalating a ticket and closing it)."""
        return self.motif is not None and self.motif.name in ONGOING and status_of(values) in FINAL

    def _not_theirs_to_do(self, tool: ToolInfo, entity: Entity) -> bool:
        """Whether an action is the record's owner's to take (submitting a report for
        approval) while the colleague the request is for holds another role on it (its
        approver): their part is to decide it, not to file it."""
        if tool_verb(tool.name) not in _OWNERS_ACTS:
            return False
        subjects = self.subjects()
        return any(
            role_of(n) in _DECIDERS and self.env.identity("email", v) in subjects
            for n, v in entity.record.items()
            if isinstance(v, str)
        )

    def _action(self, tool: ToolInfo) -> Step | None:
        if self._after_calling_off(tool) or self._calls_off_planned(tool):
            return None
        entity = self._target(tool)
        if entity is None or (entity.created and ends_record(tool.name)):
            return None
        if ends_record(tool.name) and any(s.write and s.entity is entity for s in self.steps):
            return None  # calling off a record the plan just changed wastes the change
        if self._asked_otherwise(tool, entity):
            return None  # a return asking for an exchange is not refunded
        if self._not_theirs_to_do(tool, entity):
            return None  # an approver does not submit the report they approve
        self._hold_record(entity)
        if tool_verb(tool.name) == "reply":
            self.call_answers = self._recipients(tool, {}, entity)  # its sender reads it
        own = self._own(tool, entity)
        required = self._bind_required(
            tool, {str(tool.own)}, (tool.service, tool.collection), acting_on=entity
        )
        if required is None:
            return None
        bound = {str(tool.own): own, **required}
        if self._told_again(tool, bound, entity) or self._takes_off(entity, required):
            return None
        if against_its_verb(tool.name, entity.record, {n: b.value for n, b in required.items()}):
            return None  # an extension that brings the return forward
        if self._against_its_state(tool, entity, self._record_now(entity), _set(bound, tool)):
            return None  # a checked-in stay keeps its rooms
        if entity.created and status_of({n: b.value for n, b in required.items()}) in FINAL:
            return None  # nothing is made only to be set to "wont_do" or "closed"
        if self._ends_what_it_keeps({n: b.value for n, b in required.items()}) or (
            self.motif is not None and self.motif.name in ONGOING and ends_record(tool.name)
        ):
            return None  # an escalation does not close, or give up on, what it escalates
        # The owner's id beside the record's own ("suspend the customer's line", not "...
        # (customer ID: the customer)"): the record names whose it is.
        lister = (
            own.fact.entity if own.fact is not None and isinstance(own.fact, ListedId) else None
        )
        owners = {
            n
            for n, b in required.items()
            if b.fact is not None
            and b.fact.field == "id"
            and (b.fact.entity is lister or entity.record.get(n) == b.value)
        }
        text = {
            "kind": ACTION,
            "service": title(tool.service),
            "summary": self._on(tool.summary, entity, tool.name),
            "values": self._pairs(bound, {str(tool.own)} | owners),
        }
        return self._write(tool, bound, text, entity)

    def _asked_otherwise(self, tool: ToolInfo, entity: Entity) -> bool:
        """Whether the record asks for another of the outcomes this action (or its
        workflow) is one of: a field whose options name it (a return's resolution: refund,
        exchange, store credit) holds another option."""
        # the action's own verb, and the workflow's name: a refund approves no return
        # that asks for an exchange
        wanted = {tool_verb(tool.name)} | ({self.motif.name} if self.motif is not None else set())
        info = self._coll(entity.service, entity.collection)
        for name, meta in info.fields.items() if info is not None else ():
            if is_stage(name):
                continue  # a status lists where the action leads ("void"), not what was asked
            options = {str(v).casefold() for v in meta.enum or ()}
            value = entity.record.get(name)
            if not isinstance(value, str):
                continue
            if any(w in options and value.casefold() in options - {w} for w in wanted):
                return True
        return False

    def _delete(self, tool: ToolInfo) -> Step | None:
        entity = self._target(tool)
        if entity is None or entity.created or not self.core_work(tool):
            return None  # a record goes only when removing it is the work (an offboarding)
        if any(f.entity is entity for s in self.steps for f in s.sources if s.write):
            return None
        own = self._own(tool, entity)
        text = {"kind": DELETE, "service": title(tool.service), "target": entity.the}
        return self._write(tool, {str(tool.own): own}, text, entity)

    def _on(self, summary: str, entity: Entity, tool_name: str) -> str:
        """``close a ticket`` -> ``close the ticket`` (or ``... for the ticket``). A summary
        that says more than a person would (``refund a received return to the original
        payment method or as store credit``), or that names no object and is not a phrase
        the renderer tidies (``close without merging``), gives way to the tool's own name
        where that is a verb on the record (``refund_return_request`` -> ``refund the
        return request``)."""
        info = self._coll(entity.service, entity.collection)
        noun = info.noun if info else entity.label
        named = _named_action(tool_name, noun)
        if tool_verb(tool_name) == "reply":
            return f"reply to {entity.the}"  # "the sender of the message from Tyler" is Tyler
        if named and _wordy(summary):
            return f"{named} {entity.the}"
        padded = f" {summary}"
        for article in ("a", "an", "the", "one"):
            at = padded.lower().find(f" {article} {noun.lower()}")
            if at >= 0:
                end = at + len(article) + len(noun) + 2
                return (padded[:at] + f" {entity.the}" + padded[end:]).strip()
        m = re.fullmatch(r"(.+?) an? (?:[\w-]+ )*([\w-]+)", summary)
        if m and m.group(2).lower() in noun.lower().split():
            # "reject a return" on a return request; "record a declined quote": "decline";
            # "cancel a pending order" (``cancel_pending_order``): "cancel", not "cancel pending"
            said_words = set(summary.lower().split())
            verb = named if named and not set(named.split()) <= said_words else m.group(1)
            return f"{verb} {entity.the}"
        said = f"{summary} for {entity.the}"
        label = entity.the.removeprefix("the ")
        bare = not ({"a", "an", "the"} & set(summary.lower().split()))
        if named and bare and tidy_summary(said, label) == said:
            return f"{named} {entity.the}"
        return said


# Records that are money, and the verbs that move it.
MONEY_RECORDS = frozenset(
    {"payment", "payments", "charge", "charges", "refund", "refunds", "invoice", "invoices"}
)
MONEY_VERBS = frozenset({"capture", "charge", "refund", "pay", "reimburse", "credit"})


# Roles that give a person work to do (a to-do's assignee, a meeting's host, a message's
# reader): not who wrote a note.
_GIVEN_WORK = TAKES_WORK | {"host", "organizer", "recipient", "owner"}
# Who a new meeting's invite tells about it.
_INVITED = frozenset({"host", "organizer", "attendee", "attendees", "participant", "invitee"})
# Collections of to-dos: a new one tells its assignee there is work.
_TO_DOS = frozenset({"task", "tasks", "todo", "todos", "to_do", "to_dos"})


# States in which a record's business was called off or given up: work that puts a record
# there under a halted parent is its due end (an application rejected as the job closed).
_CALLED_OFF = frozenset(
    {"rejected", "declined", "withdrawn", "canceled", "cancelled", "void", "voided", "lost",
     "closed_lost", "closed", "archived", "wont_do", "abandoned"}
)  # fmt: skip
# Records that give money or goods back: they are made for what was called off.
_GIVES_BACK = frozenset({"refund", "refunds", "credit", "credits", "return", "returns"})


def _set(bound: dict[str, Bound], tool: ToolInfo) -> dict[str, Any]:
    """What a write's arguments set on the record it acts on (all but the one naming it)."""
    return {n: b.value for n, b in bound.items() if n != tool.own}


def _id_as_text(tool: ToolInfo, name: str, bound: Bound) -> bool:
    """Whether a free-text argument (a note, a body: no id, no key) takes a record's raw id,
    which no person writes into a sentence (an id that is a number people quote, such as an
    order's "#W2378156", is not raw)."""
    p = tool.param(name)
    return (
        p is not None
        and p.key is None
        and p.item_key is None
        and bound.fact is not None
        and bound.fact.field == "id"
        and not (isinstance(bound.value, str) and CODE_ID.fullmatch(bound.value))
    )


def moves_money(tool: ToolInfo) -> bool:
    """Whether a write moves money: it makes a payment, charge, refund or invoice, or takes
    or pays one back (``capture``, ``refund`` ...)."""
    if tool.kind == CREATE:
        return bool(set(name_words(str(tool.collection or ""))) & MONEY_RECORDS)
    return tool.kind == ACTION and tool_verb(tool.name) in MONEY_VERBS


def _wordy(summary: str) -> bool:
    """A description's clause that carries conditions or alternatives, not just a verb on
    a record: more than five words, or an "or"."""
    words = summary.split()
    return len(words) > 5 or "or" in words


def _named_action(tool_name: str, noun: str) -> str:
    """The verb a tool's name puts before its record's noun (``check_in_booking`` and
    noun ``booking`` -> ``check in``), or "" where the name is not verb + noun."""
    words = [singular(w) for w in name_words(tool_name)]
    tail = [singular(w) for w in noun.lower().replace("-", " ").split()]
    if not tail or len(words) <= len(tail) or words[-len(tail) :] != tail:
        return ""
    return " ".join(words[: -len(tail)])


_SUMMARY_NOUN = re.compile(r"^\w+ (?:a|an|the) (?:new )?((?:[\w-]+ ?){1,3})$")


def _as_named(the: str, summary: str) -> str:
    """``the tsigkey`` as the tool's own summary names it (``add a TSIG key`` -> ``the TSIG
    key``), where the collection's name runs words together that the summary does not."""
    noun = the.removeprefix("the ")
    if noun.replace(" ", "").lower() in summary.replace(" ", "").lower() and noun in summary:
        return the
    said = _SUMMARY_NOUN.match(summary.strip())
    return f"the {said.group(1).strip()}" if said else the


def _and(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
