"""Conformance as a sandbox ``invoke`` target: runs inside the locked-down worker on a class
loaded there from untrusted source, so the checks' tool calls stay in-process."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from library.verify.conformance import run_conformance

if TYPE_CHECKING:
    from library.sandbox.worker import InvokeContext


def conformance(ctx: InvokeContext, payload: dict[str, Any]) -> dict[str, Any]:
    """payload: ``{"service": "module:Class", "specs": [ToolSpec dicts], "seed": 0}``.

    Returns ``{"results": [CheckResult rows], "verified": {tool: bool}}``.
    """
    cls = ctx.services[payload["service"]]
    results = run_conformance(cls, payload["specs"], seed=int(payload.get("seed", 0)))
    verified: dict[str, bool] = {}
    for r in results:
        verified[r.tool] = verified.get(r.tool, True) and r.passed
    return {"results": [r.to_row() for r in results], "verified": verified}
