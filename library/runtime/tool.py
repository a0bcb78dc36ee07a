"""``@tool``: a method whose JSON schemas come from its signature and docstring."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from library.runtime.collection import Collection
from library.runtime.docstrings import parse_docstring

TOOL_MARK = "__compoworld_tool__"


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=False)


@dataclass(slots=True)
class ToolDef:
    """Everything the runtime knows about one tool, derived once per class."""

    name: str
    description: str
    write: bool
    func: Callable[..., Any]
    args_model: type[BaseModel]
    output: TypeAdapter[Any] | None
    input_schema: dict = field(default_factory=dict)
    output_schema: dict | None = None
    # A cheap exact-type test for common return types; others are checked by pydantic.
    output_is_exact: Callable[[Any], bool] | None = None

    def dump_output(self, result: Any) -> Any:
        """JSON-ready output; raises if it does not match the declared return type."""
        if self.output is None:
            return None
        if self.output_is_exact is not None and self.output_is_exact(result):
            return self.output.dump_python(result, mode="json")
        if type(result) is Collection:  # a state's collection returned as is: a dict to pydantic
            result = result.to_dict()
        return self.output.dump_python(result, mode="json", warnings="error")

    def openai_schema(self, name: str | None = None) -> dict:
        return {
            "type": "function",
            "function": {
                "name": name or self.name,
                "description": self.description,
                "parameters": self.input_schema,
            },
        }

    def mcp_schema(self, name: str | None = None) -> dict:
        entry = {
            "name": name or self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": {"readOnlyHint": not self.write},
        }
        if self.output_schema is not None:
            entry["outputSchema"] = self.output_schema
        return entry


def tool(func: Callable[..., Any] | None = None, *, write: bool = False, name: str | None = None):
    """Mark a Service method as a tool. ``write=True`` for tools that change state.

    Usable bare (``@tool``) or with options (``@tool(write=True)``).
    """

    def mark(f: Callable[..., Any]) -> Callable[..., Any]:
        setattr(f, TOOL_MARK, {"write": write, "name": name or f.__name__})
        return f

    return mark(func) if func is not None else mark


def _clean(schema: Any) -> Any:
    """Drop pydantic's auto titles: noise for a model reading the schema."""
    if isinstance(schema, dict):
        return {
            k: _clean(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))
        }
    if isinstance(schema, list):
        return [_clean(v) for v in schema]
    return schema


def _exact_type_test(returns: Any) -> Callable[[Any], bool] | None:
    if isinstance(returns, type) and issubclass(returns, BaseModel):
        return lambda value: type(value) is returns
    if get_origin(returns) is list:
        (item,) = get_args(returns) or (None,)
        if isinstance(item, type) and issubclass(item, BaseModel):
            return lambda value: type(value) is list and all(type(v) is item for v in value)
    return None


def build_tool_def(owner: type, func: Callable[..., Any]) -> ToolDef:
    opts = getattr(func, TOOL_MARK)
    description, arg_docs, returns_doc = parse_docstring(func.__doc__)
    if not description:
        raise TypeError(f"{owner.__name__}.{func.__name__}: a tool needs a docstring")
    hints = get_type_hints(func, include_extras=True)
    fields: dict[str, Any] = {}
    for pname, param in inspect.signature(func).parameters.items():
        if pname == "self":
            continue
        if pname not in hints:
            raise TypeError(
                f"{owner.__name__}.{func.__name__}: parameter {pname!r} needs a type hint"
            )
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (hints[pname], Field(default, description=arg_docs.get(pname)))
    args_model = create_model(f"{owner.__name__}_{func.__name__}_args", __base__=_Args, **fields)
    input_schema = _clean(args_model.model_json_schema())
    input_schema.setdefault("properties", {})
    input_schema["additionalProperties"] = False
    returns = hints.get("return")
    output = None if returns in (None, type(None)) else TypeAdapter(returns)
    output_schema = None
    if output is not None:
        output_schema = _clean(output.json_schema(mode="serialization"))
        if returns_doc:
            output_schema.setdefault("description", returns_doc)
    return ToolDef(
        output_is_exact=_exact_type_test(returns),
        name=opts["name"],
        description=description,
        write=opts["write"],
        func=func,
        args_model=args_model,
        output=output,
        input_schema=input_schema,
        output_schema=output_schema,
    )
