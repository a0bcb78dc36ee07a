"""Mounting simulated tools into a World: as a whole service, or in place of the tools a
generated service could not get right.

A simulated tool has no Python signature to derive schemas from, so instead of ``@tool`` it
gets a ``ToolDef`` built from its spec: the spec's own schemas are published unchanged, and
the runtime's argument model only checks which arguments are present (names may be any JSON
key, so fields are positional with the key as alias); types are checked against the spec's
input schema by the ``WorldModelTool``.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from library.llm import LLMClient, LLMError
from library.runtime import ErrorCode, Service, State, ToolDef, ToolError
from library.toolspec import ToolSpec
from library.world_model.cache import AnswerCache, MemoryAnswerCache
from library.world_model.simulator import WorldModelSettings, WorldModelTool

_UNSET: Any = type("Unset", (), {"__repr__": lambda self: "<unset>"})()
_ANY = TypeAdapter(Any)


class _SpecArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _args_model(spec: ToolSpec) -> tuple[type[BaseModel], list[str]]:
    props = list((spec.input_schema.get("properties") or {}).keys())
    required = set(spec.input_schema.get("required") or [])
    fields: dict[str, Any] = {
        f"a{i}": (Any, Field(... if key in required else _UNSET, alias=key))
        for i, key in enumerate(props)
    }
    model = create_model(f"{_camel(spec.service)}_{spec.name}_args", __base__=_SpecArgs, **fields)
    return model, props


def simulated_tool_def(spec: ToolSpec, tool: WorldModelTool) -> ToolDef:
    args_model, keys = _args_model(spec)

    def call(service: Service, **fields: Any) -> Any:
        arguments = {keys[int(k[1:])]: v for k, v in fields.items() if v is not _UNSET}
        try:
            sim = tool.call(service.state, arguments, now=service.now())
        except LLMError as exc:  # ModelNotConfigured: say so in the envelope
            raise ToolError(ErrorCode.INTERNAL, str(exc)) from None
        if not sim.envelope["success"]:
            err = sim.envelope["error"]
            raise ToolError(err["code"], err["message"])
        if sim.state is not None:
            # A write call: the World cloned the state before the call and rolls back on
            # error, so installing the validated new state here is all that is needed.
            service.state = sim.state
        return sim.envelope["data"]

    return ToolDef(
        name=spec.name,
        description=spec.description or spec.name,
        write=tool.writes,
        func=call,
        args_model=args_model,
        output=_ANY,
        input_schema=spec.input_schema,
        output_schema=spec.output_schema,
        output_is_exact=lambda _: True,  # the WorldModelTool validated it already
    )


def with_simulated_tools(
    base: type[Service],
    specs: list[ToolSpec],
    client: LLMClient,
    *,
    settings: WorldModelSettings | None = None,
    cache: AnswerCache | None = None,
) -> type[Service]:
    """A subclass of ``base`` whose tools named in ``specs`` (replaced or added) are answered
    by the world model; its other tools stay as written."""
    cache = cache if cache is not None else MemoryAnswerCache()
    settings = settings if settings is not None else WorldModelSettings.from_env()
    cls = type(base.__name__, (base,), {"__module__": base.__module__})
    tools = dict(base.tools)
    for spec in specs:
        tools[spec.name] = simulated_tool_def(
            spec, WorldModelTool(spec, client, settings=settings, cache=cache)
        )
    cls.tools = tools
    return cls


def simulated_service(
    name: str,
    specs: list[ToolSpec],
    state_cls: type[State],
    client: LLMClient,
    *,
    description: str = "",
    settings: WorldModelSettings | None = None,
    cache: AnswerCache | None = None,
    state: State | None = None,
) -> Service:
    """A service instance, ready to mount, all of whose tools are simulated."""
    base = type(
        _camel(name),
        (Service,),
        {
            "name": name,
            "description": description or f"{name} (simulated)",
            "State": state_cls,
            "__module__": __name__,
        },
    )
    cls = with_simulated_tools(base, specs, client, settings=settings, cache=cache)
    return cls(state)


def _camel(name: str) -> str:
    return "".join(p.capitalize() for p in re.split(r"[^0-9A-Za-z]+", name) if p) or "Service"
