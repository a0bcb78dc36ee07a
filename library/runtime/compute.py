"""Stateless computations: the answers of tools that compute from their arguments and keep
nothing (BFCL's math API, unit conversions, tau's ``calculate``).

Ingestion (``library.ingest.stateless``) recognises such a tool and marks it
``vendor["stateless"] = {"kind", "operation", "operands", "result_key"}``; a compiled service
answers it with :func:`compute`, so the number returned is computed from the arguments, never
stored or simulated, and the conformance suite checks any tier's answer against
:func:`evaluate`. Generated service code may import this module (it imports nothing but the
standard library and the runtime's errors).
"""

from __future__ import annotations

import ast
import math
import operator
import statistics
from collections.abc import Callable
from typing import Any

from library.runtime.errors import ErrorCode, ToolError

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
    "expression": ("expression", lambda xs: arithmetic(xs[0])),
}
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


# Units a ``convert(value, unit_in, unit_out)`` tool may be given: name -> (dimension, size in
# the dimension's base unit). Exact by definition (the international yard and pound, the US
# gallon); temperatures are not proportional and are converted through kelvin below.
_LINEAR: dict[str, tuple[str, float]] = {}
for _dimension, _units in {
    "length": {
        ("m", "meter", "meters", "metre", "metres"): 1.0,
        ("km", "kilometer", "kilometers", "kilometre", "kilometres"): 1000.0,
        ("cm", "centimeter", "centimeters", "centimetre", "centimetres"): 0.01,
        ("mm", "millimeter", "millimeters", "millimetre", "millimetres"): 0.001,
        ("in", "inch", "inches"): 0.0254,
        ("ft", "foot", "feet"): 0.3048,
        ("yd", "yard", "yards"): 0.9144,
        ("mi", "mile", "miles"): 1609.344,
    },
    "mass": {
        ("kg", "kilogram", "kilograms"): 1.0,
        ("g", "gram", "grams"): 0.001,
        ("mg", "milligram", "milligrams"): 1e-6,
        ("t", "tonne", "tonnes"): 1000.0,
        ("lb", "lbs", "pound", "pounds"): 0.45359237,
        ("oz", "ounce", "ounces"): 0.028349523125,
    },
    "volume": {
        ("l", "liter", "liters", "litre", "litres"): 1.0,
        ("ml", "milliliter", "milliliters", "millilitre", "millilitres"): 0.001,
        ("m3", "cubic meter", "cubic meters"): 1000.0,
        ("gal", "gallon", "gallons"): 3.785411784,
        ("qt", "quart", "quarts"): 0.946352946,
        ("pt", "pint", "pints"): 0.473176473,
        ("cup", "cups"): 0.2365882365,
        ("fl oz", "fluid ounce", "fluid ounces"): 0.0295735295625,
    },
    "time": {
        ("s", "sec", "second", "seconds"): 1.0,
        ("min", "minute", "minutes"): 60.0,
        ("h", "hr", "hour", "hours"): 3600.0,
        ("d", "day", "days"): 86400.0,
        ("week", "weeks"): 604800.0,
    },
    "speed": {
        ("m/s", "meters per second"): 1.0,
        ("km/h", "kph", "kilometers per hour"): 1000.0 / 3600.0,
        ("mph", "miles per hour"): 1609.344 / 3600.0,
        ("knot", "knots"): 1852.0 / 3600.0,
    },
}.items():
    for _names, _size in _units.items():
        for _name in _names:
            _LINEAR[_name] = (_dimension, _size)
# temperature: name -> (kelvin of 0 on the scale, kelvin per degree)
_TEMPERATURE: dict[str, tuple[float, float]] = {
    **dict.fromkeys(("c", "celsius", "°c", "degc"), (273.15, 1.0)),
    **dict.fromkeys(("f", "fahrenheit", "°f", "degf"), (273.15 - 32 * 5 / 9, 5 / 9)),
    **dict.fromkeys(("k", "kelvin"), (0.0, 1.0)),
}


def convert_units(value: float, source: Any, target: Any) -> float:
    """``value`` in unit ``source`` expressed in unit ``target`` (names as people write them:
    ``km``, ``miles``, ``Fahrenheit``). Raises ValueError for an unknown unit or two units that
    measure different things."""
    a, b = _unit(source), _unit(target)
    if a in _TEMPERATURE and b in _TEMPERATURE:
        (zero_a, step_a), (zero_b, step_b) = _TEMPERATURE[a], _TEMPERATURE[b]
        return (value * step_a + zero_a - zero_b) / step_b
    if a in _LINEAR and b in _LINEAR:
        (dim_a, size_a), (dim_b, size_b) = _LINEAR[a], _LINEAR[b]
        if dim_a == dim_b:
            return value * size_a / size_b
        raise ValueError(f"cannot convert {dim_a} ({source!r}) to {dim_b} ({target!r})")
    unknown = source if a not in _LINEAR and a not in _TEMPERATURE else target
    raise ValueError(f"unknown unit {unknown!r}")


def _unit(name: Any) -> str:
    if not isinstance(name, str):
        raise ValueError(f"a unit is a name, not {name!r}")
    text = " ".join(name.strip().lower().replace("degrees ", "").split())
    return text if text in _LINEAR or text in _TEMPERATURE else text.rstrip("s")


def known_unit(name: str) -> bool:
    unit = _unit(name)
    return unit in _LINEAR or unit in _TEMPERATURE


def compute(stateless: dict[str, Any], arguments: dict[str, Any]) -> dict[str, float]:
    """:func:`evaluate` for a tool body: arguments the operation is not defined on (a division
    by zero, an unknown unit) are refused with ``invalid_argument``."""
    try:
        return evaluate(stateless, arguments)
    except ValueError as exc:
        raise ToolError(ErrorCode.INVALID_ARGUMENT, str(exc)) from None


def evaluate(stateless: dict[str, Any], arguments: dict[str, Any]) -> dict[str, float]:
    """The answer of a ``computation``: ``{result_key: value}``. Raises ValueError (naming the
    problem) for arguments the operation is not defined on."""
    operation = stateless.get("operation")
    operands: dict[str, str] = stateless.get("operands") or {}
    if not isinstance(operation, str):
        raise ValueError(f"{stateless.get('kind')} functions have nothing to compute")
    xs = [arguments[operands[role]] for role in ("x", "y") if role in operands]
    try:
        if operation == "convert_units":
            value = convert_units(
                float(xs[0]), arguments[operands["from"]], arguments[operands["to"]]
            )
        elif operation.startswith("convert:"):
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


def arithmetic(expression: Any) -> float:
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
