"""Stateless tools: functions that answer from their arguments and keep nothing.

Ingestion marks them ``vendor["stateless"]`` (``library.ingest.stateless``). Four kinds are
compiled, each to a body that touches no state:

- ``computation`` (``add``, ``square_root``, ``imperial_si_conversion``, tau's
  ``calculate``): ``return compute(<marking>, <arguments>)``, the answer computed by
  ``library.runtime.compute`` (a division by zero, a negative square root or an unknown unit is
  refused with ``invalid_argument``);
- ``no_op`` (tau's ``think``): answers an empty string and changes nothing, as tau's does;
- ``handoff`` (a transfer to a human agent): answers that the transfer is made;
- ``probe`` (``GET /healthz``, ``health_check()``): answers the marking's ``answer`` ("ok" in
  the declared shape): the service is up while it answers.

Other kinds (a conversion between units the spec leaves open, a publisher's ``generic`` tool)
have nothing to compute and are rejected with ``library.ingest.stateless.REASON``.
"""

from __future__ import annotations

from typing import Any

from library.compiler.model import OutputPlan, ParamPlan, Shape, ToolPlan
from library.compiler.naming import SERVICE_ATTRS, identifier
from library.compiler.tools import input_params
from library.compiler.types import TypeMapper
from library.ingest.stateless import STATELESS_KEY
from library.toolspec import ToolSpec

STATELESS_KINDS = frozenset({"computation", "no_op", "handoff", "probe"})
HANDOFF_ANSWER = "Transfer successful"  # what tau's transfer tools answer
# Locals and module names of the emitted body: parameters with these names are renamed.
_BODY_NAMES = frozenset({"self", "compute", "arguments"})


def plan_stateless(spec: ToolSpec, mapper: TypeMapper, methods: set[str]) -> ToolPlan:
    """The plan of one stateless tool (``methods``: method names taken, updated)."""
    marking: dict[str, Any] = dict(spec.vendor[STATELESS_KEY])
    params = input_params(spec, mapper, spec.name, _BODY_NAMES)
    plan = answering_tool(spec, params, methods, "compute", "computed from its arguments")
    plan.stateless = marking
    return plan


def answering_tool(
    spec: ToolSpec, params: list[ParamPlan], methods: set[str], verb: str, what: str
) -> ToolPlan:
    """The plan of a tool that keeps no records and answers what its body gives (a stateless
    function, a shell command); ``what`` describes it where the spec does not."""
    method = identifier(spec.name, frozenset(SERVICE_ATTRS | methods))
    methods.add(method)
    return ToolPlan(
        name=spec.name,
        method=method,
        verb=verb,
        resource="",
        description=spec.description.strip() or f"{spec.name}, {what}.",
        params=params,
        output=OutputPlan(Shape.ANSWER),
        write=False,
    )
