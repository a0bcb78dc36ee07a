"""The composition environment: catalog, graph, and seeded worlds to walk in.

Seeding is the expensive part, so each world seed is seeded once with every service
mounted and kept as a snapshot; a candidate task restores it (O(services)) and works on
copy-on-write states from there.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import networkx as nx

from library.compose.catalog import (
    CREATE,
    DELETING,
    FETCH,
    LOOKUP,
    UPDATE,
    Catalog,
    CollectionInfo,
    Param,
    ToolInfo,
    ref_collection,
    top_level,
)
from library.compose.coherence import AWAY_STATES, status_of
from library.compose.config import ComposeConfig
from library.compose.departments import fit_departments
from library.compose.domains import has_profile, profiles_of, register_profiles, service_domain
from library.compose.inject import clone
from library.compose.literals import literal
from library.compose.matters import is_message
from library.compose.motifs import (
    BY_NAME,
    CORE,
    HANDS_OVER,
    LOG_TEXTS,
    MOTIFS,
    STAFF_WORKFLOWS,
    Motif,
    at_home,
    claimed_by,
    fits,
    joins,
    part_of,
)
from library.compose.plan import QUERY_PARAMS, user_knowable
from library.compose.roles import PERSON_KEYS, hands_over, is_staff_role, role_of
from library.compose.views import DumpCache
from library.graph import ToolNode, build_graph, nodes_from_service
from library.graph.keys import field_key
from library.graph.nodes import name_words, tool_verb
from library.runtime import Service, Snapshot, World
from library.runtime.semantic import REF_KEY, SEMANTIC_KEY
from library.runtime.service import State
from library.seed import SeedPool, seed_pool
from library.seed.vocab import ADDRESS_PARTS, is_person_resource, meaning

# The domains one organisation's work moves through for an outside person (a customer, a
# contact, a guest) and for one of its own people.
CUSTOMER_STACK = frozenset(
    {"sales", "marketing", "support", "commerce", "finance", "collaboration", "communications"}
    | {"travel"}
)
INTERNAL_STACK = frozenset(
    {"people", "engineering", "it", "data", "collaboration", "communications", "finance"}
    | {"travel"}
)
# Work on a thing (an order, a cluster, a file) stays among the tools one team runs beside
# the service it starts in: a shop's order goes to payments and support, not to a Kubernetes
# cluster; a betting app's session to nothing but its own payments and messages. Keyed by
# the domain of the task's first service; collaboration and messaging tools sit beside
# anything an organisation does, so a task starting there may go to any of its work.
_WORK = CUSTOMER_STACK | INTERNAL_STACK
THING_STACKS: dict[str, frozenset[str]] = {
    "sales": CUSTOMER_STACK,
    "marketing": CUSTOMER_STACK | {"data"},
    "support": CUSTOMER_STACK,
    "commerce": frozenset(
        {"commerce", "finance", "support", "marketing", "sales", "collaboration", "communications"}
    ),
    "finance": frozenset(
        {"finance", "commerce", "sales", "people", "collaboration", "communications"}
    ),
    "people": INTERNAL_STACK,
    # Not support: its queue holds customers' requests (a ticket system's seeded tickets are
    # customers' returns and questions), no place for a team's DNS change or a scaled
    # deployment; the team logs its work in its own tools (an issue tracker, its chat).
    "engineering": frozenset({"engineering", "it", "data", "collaboration", "communications"}),
    "it": frozenset({"it", "engineering", "people", "collaboration", "communications"}),
    "data": frozenset({"data", "engineering", "it", "marketing", "collaboration"}),
    "travel": frozenset({"travel", "finance", "people", "collaboration", "communications"}),
    "media": frozenset({"media", "marketing", "collaboration", "communications", "data"}),
    "entertainment": frozenset({"entertainment", "finance", "communications", "marketing"}),
    "collaboration": _WORK,
    "communications": _WORK,
}
# Ways a walk comes to hold a record.
_FINDS = frozenset({LOOKUP, FETCH, CREATE})
# Collections of e-mails a mailbox keeps.
_MAILBOX = frozenset({"messages", "emails", "mails", "inbox", "threads"})
# A mail record's fields that say who sent it.
_SENDER = re.compile(r"sender|from|author", re.I)
# Collections a policy note can be: written documents people look things up in.
_DOCUMENTS = frozenset({"articles", "documents", "docs", "notes", "pages", "policies", "posts"})


# (link field, the collection it names, the fields a record shares with the one it names)
Kin = tuple[str, str, tuple[str, ...]]
KIN_PAIRS = 3  # seeded pairs that must agree before a field is taken as shared


class ComposeEnv:
    def __init__(
        self,
        classes: Sequence[type[Service]],
        nodes: Iterable[ToolNode] | None = None,
        config: ComposeConfig | None = None,
        graph: nx.DiGraph | None = None,
    ) -> None:
        self.config = config or ComposeConfig()
        self.classes = {c.name: c for c in classes}
        # Each service's category and domain, from its own texts (stacks and task domains
        # read them); a profile registered before (with declared categories) is kept.
        register_profiles(p for p in profiles_of(classes) if not has_profile(p.service))
        if nodes is None:
            nodes = [n for c in classes for n in nodes_from_service(c)]
        self.nodes = [n for n in nodes if n.service in self.classes]
        self.catalog = Catalog(classes, self.nodes)
        self.graph = graph if graph is not None else build_graph(self.nodes)
        self.pool: SeedPool = seed_pool(self.config.pool_seed)
        self._worlds: dict[int, tuple[World, Snapshot]] = {}
        # Records' JSON by identity (records are frozen; most are the seeded worlds' own).
        self.dumps = DumpCache()
        self.twins = self._twins()
        # Of a product published twice, the copies after the first (by name): one
        # organisation runs one of them, so no task opens in or works through the others
        # (both would double one workflow's share of a run: 13 of 20 real-spec tasks a
        # reviewer read were one shop's refunds).
        self.copies = frozenset(s for s, same in self.twins.items() if min(same) < s)
        self.starts = self._start_tools()
        # Services whose opening finds e-mails: where requests arrive.
        self.inboxes = frozenset(
            t.service for t in self.starts if str(t.collection) in _MAILBOX and t.many
        )
        # Our organisation's people (the pool's staff), and their contact values.
        self.staff = tuple(getattr(self.pool, "staff", ()))
        self._staff_values = {
            # a colleague's private address is still the colleague (no ticket with them as
            # its customer, no candidate record made from it)
            "email": {a.casefold() for p in self.staff for a in (p.email, p.personal_email)},
            "phone": {p.phone for p in self.staff},
            "person_name": {
                v.casefold() for p in self.staff for v in (p.full_name, p.first_name, p.last_name)
            },
        }
        self._staff_memo: dict[tuple[str, str], bool] = {}
        self._away: dict[int, tuple[Snapshot, frozenset[str]]] = {}  # see ``away_in``
        # ... and the private addresses among them: a colleague works in our tools by their
        # work address (a meeting's host is never their personal e-mail).
        self._private = frozenset(p.personal_email.casefold() for p in self.staff)
        self._motif_tools: dict[str, frozenset[str]] = {}
        self._core_tools: dict[str, frozenset[str]] = {}
        self._start_services: dict[str, frozenset[str]] = {}
        self._motif_domains: dict[str, frozenset[str]] = {}
        self._work_starts: dict[str, list[ToolInfo]] = {}
        self.policy_sources = self._policy_sources()
        self.catalogs = self._catalogs()
        self.owned_lists = self._owned_lists()
        self._kin: dict[tuple[str, str], tuple[Kin, ...]] = {}
        self.log_tools = self._log_tools()
        self.report_tools = self._report_tools()
        self.handover_tools = self._handover_tools()
        self.handover_lookups = self._handover_lookups()
        self.workflows = self._workflows()
        # Write tools with a parameter for one of our colleagues (assignee, owner, host).
        self.colleague_tools = frozenset(
            q
            for q, t in self.catalog.tools.items()
            if t.write
            and t.kind is not None
            and any(
                (p.key or p.item_key) in PERSON_KEYS and is_staff_role(role_of(p.name))
                for p in t.params
            )
        )

    def _catalogs(self) -> frozenset[tuple[str, str]]:
        """(service, collection) of shared reference records: other records of the service
        point at them and they name no person (plans, properties, rooms, templates,
        projects). One person's request does not edit them: renaming the plan every
        subscriber is on is not part of one customer's renewal.

        Pieces of someone's work are not shared, though records point at them: a record
        that belongs to a person (a telecom line, its ``customer_id``), one broken down
        into its own sub-items (a checklist task and its subtasks), and one pointed at
        only by itself (a product's ``productUuid`` on the product)."""
        infos = {
            (t.service, t.collection): self.catalog.collection(t.service, t.collection)
            for t in self.catalog.tools.values()
            if t.collection is not None
        }
        referenced = {
            (service, str(f.key)[3:])
            for (service, coll), info in infos.items()
            if info is not None
            for f in info.fields.values()
            if f.key
            and f.key.startswith("id:")
            and str(f.key)[3:] not in (coll, _sub_item_of(str(coll)))
            and not (
                claimed_by(str(f.key)[3:]) and self._nested_under(service, str(coll), str(f.key))
            )
        }
        return frozenset(
            key
            for key, info in infos.items()
            if info is not None
            and key in referenced
            and not any(f.key in PERSON_KEYS for f in info.fields.values())
            and not _person_owned(info)
        )

    def _nested_under(self, service: str, collection: str, key: str) -> bool:
        """Whether records of ``collection`` live under the record ``key`` names: every
        tool of theirs takes its id (a DNS zone's crypto keys), so they are pieces of it;
        a record some workflow works on (a zone, in a DNS change) is then no shared
        reference."""
        tools = [
            t
            for t in self.catalog.tools.values()
            if t.service == service and t.collection == collection
        ]
        return bool(tools) and all(
            any(p.required and p.key == key for p in t.params) for t in tools
        )

    def _log_tools(self) -> frozenset[str]:
        """Creates that log a piece of work (``create_ticket(title, description)``): they
        take nothing but text, and follow-up work may name the changed record in it."""
        follow_up = self.core_tools(BY_NAME["follow-up"])
        return frozenset(
            q
            for q in follow_up
            if (t := self.catalog.tools[q]).kind == CREATE
            and not any(p.required and (p.key or p.item_key) for p in t.params)
            and any(p.name in LOG_TEXTS and p.key is None for p in t.params)
        )

    def _report_tools(self) -> frozenset[str]:
        """Creates that send a message to one person by e-mail (``sendMessage(to, subject,
        body)``): how a team's work on its own things is reported to a colleague."""
        return frozenset(
            q
            for q, t in self.catalog.tools.items()
            if t.kind == CREATE
            and is_message(str(t.collection or ""))
            and [p.key for p in t.params if p.required and p.key] == ["email"]
        )

    def _twins(self) -> dict[str, frozenset[str]]:
        """Service -> the other services that are the same product (most tool names in
        common: two published copies of one shop's API). One organisation runs one of
        them, so a task uses one: the same work in both is padding, not a stack."""
        names: dict[str, set[str]] = {}
        for t in self.catalog.tools.values():
            names.setdefault(t.service, set()).add(t.name)
        out: dict[str, frozenset[str]] = {}
        for a, mine in names.items():
            same = {
                b
                for b, theirs in names.items()
                if b != a and len(mine & theirs) >= TWIN_SHARE * len(mine | theirs)
            }
            if same:
                out[a] = frozenset(same)
        return out

    def kin(self, service: str, collection: str, seeded: Any) -> tuple[Kin, ...]:
        """What a record of ``collection`` shares with the record of another collection of
        its service it names by id (an expense with its report): (link field, that
        collection, the person and currency fields every pair in the seeded state
        ``seeded`` holds alike, over at least ``KIN_PAIRS`` pairs). A field the seeds let
        differ (a CRM activity's owner and its contact's) is no such thing."""
        memo = self._kin.get((service, collection))
        if memo is not None:
            return memo
        kinds = type(seeded).collection_types
        info = self.catalog.collection(service, collection)
        out: list[Kin] = []
        for link, meta in sorted(info.fields.items()) if info is not None else ():
            key = str(meta.key or "")
            parent = ref_collection(key[3:], kinds) if key.startswith("id:") else None
            if parent is None or parent == collection:
                continue
            parents = getattr(seeded, parent)
            pairs = [
                (r, p)
                for r in getattr(seeded, collection).values()
                if (p := parents.get(getattr(r, link, None))) is not None
            ]
            alike = tuple(
                f
                for f, m in sorted(info.fields.items())
                if (m.key in PERSON_KEYS or f == "currency")
                and len(pairs) >= KIN_PAIRS
                and all(getattr(p, f, None) == getattr(r, f, None) for r, p in pairs)
                and any(getattr(p, f, None) is not None for _, p in pairs)
            )
            if alike:
                out.append((link, parent, alike))
        self._kin[(service, collection)] = memo = tuple(out)
        return memo

    def _owned_lists(self) -> dict[tuple[str, str], dict[str, str]]:
        """(service, collection) -> {list field: collection its ids name}, for records that
        list the ids of records no lookup finds (a tau user's ``order_ids``): the only way
        to reach an order there is through its owner's list."""
        looked_up = {
            (t.service, t.collection) for t in self.catalog.tools.values() if t.kind == LOOKUP
        }
        out: dict[tuple[str, str], dict[str, str]] = {}
        for (service, coll), info in self.catalog.collections.items():
            names = list(self.classes[service].State.collection_types)
            schema = info.record_type.model_json_schema()
            for name, (node, _) in top_level(schema).items():
                items = node.get("items") if node.get("type") == "array" else None
                if not isinstance(items, dict):
                    continue
                key = field_key(items.get(SEMANTIC_KEY), items.get(REF_KEY), name, "string")
                target = ref_collection(key[3:], names) if key and key[:3] == "id:" else None
                if target is not None and target != coll and (service, target) not in looked_up:
                    out.setdefault((service, coll), {})[name] = target
        return out

    def _policy_sources(self) -> list[tuple[ToolInfo, Any, str, str]]:
        """Where a house rule can live: searchable documents with a title and a body
        (knowledge-base articles, docs, notes): (search tool, collection, title, body)."""
        out = []
        for tool in self.catalog.tools.values():
            required = [p for p in tool.params if p.required]
            if tool.kind != LOOKUP or [p.name for p in required] != ["query"]:
                continue
            info = self.catalog.collection(tool.service, str(tool.collection))
            if info is None or not set(info.name.split("_")) & _DOCUMENTS:
                continue
            title = next((f for f in ("title", "subject", "name") if f in info.fields), None)
            body = next(
                (f for f in ("body", "content", "text", "description") if f in info.fields), None
            )
            if title and body:
                out.append((tool, info, title, body))
        return sorted(out, key=lambda s: s[0].qualified)

    def stack_of(self, first: Any) -> frozenset[str] | None:
        """The domains a task that opens with step ``first`` moves through: those serving
        customers when it opens on an outside person, the internal ones when it opens on a
        colleague; when it opens on a thing, those one team runs beside the first service
        (``THING_STACKS``; None, anything goes, for a domain not listed there)."""
        values = [v for v in first.args.values() if isinstance(v, str) and "@" in v]
        if not values:
            return THING_STACKS.get(service_domain(first.tool.service))
        return INTERNAL_STACK if self.is_staff("email", values[0]) else CUSTOMER_STACK

    def is_private(self, value: object) -> bool:
        """Whether ``value`` is a colleague's private e-mail address."""
        return isinstance(value, str) and value.strip().casefold() in self._private

    def identity(self, key: str, value: object) -> str:
        """Who a person value (e-mail, name or phone) stands for: their e-mail when the
        pool knows them, else the value itself."""
        text = " ".join(str(value).split())
        pool = self.pool
        person = (
            pool.person_by_email(text) or pool.person_by_name(text) or pool.person_by_phone(text)
        )
        return person.email.casefold() if person is not None else text.casefold()

    def person_by_email(self, email: str) -> Any:
        """The pool person (customer or colleague) with this e-mail, or None."""
        return self.pool.person_by_email(email)

    def motif_tools(self, motif: Motif) -> frozenset[str]:
        """The write tools that belong to a workflow motif (cached per motif)."""
        cached = self._motif_tools.get(motif.name)
        if cached is None:
            cached = frozenset(
                q
                for q, t in self.catalog.tools.items()
                if t.write
                and part_of(motif, t.name, t.collection)
                and at_home(motif, t.name, t.collection, service_domain(t.service))
            )
            if motif.name in HANDS_OVER:
                cached |= self.handover_tools
            cached = frozenset(q for q in cached if not self._ended_otherwise(q, cached))
            self._motif_tools[motif.name] = cached
        return cached

    def _ended_otherwise(self, qualified: str, tools: frozenset[str]) -> bool:
        """Whether ``qualified`` deletes records that another of ``tools`` ends properly
        (HR's ``terminate_employee`` beside ``delete_employee``): a leaver is terminated,
        and their record kept, not wiped."""
        tool = self.catalog.tools[qualified]
        if tool_verb(tool.name) not in DELETING:
            return False
        return any(
            (other := self.catalog.tools[q]).service == tool.service
            and other.collection == tool.collection
            and tool_verb(other.name) in _ENDING
            for q in tools
        )

    def _staff_keep(self, qualified: str) -> bool:
        """Whether the records a tool acts on may be kept for our colleagues (someone
        joining or leaving has a user record there): unless its seeded records name people
        by e-mail and none of them is a colleague. A loyalty programme's members are
        customers, though they are people."""
        tool = self.catalog.tools[qualified]
        world, _ = self.world(0)
        records = getattr(world.services[tool.service].state, str(tool.collection), None)
        if records is None:
            return True
        emails = [
            value
            for record in records.values()
            for value in strings_in(record.model_dump(mode="json"))
            if "@" in value
        ]
        return not emails or any(self.is_staff("email", v) for v in emails)

    def _handover_tools(self) -> frozenset[str]:
        """Edits that can hand a record to another colleague: an update of a record that is
        no person's own and no shared reference record, taking a colleague who handles it
        (assignee, owner, host: ``roles.hands_over``). Not an action such as assigning an
        asset: a leaver's laptop is returned, not given to the next person."""
        return frozenset(
            q
            for q, t in self.catalog.tools.items()
            if t.write
            and t.collection
            and not is_person_resource(t.collection)
            and (t.service, t.collection) not in self.catalogs
            and t.kind == UPDATE
            and any(_hands_over(p) for p in t.params)
        )

    def _handover_lookups(self) -> frozenset[str]:
        """Lookups that find what a colleague handles (``list_tickets(assignee_email)``)
        by a role a hand-over edit of that collection gives to someone else: how a
        leaver's work is found, wherever it is, whether or not the graph joins it to where
        the request began."""
        roles: dict[tuple[str, str | None], set[str]] = {}
        for q in self.handover_tools:
            t = self.catalog.tools[q]
            roles.setdefault((t.service, t.collection), set()).update(
                role_of(p.name) for p in t.params if _hands_over(p)
            )
        return frozenset(
            q
            for q, t in self.catalog.tools.items()
            if t.kind == LOOKUP
            and any(
                (p.key or p.item_key) in PERSON_KEYS
                and role_of(p.name) in roles.get((t.service, t.collection), set())
                for p in t.params
            )
        )

    def sequel_tools(self, motif: Motif) -> frozenset[str]:
        """The write tools a workflow brings when it follows another in one request. A
        follow-up after a refund tells someone (a reply, a note, a comment): its own work
        only, not every edit of a call or a task; other workflows bring their core steps."""
        if motif.name == "follow-up":
            return self.core_tools(motif)
        # Its own core steps, not its allies' (a renewal, then billing, is no refund), and
        # of those the ones that join other work (booking a meeting, not a hotel room, nor
        # cancelling someone's calendar event).
        return frozenset(q for q in self.core_tools(motif) if joins(motif, *self._name_coll(q)))

    def core_tools(self, motif: Motif) -> frozenset[str]:
        """The write tools that are the motif's own work (its verb on its records)."""
        cached = self._core_tools.get(motif.name)
        if cached is None:
            cached = frozenset(
                q
                for q in self.motif_tools(motif)
                if self.catalog.tools[q].service not in self.copies
                and fits(motif, *self._name_coll(q)) >= CORE
                and (motif.name not in STAFF_WORKFLOWS or self._staff_keep(q))
            )
            self._core_tools[motif.name] = cached
        return cached

    def motif_services(self, motif: Motif) -> frozenset[str]:
        """The services that do a motif's core work."""
        return frozenset(self.catalog.tools[q].service for q in self.core_tools(motif))

    def motif_domains(self, motif: Motif) -> frozenset[str]:
        """The domains of the services that do a motif's core work."""
        cached = self._motif_domains.get(motif.name)
        if cached is None:
            cached = frozenset(service_domain(s) for s in self.motif_services(motif))
            self._motif_domains[motif.name] = cached
        return cached

    def start_services(self, motif: Motif) -> frozenset[str]:
        """Services that do the motif's core work or hold records it is about, of those
        the ones from which the work can be reached: a service doing core work some walk
        can do, or one a graph edge leads from into such a service (a telecom customer's
        payment requests are about money, but nothing there leads to a refund)."""
        cached = self._start_services.get(motif.name)
        if cached is None:
            out = {self.catalog.tools[q].service for q in self.core_tools(motif)}
            for t in self.catalog.tools.values():
                # records of its kind (a work order is no order: ``motifs._claimed``)
                if motif.name in claimed_by(str(t.collection or "")) and at_home(
                    motif, t.name, t.collection, service_domain(t.service)
                ):
                    out.add(t.service)
            working = {
                t.service
                for t in (self.catalog.tools[q] for q in self.core_tools(motif))
                if self.reachable(t)
            }
            cached = frozenset(s for s in out if s in working or self._leads_to(s, working))
            self._start_services[motif.name] = cached
        return cached

    def _leads_to(self, service: str, services: set[str]) -> bool:
        """Whether one graph edge leads from a tool of ``service`` into ``services``."""
        tools = self.catalog.tools
        return any(
            tools[succ].service in services
            for q, t in tools.items()
            if t.service == service and q in self.graph
            for succ in self.graph.succ[q]
            if succ in tools
        )

    def work_starts(self, motif: Motif) -> list[ToolInfo]:
        """Start tools that find the records a motif's core tools act on (cached)."""
        cached = self._work_starts.get(motif.name)
        if cached is None:
            acted = {
                (t.service, t.collection)
                for t in (self.catalog.tools[q] for q in self.core_tools(motif))
                if t.own is not None
            }
            cached = [t for t in self.starts if (t.service, t.collection) in acted]
            self._work_starts[motif.name] = cached
        return cached

    def _name_coll(self, qualified: str) -> tuple[str, str | None]:
        tool = self.catalog.tools[qualified]
        return tool.name, tool.collection

    def _workflows(self) -> list[tuple[Motif, float]]:
        """The motifs this library can carry out, weighted by how many services do their
        core work (a workflow one service alone performs is drawn less often)."""
        out = []
        for motif in MOTIFS:
            core = [self.catalog.tools[q] for q in self.core_tools(motif)]
            if any(self.reachable(t) for t in core):
                services = {t.service for t in core}
                if motif.name in HANDS_OVER:
                    # where a leaver's work is handed over takes part in the work too
                    services |= {self.catalog.tools[q].service for q in self.handover_tools}
                out.append((motif, len(services) ** 0.5))
        return out

    def reachable(self, tool: ToolInfo) -> bool:
        """Whether every required input of a tool can be had: its own record and the ids it
        takes are records some lookup, fetch, create or owner's list reaches; a contact
        detail or date is something a record or the user holds; other text is a literal of
        known meaning, or (for a record in hand) the value the record holds. A workflow
        whose every core tool needs an input nothing supplies is not drawn: every walk
        for it would end in ``no_workflow``."""
        info = self.catalog.collection(tool.service, str(tool.collection))
        fields = set(info.fields) if info is not None and tool.own is not None else set()
        rng, now = random.Random(0), dt.datetime(2026, 3, 2, tzinfo=dt.UTC)
        for p in tool.params:
            if not p.required or (p.name in fields and p.name != tool.own):
                continue
            key = p.key or p.item_key
            if p.name == tool.own:
                ok = self._reaches(tool.service, str(tool.collection))
            elif key and key.startswith("id:"):
                names = list(self.classes[tool.service].State.collection_types)
                target = ref_collection(key[3:], names)
                ok = target is not None and self._reaches(tool.service, target)
            elif key:
                ok = True  # contact details, dates, amounts: found or stated
            else:
                where = f"{tool.service}.{tool.collection}"
                ok = literal(p, rng, now, where=where) is not None
            if not ok:
                return False
        return True

    def _reaches(self, service: str, collection: str) -> bool:
        """Whether some record of a collection can be in a walk's hands."""
        if (service, collection) in self.catalogs:
            return False
        if any(
            t.service == service and t.collection == collection and t.kind in _FINDS
            for t in self.catalog.tools.values()
        ):
            return True
        # or listed by an owner some step finds (a customer's ``line_ids``)
        return any(
            svc == service and collection in lists.values() and self._reaches(svc, owner)
            for (svc, owner), lists in self.owned_lists.items()
            if owner != collection
        )

    def is_staff(self, key: str, value: object) -> bool:
        """Whether a person value (e-mail, phone or name) is one of our colleagues."""
        if isinstance(value, list):
            return any(self.is_staff(key, v) for v in value)
        if not isinstance(value, str):
            return False
        memo = self._staff_memo.get((key, value))
        if memo is None:  # asked for every person argument of every attempt: memoised
            known = self._staff_values.get(key, set())
            memo = value.strip().casefold() in known or value in known
            self._staff_memo[(key, value)] = memo
        return memo

    def person_rows(self, states: Iterable[State]) -> Iterator[dict[str, Any]]:
        """Every person record of ``states`` (one per service), as JSON rows."""
        for state in states:
            for coll in type(state).collection_types:
                if is_person_resource(coll):
                    for record in getattr(state, coll).values():
                        yield self.dumps.dump(record)

    def heard_from(self, states: Iterable[State], email: str, phone: str = "") -> frozenset[str]:
        """How ``states`` (a task's initial states) show the person with ``email`` and
        ``phone`` reached us: ``mail`` where a mailbox holds a message they sent,
        ``call`` where a call log holds a call with their number. An opening claims only
        these ("Ann e-mailed us yesterday" needs her e-mail in the inbox)."""
        email = email.casefold()
        out: set[str] = set()
        for state in states:
            for coll in type(state).collection_types:
                words = set(name_words(coll))
                channel = (
                    "mail"
                    if coll in _MAILBOX or (is_message(coll) and "email" in words)
                    else "call"
                    if words & {"call", "calls"}
                    else None
                )
                if channel is None or channel in out:
                    continue
                sought = email if channel == "mail" else phone
                if not sought:
                    continue
                for record in getattr(state, coll).values():
                    row = self.dumps.dump(record)
                    if channel == "mail":  # sent by them, not to them
                        row = {k: v for k, v in row.items() if _SENDER.search(k)}
                    if any(sought in v.casefold() for v in strings_in(row)):
                        out.add(channel)
                        break
        return frozenset(out)

    def _away_among(self, states: Iterable[State]) -> frozenset[str]:
        """The e-mails of colleagues a person record of theirs in ``states`` says are away."""
        return frozenset(
            email.casefold()
            for row in self.person_rows(states)
            if isinstance(email := row.get("email"), str) and status_of(row) in AWAY_STATES
        )

    def away_in(self, base: Snapshot) -> frozenset[str]:
        """The e-mails of colleagues a person record of theirs in ``base`` (a seeded world)
        says are away or gone (an Identity user suspended, an employee on leave): worked out
        once per world, not once per walk (a fifteenth of a run's CPU went to it)."""
        hit = self._away.get(id(base))
        if hit is not None and hit[0] is base:
            return hit[1]
        away = self._away_among(base.states.values())
        self._away[id(base)] = (base, away)
        return away

    def world(self, world_seed: int) -> tuple[World, Snapshot]:
        """The seeded world for ``world_seed`` and its pristine snapshot."""
        cached = self._worlds.get(world_seed)
        if cached is None:
            world = World([self.classes[n]() for n in sorted(self.classes)], seed=world_seed)
            world.seed_states(self.pool, self.config.seed_size)
            # Who holds what fits their department (a ticket is Support's); no work goes to
            # a colleague who is away.
            away = self._away_among(s.state for s in world.services.values())
            fit_departments(world, self.catalog, self.pool, away)
            self._tie_owned_lists(world)
            cached = (world, world.snapshot())
            self._worlds[world_seed] = cached
        world, snap = cached
        world.restore(snap)
        return cached

    def _tie_owned_lists(self, world: World) -> None:
        """Make the seeded records' own lists (``ComposeEnv.owned_lists``) agree with whom
        the listed records belong to: a customer lists exactly the lines that name them
        (``line.customer_id``); where the listed records name no owner, each is listed by
        one owner, dealt out in turn (seeding draws each user's orders on its own, so two
        users could list one order, and many none: one person's order is nobody else's)."""
        for (service, coll), lists in sorted(self.owned_lists.items()):
            state = world.services[service].state.clone()
            owners = getattr(state, coll)
            for field, target in sorted(lists.items()):
                back = self._owner_field(service, target, coll)
                if back is not None:
                    children = getattr(state, target).items()
                    mine = {
                        rid: [c for c, r in children if getattr(r, back, None) == rid]
                        for rid in owners
                    }
                else:
                    mine = _deal(sorted(owners), sorted(getattr(state, target)))
                for rid, ids in mine.items():
                    owners[rid] = owners[rid].model_copy(update={field: sorted(ids)})
                    _sent_home(owners[rid], getattr(state, target), ids)
            world.services[service].state = state
            world.invalidate(service)

    def _owner_field(self, service: str, collection: str, owner: str) -> str | None:
        """The field of ``collection``'s records naming their ``owner`` record (``customer_id``)."""
        info = self.catalog.collection(service, collection)
        names = list(self.classes[service].State.collection_types)
        for name, meta in info.fields.items() if info else ():
            key = meta.key or ""
            if key.startswith("id:") and ref_collection(key[3:], names) == owner:
                return name
        return None

    def identifier(self, service: str, collection: str, name: str) -> bool:
        """Whether a record field holds an id or a generated business identifier."""
        info = self.catalog.collection(service, collection)
        meta = info.fields.get(name) if info else None
        key = meta.key if meta else None
        return bool(key and key.startswith(("id:", "key:"))) or name.endswith(("_id", "_ids"))

    def fresh_world(self, services: Iterable[str], world_seed: int) -> World:
        """A new World of just these services (states to be loaded by the caller)."""
        return World([self.classes[n]() for n in sorted(services)], seed=world_seed)

    def _start_tools(self) -> list[ToolInfo]:
        """Lookups a task can open with: every required input is something a user knows,
        and either some input filters by such a value or the tool lists records a person
        can pick one of by a value they know (the project named "Website relaunch")."""
        out, by_name, listings = [], [], []
        for tool in self.catalog.tools.values():
            if tool.kind != LOOKUP or tool.collection is None or tool.service in self.copies:
                continue
            naming = self.naming(tool)
            required = [p for p in tool.params if p.required]
            if any(not self.start_param(p, naming) for p in required):
                continue
            if any(self.start_param(p) for p in tool.params):
                out.append(tool)
            elif any(self.start_param(p, naming) for p in tool.params):
                by_name.append(tool)
            elif self.listing(tool):
                listings.append(tool)
        # A person filters by a record's name, or scans a list for it, only where the
        # service offers no way to look it up by a contact detail or a business key.
        filtered = {t.service for t in out}
        out += [t for t in by_name + listings if t.service not in filtered]
        return sorted(out, key=lambda t: t.qualified)

    def naming(self, tool: ToolInfo) -> frozenset[str]:
        """The fields of a tool's records a person names one by (see ``naming_fields``)."""
        info = self.catalog.collection(tool.service, str(tool.collection))
        return naming_fields(info) if info is not None else frozenset()

    def listing(self, tool: ToolInfo) -> bool:
        """Whether a lookup lists records to pick one of by a stated value: it returns a
        list, needs no input, and its records have a field a person names them by."""
        return (
            tool.many
            and tool.collection is not None
            and not any(p.required for p in tool.params)
            and bool(self.naming(tool))
        )

    @staticmethod
    def start_param(p: object, naming: frozenset[str] = frozenset()) -> bool:
        """Whether an input takes a value a user can state: a contact detail or business
        key, a search text, or a filter on a field the records are named by."""
        name = getattr(p, "name", "")
        key = getattr(p, "key", None)
        is_text = getattr(p, "type", None) == "string"
        is_query = name in QUERY_PARAMS and is_text
        return user_knowable(key) or is_query or (is_text and key is None and name in naming)


# Fields a person names a record by, besides contact details and business keys.
NAME_FIELDS = frozenset(
    {"name", "title", "subject", "full_name", "display_name", "username", "user_name"}
    | {"label", "slug", "handle", "domain", "hostname", "email", "login", "code", "symbol"}
)


# The share of their tool names (of all either has) two services must have in common to
# be one product published twice.
TWIN_SHARE = 0.6


def _deal(owners: list[str], ids: list[str]) -> dict[str, list[str]]:
    """The listed records dealt out in turn: each one owner's, and every owner holds
    some while there are enough (a shop's customers each have an order to ask about)."""
    out: dict[str, list[str]] = {rid: [] for rid in owners}
    for i, rid in enumerate(ids if owners else ()):
        out[owners[i % len(owners)]].append(rid)
    return out


def _sub_item_of(collection: str) -> str:
    """``subtasks`` -> ``tasks``: the collection whose records these break down ("" if
    the name says no such thing)."""
    return collection.removeprefix("sub") if collection.startswith("sub") else ""


def _person_owned(info: CollectionInfo) -> bool:
    """Whether a record points at a person it belongs to (a line's ``customer_id``)."""
    return any(
        f.key and f.key.startswith("id:") and is_person_resource(f.key[3:])
        for f in info.fields.values()
    )


# Actions that end a record while keeping it (a leaver terminated, not deleted).
_ENDING = frozenset(
    {"terminate", "deactivate", "suspend", "disable", "offboard", "archive", "close", "end"}
)


# Links a person knows a record by: a company's website, someone's profile page.
_PUBLIC_LINKS = frozenset({"website", "homepage", "site", "profile", "linkedin", "domain", "web"})


# Where a record is sent or kept: an owner's listed orders go to the owner's address (an
# ``email_address`` or an ``ip_address`` is no such place).
_PLACE_FIELDS = frozenset({"address", "ship_to", "shipping_address", "delivery_address"})


def _a_place(name: str) -> bool:
    """Whether field ``name`` is an address or a part of one (``address1``, ``zip``)."""
    return name in _PLACE_FIELDS or name == "country" or meaning(name) in ADDRESS_PARTS


def _sent_home(owner: Any, children: dict[str, Any], ids: Iterable[str]) -> None:
    """The records a person lists as theirs (a customer's ``order_ids``) are sent to the
    address the person's record holds, under the same field names: a customer's order
    goes to their home, not to another customer's (seeding draws each address apart)."""
    for cid in ids:
        child = children.get(cid)
        if child is None:
            continue
        changes = {
            name: value.model_dump() if hasattr(value, "model_dump") else value
            for name in type(child).model_fields
            if _a_place(name)
            and name in type(owner).model_fields
            and (value := getattr(owner, name, None)) is not None
        }
        if changes:
            try:
                children[cid] = clone(child, child.id, changes)
            except ValueError:
                continue  # an address of another shape (a line of text, a nested record)


def naming_fields(info: CollectionInfo) -> frozenset[str]:
    """The fields of a collection a person names one of its records by: contact details
    and business keys, and name-like text fields (name, title, username, domain ...)."""
    out = set()
    for n, m in info.fields.items():
        if n in ("id", info.id_key) or m.type not in ("string", None) or m.enum:
            continue
        snake = "_".join(name_words(n))  # userName, display-name: user_name, display_name
        if m.key == "url" and not set(snake.split("_")) & _PUBLIC_LINKS:
            continue  # a record's API address (``zones_url``) names it for no one
        if user_knowable(m.key) or (
            m.key is None and (snake in NAME_FIELDS or snake.endswith("_name"))
        ):
            out.add(n)
    return frozenset(out)


def strings_in(value: Any) -> Iterable[str]:
    """Every string inside a JSON value (nested lists and objects included)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings_in(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings_in(v)


def _hands_over(p: Param) -> bool:
    """Whether parameter ``p`` names the colleague who handles a record (an assignee, an
    owner, a host), whom a hand-over changes."""
    return (p.key or p.item_key) in PERSON_KEYS and hands_over(role_of(p.name))
