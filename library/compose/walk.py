"""The random walk: a chain of tool calls over the dependency graph, executed as it grows.

A walk opens with a lookup of a record a user can name (an email, a phone number, a SKU),
then repeatedly follows a graph edge from a tool already in the plan to one whose required
inputs can be bound: from values earlier outputs showed (the information flow), or from
literals the instruction states (a subject line, a status, a date). Each step runs at once
on the live World, so later steps bind real outputs, selection rules see real matches and a
write that changes nothing is never kept. Records the task needs (decoys for a selection
rule, distractors, the record a cross-service lookup must find) are injected into the state
and remembered, so the initial state can be rebuilt exactly.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from library.compiler.actions import STATUS_FIELDS
from library.compose.catalog import (
    ACTION,
    CREATE,
    DELETE,
    FETCH,
    LOOKUP,
    UPDATE,
    ToolInfo,
    singular,
)
from library.compose.coherence import DONE_FLAGS
from library.compose.departments import fits_department
from library.compose.domains import service_domain
from library.compose.env import ComposeEnv
from library.compose.lookups import Lookups
from library.compose.matters import is_message
from library.compose.motifs import (
    BY_NAME,
    ONE_MATTER,
    SEQUELS,
    STAFF_WORK,
    STAFF_WORKFLOWS,
    Motif,
    for_an_outsider,
    motif_of,
    refuses,
    staff_work,
)
from library.compose.plan import Step, id_alone
from library.compose.prune import purposeful
from library.compose.roles import PERSON_KEYS, hands_over, role_of
from library.compose.task import HARD_SERVICES, HARD_STEPS
from library.compose.topics import request_texts
from library.compose.walk_state import ListedId, Reject
from library.compose.writes import Writes
from library.graph.nodes import name_words
from library.runtime import World
from library.runtime.world import Snapshot
from library.seed.vocab import is_person_resource, is_staff_resource

# Kinds of move and how much each is wanted (while the walk still needs services, after):
# finding the same customer or order in another service and acting on it reads like real
# work; a chain of creates does not.
MOVE_WEIGHTS: dict[str, tuple[float, float]] = {
    "explore_lookup": (3.0, 0.05),
    "explore_create": (1.2, 0.02),
    "act": (1.2, 3.0),
    "local_read": (0.5, 1.0),
    "local_create": (0.3, 0.6),
    "delete": (0.15, 0.3),
}
# How much less likely a lookup is in a service where the workflow writes nothing.
UNWORKED_LOOKUP = 0.2
# How much less likely a read of what hangs on found records is, in a hand-over.
HANDOVER_LOCAL_READ = 0.2
# The share of requests that may open on a mailbox's messages (``start_services``).
BY_MAIL = 0.25
WRITE_MOVES = frozenset({"explore_create", "act", "local_create", "delete"})
# A walk that ends in few services takes up to this many more steps toward this many
# services (``Walker._widen``).
WIDEN_TRIES, WIDE = 2, 3
# A walk whose plan the run already has takes up to this many more steps (``Walker._vary``).
VARY_TRIES = 3
# A long walk that added this many steps in a row without one it keeps may only write next
# (lookups that lead nowhere are pruned, and walking on costs more than it finds); a tool
# that failed this often in a walk is not tried again in it (98% of retries failed).
STALL, MAX_MISSES = 10, 3
# A long walk that has taken ``WANDER_STEPS`` steps of which fewer than ``WANDER_KEPT`` are
# kept (the rest reads nothing uses) has wandered: it stops extending. Measured on 651 walks
# aiming for the hard band (seed 0): none that stopped this way would have reached it, and
# the steps it would have added were thrown away by ``_back_to_one_matter`` (a fifth of the
# whole run's CPU).
WANDER_STEPS, WANDER_KEPT = 10, 0.4


def wandered(steps: int, kept: int) -> bool:
    """Whether a long walk of ``steps`` steps, ``kept`` of them kept, has wandered off."""
    return steps >= WANDER_STEPS and kept < WANDER_KEPT * steps


def single_identity(env: ComposeEnv, steps: Sequence[Step]) -> bool:
    """Whether one person fills every person argument of the plan across two or more
    roles (the customer is also the assignee and the host): different roles are
    different people, so such a plan is not a coherent piece of work."""
    roles: set[str] = set()
    people: set[str] = set()
    subject = ""  # the first person the plan names: whom the request is about
    for step in steps:
        for name, value in step.args.items():
            p = step.tool.param(name)
            key = (p.key or p.item_key) if p else None
            if key not in PERSON_KEYS:
                continue
            role = role_of(name) or singular(str(step.tool.collection or step.tool.name))
            for v in value if isinstance(value, list) else [value]:
                who = env.identity(str(key), v)
                subject = subject or who
                if role == "recipient" and who == subject:
                    continue  # a reply to the customer who asked is no second role of theirs
                roles.add(role)
                people.add(who)
    return len(roles) >= 2 and len(people) == 1


def _move_class(tool: ToolInfo, new_service: bool) -> str:
    if tool.kind == DELETE:
        return "delete"
    if tool.kind in (LOOKUP, FETCH):
        return "explore_lookup" if new_service else "local_read"
    if tool.kind == CREATE:
        return "explore_create" if new_service else "local_create"
    return "act"


class Walker(Lookups, Writes):
    """One candidate task: opens with a lookup, grows along graph edges, then stops."""

    def __init__(self, env: ComposeEnv, world: World, base: Snapshot, rng: random.Random):
        super().__init__(env, world, base, rng)
        self.allowed: frozenset[str] | None = None  # the write tools the workflow takes
        self.core_misses = 0  # steps so far that could not do the workflow's core work
        self.want_colleague = False
        self._by_mail: bool | None = None  # whether this request arrived by e-mail
        self.workflow_odds: dict[str, float] | None = None  # see ``Balance.workflow_odds``
        # Whether the run has as many tasks of a plan (its tools in order) as it takes.
        self.taken: Callable[[tuple[str, ...]], bool] | None = None
        self.misses_of: Counter[str] = Counter()  # failed attempts per tool
        self._scores: dict[str, float] = {}
        self._scored = 0
        self._stack: tuple[Step, frozenset[str] | None] | None = None
        self._work_services: tuple[frozenset[str], frozenset[str]] | None = None
        # (subjects, their department, lookup -> whether it finds work of theirs)
        self._department_fits: tuple[set[str], str | None, dict[str, bool]] | None = None
        self.moves: dict[str, Callable[[ToolInfo], Step | None]] = {
            LOOKUP: self._lookup,
            FETCH: self._fetch,
            CREATE: self._create,
            UPDATE: self._update,
            ACTION: self._action,
            DELETE: self._delete,
        }

    # -- the walk -------------------------------------------------------------------------
    def walk(self) -> None:
        hard = self.rng.random() < self.cfg.hard_share
        if hard:
            self.cfg = self.cfg.hard()
        cfg, rng = self.cfg, self.rng
        # Favour 3+ services: that is where composition is hard and where data is scarce.
        spread = list(range(cfg.min_services, cfg.max_services + 1))
        weights = [1.0 if k < 3 else 2.0 for k in spread]
        target_services = rng.choices(spread, weights)[0]
        low = max(cfg.min_steps, target_services + 1)
        target_steps = rng.randint(min(low, cfg.max_steps), cfg.max_steps)
        if cfg.workflows:
            self.motif = self._choose_workflow()
            if self.motif is not None:
                self.allowed = self.env.motif_tools(self.motif)
                if hard:
                    # A long request is often more than one piece of work for one person (a
                    # refund, then its escalation): every workflow that follows from the
                    # first is allowed too.
                    # Never what the first refuses (a refund, then a new charge).
                    tools = self.catalog.tools
                    for name in SEQUELS.get(self.motif.name, ()):
                        sequel = BY_NAME.get(name)
                        if sequel is not None and any(m is sequel for m, _ in self.env.workflows):
                            self.allowed = self.allowed | {
                                q
                                for q in self.env.sequel_tools(sequel)
                                if not refuses(self.motif, tools[q].name, tools[q].collection)
                            }
        self.max_matters = self._matters_allowed(hard)
        if self.motif is not None:
            sequels = SEQUELS.get(self.motif.name, ()) if hard else ()
            self.works = (self.motif.name, *sequels)
        if not self._start():
            raise Reject("no_start")
        if self.motif is not None and not self._for_this_person(self.motif):
            raise Reject("workflow_not_for_this_person")
        if self.allowed is not None:
            self.allowed = self._for_whom(self.allowed)
        # A long walk counts the steps that will stay in the plan: a lookup whose result
        # nothing uses is pruned, so it is walked past, up to a bound on the work.
        bound = target_steps + (self.cfg.max_steps // 2 if hard else 0)
        best, since = 0, 0
        while (kept := self._kept_steps(hard)) < target_steps and len(self.steps) < bound:
            # Lookups that lead to no work are pruned: a walk that has added nothing it
            # keeps for ``STALL`` steps has wandered off, and only a write may follow.
            if hard and wandered(len(self.steps), kept):
                break
            best, since = (kept, 0) if kept > best else (best, since + 1)
            remaining = len(self.steps) + target_steps - kept
            if self._next(target_services, remaining, writes_only=since > STALL) is None:
                break
            if self.reported_the_work():
                break
        while self.motif is not None and not self._did_core_work():
            # The workflow's own work is what the request is for: a few more steps to
            # reach it before the walk is dropped.
            if len(self.steps) >= cfg.max_steps + 2 or self._next(0, len(self.steps) + 1) is None:
                break
        if not any(s.write for s in self.steps):
            # A walk that only read gets a last chance to write before it is dropped.
            while len(self.steps) < cfg.max_steps and not any(s.write for s in self.steps):
                if self._next(target_services, len(self.steps) + 1, writes_only=True) is None:
                    break
        if hard:
            self._back_to_one_matter()
        self._widen()
        self._vary()
        if self.motif is not None:
            self._act_on_selections()
        self._nothing_left_behind()
        if self._one_person():
            self._bring_colleague()
        if not any(s.write for s in self.steps):
            raise Reject("no_write")
        if cfg.workflows and not self._did_core_work():
            raise Reject("no_workflow")
        if not self._writes_to_them():
            raise Reject("no_follow_up")
        base = self.env.config  # a hard walk that falls short is still a task
        if len(self.steps) < base.min_steps:
            raise Reject("too_short")
        if len(self.services) < base.min_services:
            raise Reject("too_few_services")

    def _writes_to_them(self) -> bool:
        """Whether a follow-up for someone outside reaches them: writes to them (a reply, a
        message, a draft to them) or logs a call with them. One that only comments and
        reassigns follows up on nobody ("Customer contacted; waiting to hear back" with no
        contact)."""
        if self.motif is None or self.motif.name != "follow-up" or not self._for_an_outsider():
            return True
        subjects = {self.env.identity("email", s) for s in self.subjects()}
        return any(
            s.write
            and (
                self._recipients(s.tool, s.args, s.entity) & subjects
                or self._their_call(s, subjects)
            )
            for s in self.steps
        )

    def _their_call(self, step: Step, subjects: set[str]) -> bool:
        """Whether ``step`` writes a call record of a call with one of ``subjects``."""
        entity = step.entity
        if entity is None or not {"call", "calls"} & set(name_words(entity.collection)):
            return False
        return any(
            self.env.identity("phone", v) in subjects
            for v in entity.record.values()
            if isinstance(v, str)
        )

    def _matters_allowed(self, hard: bool) -> int | None:
        """How many matters the request may work on (None: any): one, a few in a long
        request, any for work on a person's own records (their onboarding touches all of
        them) or with no workflow."""
        if self.motif is None or self.motif.name in STAFF_WORKFLOWS:
            return None
        if self.motif.name in ONE_MATTER:
            return self.env.config.matters  # long or not, one meeting, one trip
        if hard:
            self.colleague_matters = self.cfg.colleague_matters or len(self.catalog.tools)
        return self.cfg.matters

    def _back_to_one_matter(self) -> None:
        """A long walk that fell short of the hard band is an ordinary request, and an
        ordinary request is about one matter: it goes back to the last step at which its
        work was done on one matter (``ComposeConfig.matters``)."""
        if self._kept_steps(True) >= HARD_STEPS and len(self.services) >= HARD_SERVICES:
            return
        cap = self.env.config.matters
        self.max_matters, self.colleague_matters = cap, None
        if self.motif is None or self.motif.name in STAFF_WORKFLOWS:
            self.max_matters = None
            return
        # ... and carries out its own workflow, not the ones a long request may add.
        own = self._for_whom(self.env.motif_tools(self.motif))
        self.allowed, self.works, self.matters_memo = own, (self.motif.name,), None
        core = self.env.core_tools(self.motif)

        def one_matter(steps: list[Step]) -> bool:
            writes = [s.tool.qualified for s in steps if s.write]
            if not any(q in core for q in writes) or any(q not in own for q in writes):
                return False
            return self._matters_of(steps).count <= cap

        if one_matter(self.steps):
            return
        for mark in reversed(self.marks):
            if one_matter(self.steps[: mark.steps]):
                self.rewind(mark)
                return
        # No point of the walk did the work on one matter: a string of chores.
        raise Reject("many_matters")

    def _widen(self) -> None:
        """A walk may end in few services (a short one, or one cut back to one matter): a
        few more steps toward ``WIDE`` services the plan keeps, rather than dropping it."""
        least = self.env.config.min_services
        for attempt in range(2 * WIDEN_TRIES):
            kept = {self.steps[i].tool.service for i in purposeful(self.steps, ())}
            if len(kept) >= WIDE or (len(kept) >= least and attempt >= WIDEN_TRIES):
                return
            # Short of the fewest services a task has, it may go a little past its length:
            # a few steps more cost less than walking a new request from scratch.
            longest = self.cfg.max_steps + (2 if len(kept) < least else 0)
            if len(self.steps) >= longest:
                return
            if self._next(len(self.services) + 1, len(self.steps) + 2) is None:
                return

    def _vary(self) -> None:
        """A plan the run already has (the same tools in the same order) is a near-duplicate,
        dropped after all the work of its walk (a fifth of a run's CPU went to such walks):
        its last write, unless that is the workflow's own work, gives way to another."""
        if self.taken is None:
            return
        for _ in range(VARY_TRIES):
            plan = tuple(self.steps[i].tool.qualified for i in purposeful(self.steps, ()))
            if not self.taken(plan):
                return
            last = max((i for i, s in enumerate(self.steps) if s.write), default=0)
            dropped = self.steps[last].tool
            mark = next((m for m in self.marks if m.steps == last), None)
            if mark is None or self.core_work(dropped):
                return
            self.rewind(mark)
            self.misses_of[dropped.qualified] = MAX_MISSES  # not the same write again
            if self._next(0, len(self.steps) + 2, writes_only=True) is None:
                del self.misses_of[dropped.qualified]  # the plan as it was: still a task
                self._attempt(dropped)
                return

    def _for_this_person(self, motif: Motif) -> bool:
        """Whether the person the request starts from can be the one its workflow is for:
        following up is getting back to someone waiting to hear from us (not a colleague's
        odd jobs: a comment here, a meeting there), and an expense claim is a colleague's."""
        subjects = self.subjects()
        staff = any(self.env.is_staff("email", s) for s in subjects)
        if motif.name == "follow-up":
            return not staff
        if motif.name == "scheduling" and not self._opened_on_a_person():
            return False  # someone asks to meet: not an event or a registration record
        opening = self.steps[0].tool if self.steps else None
        if (
            opening is not None
            and motif.name not in STAFF_WORK
            and staff_work(opening.collection, opening.name)
            and not is_person_resource(str(opening.collection or ""))
        ):
            return False  # a customer's refund does not open on our supplier or purchase order
        if motif.name in STAFF_WORK:
            return staff or not subjects
        return True

    def _for_whom(self, tools: frozenset[str]) -> frozenset[str]:
        """The write tools of the workflow that fit the person it is for: a customer's trip
        takes none of the allied work kept for colleagues (no briefing booked about it)."""
        if self.motif is None or not self._for_an_outsider():
            return tools
        by_name = self.catalog.tools
        motif = self.motif
        return frozenset(
            q for q in tools if for_an_outsider(motif, by_name[q].name, by_name[q].collection)
        )

    def _opened_on_a_person(self) -> bool:
        """Whether the request opens by naming a person (their e-mail, phone or name, or
        their message), not a record ("the event 'Open House'")."""
        if not self.steps:
            return False
        opening = self.steps[0]
        if is_message(str(opening.tool.collection or "")):
            return True
        for name, value in opening.args.items():
            p = opening.tool.param(name)
            if p is not None and (p.key or p.item_key) in PERSON_KEYS:
                return True
            if isinstance(value, str) and self.env.pool.person_by_name(value) is not None:
                return True  # a search for their name
        return False

    def _outsider_in_staff_records(self, step: Step) -> bool:
        """Whether a read searches records only our own people have (purchase orders,
        expense reports) for the outside person the request is for: they hold no part in
        them, whatever a record's field says."""
        tool = step.tool
        if step.write or is_person_resource(str(tool.collection or "")):
            return False  # a person record (a shop's users) is the customer's own
        if not staff_work(tool.collection, tool.name) or not self._for_an_outsider():
            return False
        return bool(self.naming_subject(tool, step.args))

    def _colleague_in_customer_records(self, step: Step) -> bool:
        """Whether a step finds or makes an outside person's record (a lead, a contact, a
        customer) as one of our colleagues' own: their address in its own e-mail field."""
        coll = str(step.tool.collection or "")
        if not is_person_resource(coll) or is_staff_resource(coll):
            return False
        for name, value in step.args.items():
            p = step.tool.param(name)
            key = (p.key or p.item_key) if p is not None else None
            if key in PERSON_KEYS and not role_of(name) and self.env.is_staff(str(key), value):
                return True
        return False

    def _leaver_elsewhere(self, lookup: str) -> bool:
        """Whether a lookup in a new service would find nothing of a leaver's to hand over
        (their chat messages, the pull requests they wrote): a hand-over moves on only to
        what they handle there."""
        return (
            self.hands_work_over() and bool(self.steps) and lookup not in self.env.handover_lookups
        )

    def _has_states(self, lookup: str) -> bool:
        """Whether the records a lookup finds have work states (a status, a done flag)."""
        tool = self.catalog.tools[lookup]
        info = self._coll(tool.service, tool.collection)
        return info is not None and any(f in STATUS_FIELDS or f in DONE_FLAGS for f in info.fields)

    def _subjects_department(self, lookup: ToolInfo) -> bool:
        """Whether a lookup finds work the colleague the request is about would hold (the
        one leaving, the one I cover for): by a hand-over role someone of their department
        holds there (a Finance colleague's tickets in Helpdesk are not theirs to hand over,
        a Support agent has no engineering issues), or by no hand-over role at all."""
        if not self.steps:
            return True
        # Asked for every candidate lookup of every step: worked out once per subject.
        subjects = self.subjects()
        memo = self._department_fits
        if memo is None or memo[0] is not subjects:
            memo = self._department_fits = (subjects, self.subject_department(), {})
        fits = memo[2].get(lookup.qualified)
        if fits is None:
            roles = {
                role_of(p.name)
                for p in lookup.params
                if (p.key or p.item_key) in PERSON_KEYS and hands_over(role_of(p.name))
            }
            fits = not roles or any(fits_department(memo[1], lookup.service, r) for r in roles)
            memo[2][lookup.qualified] = fits
        return fits

    def _works_in(self, service: str) -> bool:
        """Whether the workflow writes anything in ``service`` (a lookup there can lead to
        its work; one elsewhere could only lend a person, whom ``Binding._in_story`` keeps
        out of the work's roles)."""
        if self.allowed is None:
            return True
        works = self._work_services
        if works is None or works[0] is not self.allowed:
            services = {self.catalog.tools[q].service for q in self.allowed}
            works = self._work_services = (self.allowed, frozenset(services))
        return service in works[1]

    def _kept_steps(self, pruned: bool) -> int:
        """Steps so far, without the reads nothing uses yet when ``pruned``."""
        return len(purposeful(self.steps, ())) if pruned else len(self.steps)

    def _choose_workflow(self) -> Motif | None:
        options = self.env.workflows
        if self.avoid_domains:
            # Balance: no workflow whose work lies only in domains at their share cap.
            fits = [
                (m, w) for m, w in options if not self.env.motif_domains(m) <= self.avoid_domains
            ]
            options = fits or options
        if not options:
            return None
        odds = self.workflow_odds or {}
        weights = [w * odds.get(m.name, 1.0) for m, w in options]
        return self.rng.choices([m for m, _ in options], weights)[0]

    def core_work(self, tool: ToolInfo) -> bool:
        return self.motif is not None and tool.qualified in self.env.core_tools(self.motif)

    def start_services(self) -> frozenset[str] | None:
        """Where a workflow's request begins: the services that do its core work or keep
        the records it is about (a refund starts from the order, an onboarding from the
        new hire's candidate record)."""
        if self.motif is None:
            return None
        if self._by_mail is None:
            # Some requests arrive by e-mail (the customer's message asking for a refund):
            # a share of walks may open on a mailbox, whose sender the work is then for.
            self._by_mail = self.motif.name != "follow-up" and self.rng.random() < BY_MAIL
        home = self.env.start_services(self.motif)
        return home | self.env.inboxes if self._by_mail else home

    def mail_request(self) -> tuple[str, str, str] | None:
        if not self._by_mail or self.motif is None:
            return None
        texts = request_texts(self.motif.name)
        return self.rng.choice(texts) if texts else None

    def work_starts(self) -> list[ToolInfo]:
        if self.motif is None:
            return []
        return [t for t in self.env.work_starts(self.motif) if t.service not in self.avoid_start]

    def _next(
        self, target_services: int, target_steps: int, writes_only: bool = False
    ) -> Step | None:
        """One more step: pick a kind of move, then a tool along a graph edge, and try
        candidates until one binds and runs."""
        scores = self._edge_scores()
        has_write = any(s.write for s in self.steps)
        if has_write and self.motif is not None:
            # Logging the work (a ticket for the refund) follows from any write: its text
            # names the changed record, a link no shared key draws in the graph.
            for q in self.env.log_tools:
                scores.setdefault(q, 1.0)
            if self._team_s_own_thing():  # (a DNS change is reported to a colleague)
                for q in self.env.report_tools:
                    scores.setdefault(q, 1.0)
        if self.steps and self.hands_work_over():
            # What someone leaving handled is found by their name wherever it is; most of
            # all work that has states (their open tickets, not the closed ones: which is
            # theirs to hand over is a rule), less a document, which is simply theirs.
            for q in self.env.handover_lookups:
                scores.setdefault(q, 4.0 if self._has_states(q) else 1.0)
        remaining = target_steps - len(self.steps)
        must_write = writes_only or (not has_write and remaining <= 1)
        needed = target_services - len(self.services)
        explore = needed > 0
        # Running out of steps: spend the rest on reaching new services.
        must_explore = explore and not must_write and remaining <= needed + (0 if has_write else 1)
        classes: dict[str, list[tuple[float, str]]] = {}
        live = {(e.service, e.collection) for e in self.entities if not e.deleted}
        held = {(e.service, e.collection) for e in self.entities}
        # records known by the id another record lists can be acted on too
        live |= {(f.entity.service, str(f.key)[3:]) for f in self.facts if isinstance(f, ListedId)}
        # A workflow's plan writes only what the workflow does; nothing once it is reported done.
        allowed = self.allowed
        reported = self.reported_the_work()
        tools, used, twins = self.catalog.tools, self.used, self.env.twins
        services = set(self.services)
        for name in sorted(scores):
            tool = tools.get(name)
            if tool is None or tool.kind is None or name in used:
                continue
            if must_write and not tool.write:
                continue
            if tool.write and reported:
                continue
            if tool.write and allowed is not None and name not in allowed:
                continue
            new_service = tool.service not in services
            if new_service and tool.service in self.avoid:
                continue  # at its share cap in this run (``ComposeConfig.max_service_share``)
            if new_service and not twins.get(tool.service, frozenset()).isdisjoint(services):
                continue  # the same product as a service the task uses (``ComposeEnv.twins``)
            move = _move_class(tool, new_service)
            if must_explore and not move.startswith("explore"):
                continue
            if move == "explore_lookup" and self._leaver_elsewhere(name):
                continue
            if tool.kind == LOOKUP and not self._subjects_department(tool):
                continue
            if move.startswith("explore") and not self._fits_stack(tool.service):
                continue
            if not self._plausible(tool, move, live, held):
                continue
            weight = scores[name]
            if move == "explore_lookup" and not self._works_in(tool.service):
                # What it finds can feed the work only by a business key, a rule or the
                # answer (no one there takes a role in it): most such reads are pruned.
                weight *= UNWORKED_LOOKUP
            # Efraimidis-Spirakis keys: a weighted random order in one sort.
            key = self.rng.random() ** (1.0 / weight)
            classes.setdefault(move, []).append((key, name))
        if self.motif is not None:
            # Lean toward the workflow's own work: its core tools (or, when the workflow
            # came from the first write, all its tools), thrice as likely.
            fitting = (
                self.env.core_tools(self.motif)
                if self.cfg.workflows
                else self.env.motif_tools(self.motif)
            )
            if self.hands_work_over():
                fitting = fitting | self.env.handover_tools  # handing work over is the work
            for move, items in classes.items():
                if move in WRITE_MOVES:
                    classes[move] = [
                        (k ** (1 / 3), n) if n in fitting else (k, n) for k, n in items
                    ]
        weights = {
            m: MOVE_WEIGHTS[m][0 if explore else 1]
            * (2.0 if m in WRITE_MOVES and not has_write else 1.0)
            for m in classes
        }
        if self.hands_work_over() and "local_read" in weights:
            # What hangs on a leaver's records (a ticket's comments) hands nothing over.
            weights["local_read"] *= HANDOVER_LOCAL_READ
        order = sorted(
            (m for m in classes if weights[m] > 0),
            key=lambda m: self.rng.random() ** (1.0 / weights[m]),
            reverse=True,
        )
        tries = self.cfg.tries_per_step
        if self.motif is not None and self.cfg.workflows and not self._did_core_work():
            # The workflow's own work first, while it is not done (a walk that never
            # gets to it is dropped).
            core = self.env.core_tools(self.motif)
            # A removal ends the work on its record (an offboarding deletes last).
            last = remaining <= 1
            ready = sorted(
                (k, n)
                for items in classes.values()
                for k, n in items
                if n in core and (last or self.catalog.tools[n].kind != DELETE)
            )
            for _, name in ready[::-1][: max(2, tries // 4)]:
                tries -= 1
                step = self._attempt(self.catalog.tools[name])
                if step is not None:
                    return step
            # A lookup that found a record's id alone (``ToolInfo.id_only``: a user's id by
            # their e-mail) reaches the work through the fetch of that record: the step
            # after it is on the way, not a miss.
            self.core_misses += 0 if self.steps and self.steps[-1].tool.id_only else 1
            if self.core_misses > self.cfg.max_core_misses:
                # Steps after steps that could not get to the work are wasted: a walk
                # this far from its workflow is dropped now, not at its end.
                raise Reject("no_workflow")
        for move in order:
            for _, name in sorted(classes[move], reverse=True)[: max(4, tries // 2)]:
                if tries <= 0:
                    return None
                tries -= 1
                step = self._attempt(self.catalog.tools[name])
                if step is not None:
                    return step
        return None

    def _fits_stack(self, service: str) -> bool:
        """Whether a new service belongs with the work so far: a customer's matter moves
        through the tools that serve customers, a colleague's through the internal ones."""
        if not self.steps or not self.env.config.stacks:
            return True
        if self.hands_work_over():
            return True  # someone leaving hands over their work wherever it is
        first = self.steps[0]
        if self._stack is None or self._stack[0] is not first:
            # Asked for every candidate tool of every step: worked out once per opening.
            self._stack = (first, self.env.stack_of(first))
        group = self._stack[1]
        if self._team_s_own_thing() and service_domain(service) == "support":
            return False  # a team's DNS change is no ticket in the customers' queue
        return group is None or service_domain(service) in group

    def _one_person(self) -> bool:
        """Whether the plan so far, as it will be kept, is ``single_identity``."""
        return single_identity(self.env, [self.steps[i] for i in purposeful(self.steps, ())])

    def may_act_on(self, service: str, collection: str) -> bool:
        if (service, collection) in self.env.catalogs:
            return False  # shared reference records are not edited (see ``_target``)
        if self.allowed is None:
            return True
        ref = f"id:{collection}"
        for name in self.allowed:
            tool = self.catalog.tools[name]
            if tool.service != service:
                continue
            if tool.collection == collection and tool.kind in (UPDATE, ACTION, DELETE):
                return True
            if tool.kind == CREATE and any(p.key == ref for p in tool.params):
                return True
        return False

    def _act_on_selections(self) -> None:
        """A record a selection rule chose that no write touches is a rule nothing can
        check; the workflow acts on it when one of its tools can."""
        for entity in [e for e in self.entities if e.shared and not e.deleted]:
            if any(entity.id in map(str, s.args.values()) for s in self.steps if s.write):
                continue
            if len(self.steps) >= self.cfg.max_steps + 2:
                return
            for name in sorted(self.allowed or ()):
                tool = self.catalog.tools[name]
                if name in self.used or tool.kind not in (UPDATE, ACTION):
                    continue
                if (tool.service, tool.collection) != (entity.service, entity.collection):
                    continue
                if self._attempt(tool) is not None:
                    break

    def _bring_colleague(self) -> None:
        """One more write that involves a colleague (an assignee, an owner, a host): work
        done for one customer still has people on our side."""
        scores = self._edge_scores()
        allowed = self.allowed
        options = [
            q
            for q in sorted(scores, key=lambda q: (-scores[q], q))  # ties by name: stable
            if q not in self.used
            and q in self.env.colleague_tools
            and not (
                self.catalog.tools[q].service in self.avoid
                and self.catalog.tools[q].service not in self.services
            )
            and (allowed is None or q in allowed)
        ]
        self.want_colleague = True
        try:
            for name in options[: self.cfg.tries_per_step]:
                if self._attempt(self.catalog.tools[name]) is not None and not self._one_person():
                    return
        finally:
            self.want_colleague = False

    def _edge_scores(self) -> dict[str, float]:
        """Tools one graph edge away from the plan, by the strongest edge reaching them;
        edges from the last step count half again (kept incrementally: walks are long)."""
        graph = self.env.graph
        for step in self.steps[self._scored :]:
            for succ, attrs in graph.succ[step.tool.qualified].items():
                w = float(attrs["weight"])
                if w > self._scores.get(succ, 0.0):
                    self._scores[succ] = w
        self._scored = len(self.steps)
        if not self.steps:
            return {}
        scores = dict(self._scores)
        for succ, attrs in graph.succ[self.steps[-1].tool.qualified].items():
            w = float(attrs["weight"]) * 1.5
            if w > scores.get(succ, 0.0):
                scores[succ] = w
        return scores

    def _plausible(
        self, tool: ToolInfo, move: str, live: set[tuple[str, Any]], held: set[tuple[str, Any]]
    ) -> bool:
        """A cheap pre-check: acting needs a record of the tool's collection in hand, and
        a collection is looked up once (and fetched once more where that found its id
        alone, ``id_alone``)."""
        key = (tool.service, tool.collection)
        if move in ("act", "delete"):
            return key in live
        if tool.kind == FETCH and key in held:
            found = [e for e in self.entities if (e.service, e.collection) == key]
            return len(found) == 1 and id_alone(found[0].record)
        if tool.kind in (LOOKUP, FETCH):
            return key not in held
        return True

    def _attempt(self, tool: ToolInfo) -> Step | None:
        if self.misses_of[tool.qualified] >= MAX_MISSES:
            return None  # failed this often in this walk (``MAX_MISSES``)
        if tool.write and staff_work(tool.collection, tool.name) and self._for_an_outsider():
            return None  # a customer's matter makes no expense report or employee record
        if tool.write and self._moves_money_again(tool):
            return None
        if tool.write and self.reported_done():
            return None  # "nothing more is needed from you" ends the work
        mark = self.mark()
        self.call_people = {}
        self.call_subject = singular(str(tool.collection or ""))
        self.call_writes = tool.write
        self.call_answers = set()
        self.pending_sources = []
        try:
            step = self.moves[str(tool.kind)](tool)
        except Reject as exc:
            step = None
            self.failures[exc.reason] = self.failures.get(exc.reason, 0) + 1
        if step is not None and self._outsider_in_staff_records(step):
            step = None  # a customer is no requester of our purchase orders
        if step is not None and self._colleague_in_customer_records(step):
            step = None  # a colleague leaving has no lead or customer record of their own
        if step is None:
            # Undo everything the attempt did, injections and a policy-note lookup made
            # for this step included.
            self.rewind(mark)
            self.misses_of[tool.qualified] += 1
            return None
        self.marks.append(mark)
        self.used.add(tool.qualified)
        if tool.service not in self.services:
            self.services.append(tool.service)
        self.steps.append(step)
        if self.motif is None and step.write and not self.cfg.workflows:
            self.motif = motif_of(tool.name, tool.collection)
        return step
