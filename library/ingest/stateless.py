"""Stateless functions: tools that compute an answer from their arguments and keep nothing.

BFCL's math API (``add``, ``square_root``, ``standard_deviation``...), unit conversions
(``gallon_to_liter``), tau's ``calculate(expression)`` and ``think(thought)`` have no resource:
there is no record to create, read or verify a change of. Left to the record compiler they
were "no resource recognised", or worse, read as creating ``values`` because of
``sum_values``. Here they are recognised at ingest, from the name *and* the parameters (an
``add`` of two numbers, a ``mean`` of a list of numbers), and marked:

- ``vendor["stateless"]``: ``{"kind", "operation", "operands", "result_key"}``. ``kind`` is
  ``computation`` (a known operation: the answer is computed by :func:`evaluate`, a pure
  function of the arguments, so a built tool returns the right number, not a stored or
  simulated one), ``conversion`` (a unit conversion whose units the spec leaves open),
  ``no_op`` (``think``: answers nothing, changes nothing), ``handoff`` (tau's transfer to a
  human agent: ends the conversation), ``probe`` (a liveness, readiness or health check
  with no body to fill, ``GET /healthz``: its ``answer`` is "ok" in the declared shape) or
  ``generic`` (declared by its publisher, tau2's ``x-tool-type: generic``, to change no
  domain state).
- ``access`` is ``read`` (source ``stateless``) unless the publisher declared it,
  ``resource`` is None and ``verb`` is ``action`` (``read`` for a probe): no record compiler
  may give them a collection, nor store their answers to look up.
- a computation without a declared output gets ``{result_key: number}``, marked inferred.

What a builder does with them: a ``computation`` is compiled as a read tool whose body returns
``evaluate(spec.vendor["stateless"], arguments)``, a ``probe`` as one answering its
``answer``; ``no_op`` and ``handoff`` answer as theirs do; every other kind has nothing to
compute and no state to verify, and is rejected with :data:`REASON` (or simulated by the world
model).
"""

from __future__ import annotations

import re
from typing import Any

from library.ingest.naming import tokens
from library.runtime.compute import (
    CONVERSIONS,
    OPERATIONS,
    arithmetic,
)
from library.toolspec import ToolSpec, Verb

STATELESS_KEY = "stateless"
REASON = "stateless function: no state to verify"
_DECLARED_ACCESS = frozenset({"x-tool-type", "readOnlyHint", "destructiveHint"})
_EXPRESSION_WORDS = frozenset({"expression", "expr", "formula", "equation"})
_DIGITS = ("precision", "decimal_places", "digits", "ndigits", "decimals", "places")

# tool-name words -> operation (all words must be in the name)
_NAMES: tuple[tuple[tuple[str, ...], str], ...] = (
    (("add",), "add"), (("plus",), "add"), (("subtract",), "subtract"), (("minus",), "subtract"),
    (("multiply",), "multiply"), (("divide",), "divide"), (("power",), "power"),
    (("exponent",), "power"), (("percentage",), "percentage"), (("percent",), "percentage"),
    (("logarithm",), "log"), (("log",), "log"), (("square", "root"), "sqrt"), (("sqrt",), "sqrt"),
    (("absolute",), "abs"), (("abs",), "abs"), (("round",), "round"), (("sum",), "sum"),
    (("total",), "sum"), (("mean",), "mean"), (("average",), "mean"), (("median",), "median"),
    (("max",), "max"), (("maximum",), "max"), (("min",), "min"), (("minimum",), "min"),
    (("standard", "deviation"), "stdev"), (("stdev",), "stdev"), (("calculate",), "expression"),
    (("evaluate",), "expression"), (("calculator",), "expression"),
)  # fmt: skip
_UNIT_WORDS = {"liters": "liter", "litre": "liter", "litres": "liter", "gallons": "gallon",
               "miles": "mile", "kilometers": "kilometer", "kilometres": "kilometer",
               "pounds": "pound", "lb": "pound", "lbs": "pound", "kilogram": "kg",
               "kilograms": "kg", "inches": "inch", "feet": "foot", "meters": "meter",
               "metres": "meter", "metre": "meter"}  # fmt: skip


