"""Alerts on the nightly expansion: Prefect automations that fire when a nightly run fails,
or when the nightly has grown nothing for two nights.

``compoworld alerts`` creates them (again: same-named automations are replaced) on the
server ``PREFECT_API_URL`` names. They fire on the server, whoever runs the flow:

- ``nightly-expansion failed``: reactive, on a ``nightly-expansion`` flow run entering
  Failed or Crashed;
- ``nightly-expansion grew nothing``: proactive, when no ``compoworld.nightly.grew`` event
  (the nightly emits one each time it builds new services) has come for ``quiet`` (two nights
  and an hour by default), which also covers a nightly that stopped running at all.

With a notification block (``--notify slack-webhook/ops``, a block saved in the UI or with
``prefect block create``) each sends a message through it; without one the automation still
fires, and shows as triggered on its page in the UI and in the event feed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from uuid import UUID

from prefect import get_client
from prefect.events import emit_event
from prefect.events.actions import Action, DoNothing, SendNotification
from prefect.events.schemas.automations import AutomationCore, EventTrigger, Posture

NIGHTLY = "nightly-expansion"
FAILED = f"{NIGHTLY} failed"
QUIET = f"{NIGHTLY} grew nothing"
GREW_EVENT = "compoworld.nightly.grew"
LIBRARY_RESOURCE = "compoworld.library"
TWO_NIGHTS = timedelta(hours=49)  # two nightly runs 24 h apart, and an hour's grace


class AlertSetupError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Alerts:
    failed: UUID
    quiet: UUID


def library_grew(new_services: int, new_tasks: int) -> None:
    """Tell the server the library grew (the event the quiet alert waits for)."""
    emit_event(
        event=GREW_EVENT,
        resource={"prefect.resource.id": LIBRARY_RESOURCE, "prefect.resource.name": "library"},
        payload={"new_services": new_services, "new_tasks": new_tasks},
    )


def failed_trigger() -> EventTrigger:
    return EventTrigger(
        posture=Posture.Reactive,
        expect={"prefect.flow-run.Failed", "prefect.flow-run.Crashed"},
        match={"prefect.resource.id": "prefect.flow-run.*"},
        match_related={"prefect.resource.role": "flow", "prefect.resource.name": NIGHTLY},
        threshold=1,
        within=timedelta(0),
    )


def quiet_trigger(quiet: timedelta) -> EventTrigger:
    return EventTrigger(
        posture=Posture.Proactive,
        expect={GREW_EVENT},
        match={"prefect.resource.id": LIBRARY_RESOURCE},
        threshold=1,
        within=quiet,
    )


def _actions(block: UUID | None, subject: str, body: str) -> list[Action]:
    if block is None:
        return [DoNothing()]
    return [SendNotification(block_document_id=block, subject=subject, body=body)]


def create_alerts(notify: str | None = None, quiet: timedelta = TWO_NIGHTS) -> Alerts:
    """Create (or replace) both automations; ``notify``: a notification block as
    ``<block type>/<name>``, e.g. ``slack-webhook/ops``."""
    with get_client(sync_client=True) as client:
        block = None
        if notify:
            kind, _, name = notify.partition("/")
            if not name:
                raise AlertSetupError(f"--notify {notify!r}: give <block type>/<name>")
            try:
                block = client.read_block_document_by_name(name, kind).id
            except Exception as exc:  # ObjectNotFound, or a type the server does not know
                raise AlertSetupError(f"no notification block {notify!r}: {exc}") from None
        made = {}
        for name, trigger, body in (
            (
                FAILED,
                failed_trigger(),
                "Nightly expansion run {{ flow_run.name }} ended {{ flow_run.state.name }}: "
                "{{ flow_run.state.message }}",
            ),
            (
                QUIET,
                quiet_trigger(quiet),
                f"The nightly expansion built no new services for {quiet}.",
            ),
        ):
            for old in client.read_automations_by_name(name):
                client.delete_automation(old.id)
            made[name] = client.create_automation(
                AutomationCore(
                    name=name,
                    description="CompoWorld alert (compoworld alerts)",
                    enabled=True,
                    trigger=trigger,
                    actions=_actions(block, f"CompoWorld: {name}", body),
                )
            )
    return Alerts(failed=made[FAILED], quiet=made[QUIET])
