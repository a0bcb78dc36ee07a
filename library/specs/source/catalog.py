"""Every bundled service, in a stable order."""

from __future__ import annotations

from .domains import collab, commerce, engineering, finance, people, sales, support, travel
from .model import Service

SERVICES: tuple[Service, ...] = (
    *sales.SERVICES,
    *support.SERVICES,
    *finance.SERVICES,
    *people.SERVICES,
    *collab.SERVICES,
    *engineering.SERVICES,
    *commerce.SERVICES,
    *travel.SERVICES,
)
