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
  human agent: ends the conversation) or ``generic`` (declared by its publisher, tau2's
  ``x-tool-type: generic``, to change no domain state).
- ``access`` is ``read`` (source ``stateless``) unless the publisher declared it,
  ``resource`` is None and ``verb`` is ``action``: no record compiler may give them a
  collection, nor store their answers to look up.
- a computation without a declared output gets ``{result_key: number}``, marked inferred.

What a builder does with them: a ``computation`` is compiled as a read tool whose body returns
``evaluate(spec.vendor["stateless"], arguments)``; every other kind has nothing to compute and
no state to verify, and is rejected with :data:`REASON` (or simulated by the world model).
"""

from __future__ import annotations

import ast
import math
import operator
import re
import statistics
from collections.abc import Callable
from typing import Any

from library.ingest.naming import tokens
from library.toolspec import ToolSpec, Verb

STATELESS_KEY = "stateless"
REASON = "stateless function: no state to verify"
_DECLARED_ACCESS = frozenset({"x-tool-type", "readOnlyHint", "destructiveHint"})
_EXPRESSION_WORDS = frozenset({"expression", "expr", "formula", "equation"})
_DIGITS = ("precision", "decimal_places", "digits", "ndigits", "decimals", "places")

Numbers = list[float]


def _binary(fn: Callable[[float, float], float]) -> Callable[[list[Any]], float]:
    return lambda xs: fn(xs[0], xs[1])


def _divide(a: float, b: float) -> float:
    if b == 0:
        raise ValueError("division by zero")
    return a / b


def _sqrt(x: float) -> float:
    if x < 0:
        raise ValueError("the square root of a negative number is not a real number")
    return math.sqrt(x)


def _log(value: float, base: float) -> float:
    if value <= 0 or base <= 0 or base == 1:
        raise ValueError("a logarithm needs a positive value and a positive base other than 1")
    return math.log(value, base)


def _percentage(part: float, whole: float) -> float:
    if whole == 0:
        raise ValueError("a percentage of a whole of zero")
    return part / whole * 100


def _non_empty(fn: Callable[[Numbers], float]) -> Callable[[list[Any]], float]:
    def run(xs: list[Any]) -> float:
        if not xs[0]:
            raise ValueError("the list of numbers is empty")
        return fn(xs[0])

    return run


def _stdev(numbers: Numbers) -> float:
    # population standard deviation: the list is the whole data set the caller gives
    return statistics.pstdev(numbers)


def _power(base: float, exponent: float) -> float:
    try:
        result = base**exponent
    except (OverflowError, ZeroDivisionError) as exc:
        raise ValueError(f"power: {exc}") from None
    if isinstance(result, complex):
        raise ValueError("a negative base to a fractional power is not a real number")
    return float(result)


# operation -> (operand shape, implementation). Shapes: "pair" (two numbers, in the order the
# parameters are declared), "number" (one), "numbers" (one list of numbers), "expression".
OPERATIONS: dict[str, tuple[str, Callable[[list[Any]], float]]] = {
    "add": ("pair", _binary(operator.add)),
    "subtract": ("pair", _binary(operator.sub)),
    "multiply": ("pair", _binary(operator.mul)),
    "divide": ("pair", _binary(_divide)),
    "power": ("pair", _binary(_power)),
    "percentage": ("pair", _binary(_percentage)),
    "log": ("pair", _binary(_log)),
    "sqrt": ("number", lambda xs: _sqrt(xs[0])),
    "abs": ("number", lambda xs: abs(xs[0])),
    "round": ("number", lambda xs: float(xs[0])),  # the rounding is the digits operand's
    "sum": ("numbers", lambda xs: math.fsum(xs[0])),
    "mean": ("numbers", _non_empty(statistics.fmean)),
    "median": ("numbers", _non_empty(statistics.median)),
    "max": ("numbers", _non_empty(max)),
    "min": ("numbers", _non_empty(min)),
    "stdev": ("numbers", _non_empty(_stdev)),
    "expression": ("expression", lambda xs: _arithmetic(xs[0])),
}
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
# Fixed conversions named ``<from>_to_<to>``: units per unit (exact by definition), each
# pair also read backwards; temperatures are not proportional and are written out.
_FACTORS: dict[tuple[str, str], float] = {
    ("gallon", "liter"): 3.785411784,  # US gallon
    ("mile", "km"): 1.609344,
    ("mile", "kilometer"): 1.609344,
    ("pound", "kg"): 0.45359237,
    ("inch", "cm"): 2.54,
    ("foot", "meter"): 0.3048,
}


def _scale(factor: float) -> Callable[[float], float]:
    return lambda x: x * factor


CONVERSIONS: dict[tuple[str, str], Callable[[float], float]] = {
    **{pair: _scale(f) for pair, f in _FACTORS.items()},
    **{(b, a): _scale(1 / f) for (a, b), f in _FACTORS.items()},
    ("celsius", "fahrenheit"): lambda x: x * 9 / 5 + 32,
    ("fahrenheit", "celsius"): lambda x: (x - 32) * 5 / 9,
}
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
        return {"kind": "conversion", "operation": None, "operands": {}, "result_key": None}
    if words[-1:] == ("think",) and len(props) == 1:
        return {"kind": "no_op", "operation": None, "operands": {}, "result_key": None}
    if {"human", "transfer"} <= set(words) and {"agent", "agents"} & set(words):
        # tau's hand-over: ends the conversation, touches no data
        return {"kind": "handoff", "operation": None, "operands": {}, "result_key": None}
    if spec.vendor.get("x-tool-type") == "generic":
        return {"kind": "generic", "operation": None, "operands": {}, "result_key": None}
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


def _is(node: Any, kind: str) -> bool:
    return isinstance(node, dict) and node.get("type") == kind


def _number(node: Any) -> bool:
    return isinstance(node, dict) and node.get("type") in ("number", "integer")


def _numbers(node: Any) -> bool:
    return _is(node, "array") and _number(node.get("items"))


def evaluate(stateless: dict[str, Any], arguments: dict[str, Any]) -> dict[str, float]:
    """The answer of a ``computation``: ``{result_key: value}``. Raises ValueError (naming the
    problem) for arguments the operation is not defined on."""
    operation = stateless.get("operation")
    operands: dict[str, str] = stateless.get("operands") or {}
    if not isinstance(operation, str):
        raise ValueError(f"{stateless.get('kind')} functions have nothing to compute")
    xs = [arguments[operands[role]] for role in ("x", "y") if role in operands]
    try:
        if operation.startswith("convert:"):
            _, source, target = operation.split(":")
            value = CONVERSIONS[(source, target)](float(xs[0]))
        else:
            _, run = OPERATIONS[operation]
            value = float(run(xs))
    except OverflowError:  # fsum past the largest float, an integer too large for one
        raise ValueError(f"{operation}: the result is too large for a number") from None
    digits_param = operands.get("digits")
    digits = arguments.get(digits_param) if digits_param else None
    if isinstance(digits, int) and not isinstance(digits, bool):
        value = round(value, digits)
    elif operation == "round":
        value = float(round(value))
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"{operation} gives no finite number for these arguments")
    return {str(stateless.get("result_key") or "result"): value}


_BINARY_OPS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: _divide,
}
MAX_EXPRESSION = 500


def _arithmetic(expression: Any) -> float:
    """Numbers, ``+ - * /``, unary signs and parentheses, as tau's ``calculate`` documents;
    anything else (names, calls, powers) is refused, never evaluated."""
    if not isinstance(expression, str) or len(expression) > MAX_EXPRESSION:
        raise ValueError(f"an expression is a string of at most {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, RecursionError):
        raise ValueError(f"not an arithmetic expression: {expression[:80]!r}") from None
    try:
        return _node(tree.body)
    except (OverflowError, RecursionError):  # a 400-digit literal, 400 signs in a row
        raise ValueError("the expression's numbers are too large or too deep") from None


def _node(node: ast.AST) -> float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _node(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY_OPS:
        return _BINARY_OPS[type(node.op)](_node(node.left), _node(node.right))
    raise ValueError("only numbers, + - * / and parentheses are allowed in an expression")


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
            "verb": Verb.ACTION,
        }
        if found["operation"] == "expression":
            update["input_schema"] = _with_stated_example(spec.input_schema, found)
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
        _arithmetic(match.group(1))
    except ValueError:
        return schema
    properties = {**schema["properties"], name: {**node, "examples": [match.group(1)]}}
    return {**schema, "properties": properties}