def classify(spec: ToolSpec) -> dict[str, Any] | None:
    """``vendor["stateless"]`` for a stateless tool, or None for any other."""
    words = tokens(spec.name)
    props: dict[str, Any] = spec.input_schema.get("properties") or {}
    required = [r for r in spec.input_schema.get("required") or () if r in props]
    probe = _probe_answer(spec, words, required)
    if probe is not None:
        return {
            "kind": "probe",
            "operation": None,
            "operands": {},
            "result_key": None,
            "answer": probe[0],
        }
    result_key = _result_key(spec)
    if result_key is False:  # a declared output that is not one value: not a pure function
        return None
    found = _conversion(words, props, required) or _operation(words, props, required)
    if found is not None:
        kind, operation, operands = found
        return {
            "kind": kind,
            "operation": operation,
            "operands": operands,
            "result_key": result_key or "result",
        }
    if _is_conversion(words, props):
        units = _unit_operands(props, required)
        if units is not None and result_key is not False:
            return {
                "kind": "computation",
                "operation": "convert_units",
                "operands": units,
                "result_key": result_key or "result",
            }
        return {"kind": "conversion", "operation": None, "operands": {}, "result_key": None}
    if words[-1:] == ("think",) and len(props) == 1:
        return {"kind": "no_op", "operation": None, "operands": {}, "result_key": None}
    if {"human", "transfer"} <= set(words) and {"agent", "agents"} & set(words):
        # tau's hand-over: ends the conversation, touches no data
        return {"kind": "handoff", "operation": None, "operands": {}, "result_key": None}
    if spec.vendor.get("x-tool-type") == "generic":
        return {"kind": "generic", "operation": None, "operands": {}, "result_key": None}
    return None


# A probe's words: ``GET /healthz``, ``get_api_health``, ``health_check()``, ``ping``.
_PROBE_WORDS = frozenset(
    {"health", "healthz", "healthcheck", "ready", "readyz", "readiness", "live", "livez",
     "liveness", "alive", "ping", "heartbeat"}
)  # fmt: skip
# Words a probe's name may carry beside them (the method, the API's prefix, the check).
_PROBE_FILLER = frozenset(
    {"get", "head", "check", "api", "status", "service", "server", "probe", "endpoint"}
)  # fmt: skip
_VERSION = re.compile(r"^v\d+$")


def _probe_answer(spec: ToolSpec, words: tuple[str, ...], required: list[str]) -> tuple[Any] | None:
    """``(answer,)`` for a liveness, readiness or health probe, else None.

    A probe takes no required argument, is named for nothing but the check (``GET /health``,
    ``get_readyz``, ``health_check()``) and declares no body the service must fill: none, a
    text, a map, an object without properties. Its answer is the state of the service
    itself, up while it answers: "ok" (``pong`` to a ping) in the declared shape, and it
    changes nothing. A probe that declares fields (``{status, version, uptime}``) is left to
    the record compiler, which reads them from the state."""
    if required or not set(words) & _PROBE_WORDS:
        return None
    if not all(w in _PROBE_WORDS or w in _PROBE_FILLER or _VERSION.match(w) for w in words):
        return None
    if spec.http is not None and spec.http.method.upper() not in ("GET", "HEAD"):
        return None
    text = "pong" if "ping" in words else "ok"
    out = spec.output_schema
    if out is None or out == {}:
        return ({"status": text},)
    if not isinstance(out, dict) or out.get("properties") or out.get("required"):
        return None
    kind = out.get("type")
    if kind == "string" and not out.get("pattern") and not out.get("format"):
        enum = out.get("enum")
        if enum:
            fits = [v for v in enum if isinstance(v, str) and v.lower() in ("ok", "up", text)]
            return ((fits or enum)[0],)
        low, high = out.get("minLength", 0), out.get("maxLength", len(text))
        return (text,) if low <= len(text) <= high else None
    if kind == "boolean":
        return (True,)
    if kind == "object":
        more = out.get("additionalProperties", True)
        if more is True or (
            isinstance(more, dict)
            and set(more) <= {"type", "description"}
            and more.get("type", "string") == "string"
        ):
            return ({"status": text},)
        return ({},)
    return None


