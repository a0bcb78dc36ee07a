"""Task domains, from the services a task touches."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

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
_KEYWORDS = (
    ("sales", ("crm", "deal", "lead", "market", "campaign", "quote")),
    ("support", ("help", "ticket", "support", "desk")),
    ("commerce", ("shop", "store", "order", "cart", "inventory", "ship", "commerce")),
    ("finance", ("pay", "invoice", "bill", "ledger", "account", "expense", "tax")),
    ("people", ("hr", "payroll", "employee", "recruit", "leave", "time")),
    ("engineering", ("code", "git", "issue", "deploy", "db", "cloud", "repo")),
    ("travel", ("flight", "hotel", "car", "trip", "travel")),
)


def service_domain(service: str) -> str:
    known = SERVICE_DOMAINS.get(service)
    if known:
        return known
    for domain, words in _KEYWORDS:
        if any(w in service for w in words):
            return domain
    return "collaboration"


def task_domain(services: Sequence[str], writes: Sequence[str] = ()) -> str:
    """The domain most of the task's work happens in (writes count double); ties go to the
    first service, where the task starts."""
    votes: Counter[str] = Counter()
    for s in services:
        votes[service_domain(s)] += 1
    for s in writes:
        votes[service_domain(s)] += 1
    first = service_domain(services[0]) if services else "collaboration"
    return max(votes, key=lambda d: (votes[d], d == first)) if votes else first
