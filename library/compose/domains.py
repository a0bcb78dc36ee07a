"""Task domains, from the services a task touches; each service's category and domain,
inferred from what it says of itself.

Our own services have a known domain (``SERVICE_DOMAINS``). A service built from a user's
specs is profiled from its spec: the categories its document declares
(``x-apisguru-categories``, an MCP registry's ``categories``), then the words of its name,
its collections, its tools and their descriptions, scored against each category's
vocabulary (``CATEGORIES``). A category belongs to one domain, the unit stacks are made of.
Profiles are registered per service name, once, when a composition environment is built
(``register_profiles``); ``service_domain`` reads them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

# Service -> domain for the bundled corpus and the reference services; other services fall
# back to keywords in their name.
SERVICE_DOMAINS: dict[str, str] = {
    "crm": "sales",
    "quotes": "sales",
    "campaigns": "sales",
    "loyalty": "sales",
    "social_media": "sales",
    "event_registration": "sales",
    "analytics": "sales",
    "customer_success": "support",
    "helpdesk": "support",
    "knowledge_base": "support",
    "field_service": "support",
    "reviews": "commerce",
    "storefront": "commerce",
    "inventory": "commerce",
    "shipping": "commerce",
    "returns": "commerce",
    "invoicing": "finance",
    "payments": "finance",
    "subscriptions": "finance",
    "ledger": "finance",
    "procurement": "finance",
    "expenses": "finance",
    "hr": "people",
    "leave": "people",
    "payroll": "people",
    "recruiting": "people",
    "timesheets": "people",
    "identity": "engineering",
    "assets": "engineering",
    "issue_tracker": "engineering",
    "code_hosting": "engineering",
    "db_platform": "engineering",
    "flights": "travel",
    "hotels": "travel",
    "car_rental": "travel",
    "mail": "collaboration",
    "chat": "collaboration",
    "sms": "collaboration",
    "voice": "collaboration",
    "calendar": "collaboration",
    "docs": "collaboration",
    "sheets": "collaboration",
    "file_storage": "collaboration",
    "files": "collaboration",
    "notes": "collaboration",
    "todo": "collaboration",
    "meetings": "collaboration",
    "forms": "collaboration",
    "esign": "collaboration",
    "workplace": "people",
}
# Workflows a team does on its own things (a DNS change, a scaled deployment, a rotated
# key): what one reports goes to a colleague, never into a customer's queue.
TEAM_WORK = frozenset(
    {"incident", "domain setup", "access", "file sharing", "task update", "account change"}
)
_KEYWORDS = (
    ("sales", ("crm", "deal", "lead", "market", "campaign", "quote")),
    ("support", ("help", "ticket", "support", "desk")),
    ("commerce", ("shop", "store", "order", "cart", "inventory", "ship", "commerce")),
    ("finance", ("pay", "invoice", "bill", "ledger", "account", "expense", "tax")),
    ("people", ("hr", "payroll", "employee", "recruit", "leave", "time")),
    ("engineering", ("code", "git", "issue", "deploy", "db", "cloud", "repo")),
    ("travel", ("flight", "hotel", "car", "trip", "travel")),
)


@dataclass(frozen=True, slots=True)
class ServiceProfile:
    service: str
    category: str  # what the tool is (``messaging``, ``payments``, ``dns``...)
    domain: str  # the part of an organisation's work it serves (``CATEGORIES``)
    evidence: str  # why: "declared: payment", "words: invoice x4, bill x2", "known service"


# category -> (domain, vocabulary). Words are matched whole against the tokens of a
# service's name, collections, tool names and descriptions; the declared categories of
# API catalogues (apis.guru, MCP registries) are matched against the category names and
# vocabularies as well.
CATEGORIES: dict[str, tuple[str, frozenset[str]]] = {
    name: (domain, frozenset(words.split()))
    for name, domain, words in (
        ("crm", "sales", "crm lead leads deal deals opportunity opportunities pipeline prospect "
         "prospects contact contacts account accounts quote quotes sales"),
        ("marketing", "marketing", "campaign campaigns marketing newsletter newsletters audience "
         "audiences segment segments subscriber subscribers promotion promotions coupon coupons "
         "advertising ads ad seo analytics"),
        ("social", "marketing", "social post posts tweet tweets follower followers feed like "
         "likes hashtag hashtags instagram twitter facebook"),
        # (a customer's queue: incidents are an on-call team's, under devops)
        ("support", "support", "ticket tickets helpdesk support agent agents sla "
         "complaint complaints case cases faq"),
        ("ecommerce", "commerce", "ecommerce shop store product products catalog catalogue "
         "order orders cart carts inventory stock sku skus discount discounts pos merchant"),
        ("shipping", "commerce", "shipping shipment shipments parcel parcels label labels "
         "tracking carrier carriers delivery deliveries postage courier"),
        ("payments", "finance", "payment payments pay charge charges refund refunds checkout "
         "card cards transaction transactions payout payouts wallet"),
        ("accounting", "finance", "invoice invoices bill bills ledger accounting tax vat "
         "expense expenses journal bookkeeping financial finance budget receipt receipts"),
        ("banking", "finance", "bank banking loan loans deposit deposits iban balance "
         "transfer transfers"),
        ("trading", "finance", "stock stocks trade trades trading portfolio watchlist ticker "
         "market broker"),
        ("hr", "people", "employee employees hr payroll leave recruiting candidate candidates "
         "applicant applicants hire hiring onboarding timesheet timesheets"),
        ("training", "people", "training trainings course courses learning webinar webinars "
         "registrant registrants attendee attendees organizer organizers"),
        ("identity", "it", "group groups scim sso identity directory role roles "
         "permission permissions login session sessions auth authentication"),
        ("security", "it", "security vault vaults secret secrets password passwords credential "
         "credentials certificate certificates"),
        ("devops", "engineering", "deployment deployments deploy cluster clusters pod pods "
         "namespace namespaces container containers kubernetes node nodes build builds "
         "pipeline pipelines cloud instance instances incident incidents alert alerts "
         "oncall outage outages"),
        ("code", "engineering", "repository repositories repo repos git commit commits branch "
         "branches pull issue issues code github"),
        ("dns", "engineering", "dns zone zones domain domains whois nameserver "
         "nameservers"),
        ("database", "data", "database databases table tables query queries sql schema "
         "schemas index indexes vector vectors"),
        ("analytics", "data", "analytics report reports dashboard dashboards metric metrics "
         "story stories chart charts cost costs"),
        ("messaging", "communications", "message messages chat chats channel channels "
         "conversation conversations whatsapp presence"),
        ("email", "communications", "email emails mail mails inbox mailbox smtp bounce "
         "bounces sender senders template templates"),
        ("telecom", "communications", "sms mms call calls voice phone phones "
         "telecom device devices sim"),
        ("files", "collaboration", "file files folder folders document documents upload "
         "uploads storage drive directory"),
        ("notes", "collaboration", "note notes memory memories knowledge wiki page pages"),
        ("tasks", "collaboration", "task tasks todo todos checklist checklists project projects "
         "board boards"),
        ("calendar", "collaboration", "calendar event events meeting meetings appointment "
         "appointments schedule"),
        ("travel", "travel", "flight flights airline airlines hotel hotels booking bookings "
         "reservation reservations trip trips travel airport airports passenger passengers"),
        ("automotive", "travel", "vehicle vehicles car cars engine fuel tire tires"),
        ("media", "media", "video videos music song songs playlist playlists image images "
         "photo photos media"),
        ("entertainment", "entertainment", "bet bets betting game games sportsbook "
         "entertainment fun"),
        ("search", "data", "web crawl crawler"),
    )
}  # fmt: skip
# Declared catalogue categories that name no category above, by what they mean.
_DECLARED = {
    "financial": "accounting", "payment": "payments", "telecom": "telecom",
    "messaging": "messaging", "cloud": "devops", "developer_tools": "devops",
    "backend": "database", "collaboration": "tasks", "productivity": "tasks",
    "social": "social", "email": "email", "ecommerce": "ecommerce", "analytics": "analytics",
    "security": "security", "media": "media", "entertainment": "entertainment",
    "marketing": "marketing", "customer_relation": "crm", "crm": "crm", "hr": "hr",
    "storage": "files", "location": "travel", "transport": "travel", "iot": "telecom",
    "project_management": "tasks", "support": "support", "education": "training",
    "enterprise": "analytics", "open_data": "analytics", "tools": "devops",
}  # fmt: skip
_STOP_WORDS = (
    "a an the of to for and or in on by with from is are be this that it its get list "
    "create update delete retrieve returns return all one new id ids api com io v1 v2"
)
_STOP = frozenset(_STOP_WORDS.split())


def _tokens(text: str) -> list[str]:
    return [t for t in re.split(r"[^a-z0-9]+", text.lower()) if t and t not in _STOP]


def infer_profile(
    service: str,
    texts: Iterable[str] = (),
    collections: Iterable[str] = (),
    declared: Iterable[str] = (),
) -> ServiceProfile:
    """The category and domain of ``service``: its declared catalogue categories win
    (the first that names a known category); otherwise the category whose vocabulary its
    name (x6), collections (x2) and tool texts (x1) use most. A service that says nothing
    recognisable is "other"/"collaboration"."""
    known = SERVICE_DOMAINS.get(service)
    if known:
        return ServiceProfile(service, known, known, "known service")
    for raw in declared:
        label = str(raw).strip().lower().replace("-", "_").replace(" ", "_")
        category = label if label in CATEGORIES else _DECLARED.get(label)
        if category:
            return ServiceProfile(service, category, CATEGORIES[category][0], f"declared: {raw}")
    votes: Counter[str] = Counter()
    for weight, words in (
        (6, _tokens(service.replace("_", " "))),
        (2, [t for c in collections for t in _tokens(c.replace("_", " "))]),
        (1, [t for text in texts for t in _tokens(text)]),
    ):
        for word in words:
            for category, (_, vocabulary) in CATEGORIES.items():
                if word in vocabulary:
                    votes[category] += weight
    if not votes:
        return ServiceProfile(service, "other", "collaboration", "no recognisable words")
    # Ties go to the category listed first in CATEGORIES (stable, not by hash order).
    order = {c: i for i, c in enumerate(CATEGORIES)}
    category = max(votes, key=lambda c: (votes[c], -order[c]))
    top = ", ".join(f"{c} {v}" for c, v in votes.most_common(3))
    return ServiceProfile(service, category, CATEGORIES[category][0], f"words: {top}")


_PROFILES: dict[str, ServiceProfile] = {}


def register_profiles(profiles: Iterable[ServiceProfile]) -> None:
    """Make these profiles the ones ``service_domain`` answers from (per service name)."""
    for profile in profiles:
        _PROFILES[profile.service] = profile


def has_profile(service: str) -> bool:
    return service in _PROFILES


def service_profile(service: str) -> ServiceProfile:
    """The registered profile of ``service``, else one inferred from its name alone."""
    return _PROFILES.get(service) or infer_profile(service)


def profiles_of(
    classes: Iterable[object], declared: Mapping[str, Sequence[str]] | None = None
) -> list[ServiceProfile]:
    """Profiles of Service classes, from their own texts (name, description, collections,
    tool names and descriptions) and, where known, the categories their spec declares."""
    out = []
    for cls in classes:
        name = str(getattr(cls, "name", ""))
        tools = getattr(cls, "tools", {}) or {}
        texts = [str(getattr(cls, "description", "") or "")]
        texts += [f"{t} {getattr(d, 'description', '') or ''}" for t, d in tools.items()]
        state = getattr(cls, "State", None)
        collections = list(getattr(state, "model_fields", {}) or {})
        out.append(infer_profile(name, texts, collections, (declared or {}).get(name, ())))
    return out


def service_domain(service: str) -> str:
    known = SERVICE_DOMAINS.get(service)
    if known:
        return known
    profile = _PROFILES.get(service)
    if profile is not None:
        return profile.domain
    for domain, words in _KEYWORDS:
        if any(w in service for w in words):
            return domain
    return "collaboration"


def task_domain(
    services: Sequence[str], writes: Sequence[str] = (), within: Collection[str] = ()
) -> str:
    """The domain most of the task's work happens in (writes count double); ties go to the
    first service, where the task starts. ``within``: the domains of the task's workflow;
    where the plan touches one, the vote is among those (a refund that also books a
    meeting is commerce, not collaboration), so the domain is known once the workflow is
    drawn and the balance cap steers the draw instead of discarding whole walks."""
    votes: Counter[str] = Counter()
    for s in services:
        votes[service_domain(s)] += 1
    for s in writes:
        votes[service_domain(s)] += 1
    own = Counter({d: k for d, k in votes.items() if d in within})
    if own:
        votes = own
    first = service_domain(services[0]) if services else "collaboration"
    return max(votes, key=lambda d: (votes[d], d == first)) if votes else first