def _result_key(spec: ToolSpec) -> str | bool | None:
    """The declared output's one number property (None when nothing is declared, False when
    the declared output is something else)."""
    out = spec.output_schema  # declared: stateless tools are marked before any inference
    if out is None:
        return None
    props = out.get("properties")
    if out.get("type") == "object" and isinstance(props, dict) and len(props) == 1:
        key, node = next(iter(props.items()))
        if isinstance(node, dict) and node.get("type") in ("number", "integer"):
            return str(key)
    return False


def _operation(
    words: tuple[str, ...], props: dict[str, Any], required: list[str]
) -> tuple[str, str, dict[str, str]] | None:
    for name_words, operation in _NAMES:
        if not all(w in words for w in name_words):
            continue
        shape, _ = OPERATIONS[operation]
        operands = _operands(shape, props, required)
        if operands is not None:
            digits = next((p for p in props if p in _DIGITS and _is(props[p], "integer")), None)
            if digits is not None:
                operands["digits"] = digits
            return "computation", operation, operands
    return None


def _operands(shape: str, props: dict[str, Any], required: list[str]) -> dict[str, str] | None:
    """Operand role -> parameter, when the required parameters are exactly what the operation
    takes (optional ones other than a precision make it something else)."""
    extra = [p for p in props if p not in required and p not in _DIGITS]
    if extra:
        return None
    values = [p for p in required if p not in _DIGITS]
    if shape == "pair" and len(values) == 2 and all(_number(props[p]) for p in values):
        return {"x": values[0], "y": values[1]}
    if shape == "number" and len(values) == 1 and _number(props[values[0]]):
        return {"x": values[0]}
    if shape == "numbers" and len(values) == 1 and _numbers(props[values[0]]):
        return {"x": values[0]}
    # ``calculate(expression)``; ``calculate_tax(state)`` takes no expression
    text = len(values) == 1 and _is(props[values[0]], "string")
    if shape == "expression" and text and set(tokens(values[0])) & _EXPRESSION_WORDS:
        return {"x": values[0]}
    return None


def _conversion(
    words: tuple[str, ...], props: dict[str, Any], required: list[str]
) -> tuple[str, str, dict[str, str]] | None:
    if "to" not in words:
        return None
    i = words.index("to")
    source = _UNIT_WORDS.get(words[i - 1], words[i - 1]) if i else ""
    target = _UNIT_WORDS.get(words[i + 1], words[i + 1]) if i + 1 < len(words) else ""
    if (source, target) not in CONVERSIONS:
        return None
    operands = _operands("number", props, required)
    if operands is None:
        return None
    return "computation", f"convert:{source}:{target}", operands


def _is_conversion(words: tuple[str, ...], props: dict[str, Any]) -> bool:
    """``si_unit_conversion(value, unit_in, unit_out)``: converts, but between units the spec
    does not list."""
    numbers = [p for p, node in props.items() if _number(node)]
    units = [p for p in props if "unit" in tokens(p)]
    return ("conversion" in words or "convert" in words) and len(numbers) == 1 and len(units) >= 2


_SOURCE_WORDS = frozenset({"in", "from", "source", "input", "src"})
_TARGET_WORDS = frozenset({"out", "to", "target", "output", "dest", "destination"})


