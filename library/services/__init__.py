"""Hand-written reference services: the model every generated service copies."""

from __future__ import annotations

from library.runtime import Service


def reference_service_classes() -> list[type[Service]]:
    from library.services.crm import Crm

    classes: list[type[Service]] = [Crm]
    try:  # the other reference services land separately
        from library.services.calendar import Calendar
        from library.services.files import Files
        from library.services.mail import Mail

        classes += [Mail, Calendar, Files]
    except ImportError:
        pass
    return classes


def reference_services() -> list[Service]:
    return [cls() for cls in reference_service_classes()]
