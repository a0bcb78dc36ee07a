"""CompoWorld's Prefect flows: they orchestrate the plain functions of ``tasks/``.

Importing any of them (the CLI, ``from flows.factory import factory``, a deployment's
entrypoint, the nightly flow) applies the project's Prefect defaults first
(:func:`flows.settings.apply_prefect_defaults`): no telemetry, and an API that answers
cross-origin requests from loopback pages only.
"""

from flows.settings import apply_prefect_defaults

apply_prefect_defaults()