def _unit_operands(props: dict[str, Any], required: list[str]) -> dict[str, str] | None:
    """``{x, from, to}`` of ``convert(value, unit_in, unit_out)``: one required number and two
    required text units, told apart by their names (``in``/``from`` against ``out``/``to``)."""
    numbers = [p for p in required if _number(props[p])]
    units = [p for p in required if "unit" in tokens(p) and _is(props[p], "string")]
    if len(numbers) != 1 or len(units) != 2 or len(required) != 3:
        return None
    source = [u for u in units if set(tokens(u)) & _SOURCE_WORDS]
    target = [u for u in units if set(tokens(u)) & _TARGET_WORDS]
    if len(source) != 1 or len(target) != 1 or source == target:
        return None
    return {"x": numbers[0], "from": source[0], "to": target[0]}


def _is(node: Any, kind: str) -> bool:
    return isinstance(node, dict) and node.get("type") == kind


def _number(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") in ("number", "integer")


def _numbers(node: Any) -> bool:
    return _is(node, "array") and _number(node.get("items"))


def mark_stateless(specs: list[ToolSpec]) -> list[ToolSpec]:
    """The specs with every stateless tool marked (others unchanged, order kept)."""
    out: list[ToolSpec] = []
    for spec in specs:
        found = classify(spec)
        if found is None:
            out.append(spec)
            continue
        update: dict[str, Any] = {
            "vendor": {**spec.vendor, STATELESS_KEY: found},
            "resource": None,
            # a probe reads the service's own state (it is up); the others act on nothing
            "verb": Verb.READ if found["kind"] == "probe" else Verb.ACTION,
        }
        if found["operation"] == "expression":
            update["input_schema"] = _with_stated_example(spec.input_schema, found)
        if found["operation"] == "convert_units":
            update["input_schema"] = _with_unit_examples(
                spec.input_schema, found, tokens(spec.name)
            )
        if spec.access_source not in _DECLARED_ACCESS:  # what a publisher declares wins
            update |= {"access": "read", "access_source": "stateless"}
        out.append(spec.model_copy(update=update))
    return out


_STATED_EXAMPLE = re.compile(
    r"(?:such as|e\.g\.|for example|like)[:,]?\s*['\"`]([^'\"`]{1,200})['\"`]"
)


def _with_stated_example(schema: dict[str, Any], found: dict[str, Any]) -> dict[str, Any]:
    """The expression parameter with the example its description states (``such as
    '2 + 2'``) as a JSON Schema ``examples`` entry, when it evaluates: a caller (and the
    conformance suite) then has one valid expression the publisher vouches for."""
    name = found["operands"].get("x")
    node = (schema.get("properties") or {}).get(name)
    if not isinstance(node, dict) or node.get("examples"):
        return schema
    match = _STATED_EXAMPLE.search(str(node.get("description") or ""))
    if match is None:
        return schema
    try:
        arithmetic(match.group(1))
    except ValueError:
        return schema
    properties = {**schema["properties"], name: {**node, "examples": [match.group(1)]}}
    return {**schema, "properties": properties}


# Units for the examples of a conversion's unit parameters, by the words of the tool's name
# (``imperial_si_conversion``: from an imperial unit to an SI one); else metres to feet.
_UNIT_PAIRS: tuple[tuple[tuple[str, ...], tuple[str, str]], ...] = (
    (("imperial", "si"), ("foot", "meter")),
    (("metric", "imperial"), ("meter", "foot")),
)


def _with_unit_examples(
    schema: dict[str, Any], found: dict[str, Any], words: tuple[str, ...]
) -> dict[str, Any]:
    """The unit parameters with one unit each as a JSON Schema ``examples`` entry, when the
    spec gives none: a caller (and the conformance suite) then has one valid pair."""
    operands = found["operands"]
    props = schema.get("properties") or {}
    pair = next((p for named, p in _UNIT_PAIRS if words[: len(named)] == named), None)
    out = dict(props)
    for role, unit in zip(("from", "to"), pair or ("meter", "foot"), strict=True):
        node = props.get(operands[role])
        if isinstance(node, dict) and not node.get("examples") and not node.get("enum"):
            out[operands[role]] = {**node, "examples": [unit]}
    return {**schema, "properties": out}
