"""Gateway mode: four meta-tools that let an agent discover and call any mounted tool."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from library.runtime.errors import ErrorCode, ToolError, fail
from library.runtime.service import Service
from library.runtime.tool import tool
from library.runtime.world import (
    World,
    describe_validation_error,
    parse_arguments,
    run_tool,
    unknown_tool_message,
)


class ServiceInfo(BaseModel):
    name: str
    description: str
    tool_count: int


class ToolInfo(BaseModel):
    name: str
    description: str


class ToolDescription(BaseModel):
    name: str
    description: str
    read_only: bool
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None


class GatewayTools(Service):
    """The meta-tools. Their schemas come from these signatures like any other tool's."""

    name = "gateway"
    description = "Discover and call the tools of the mounted services."

    def __init__(self, world: World) -> None:
        super().__init__()
        self.target = world

    @tool
    def list_services(self) -> list[ServiceInfo]:
        """List the services available in this workspace."""
        return [
            ServiceInfo(name=s.name, description=s.description, tool_count=len(s.tools))
            for s in self.target.services.values()
        ]

    @tool
    def list_tools(self, service: str) -> list[ToolInfo]:
        """List the tools of one service by name and description (no schemas).

        Args:
            service: The service name, as returned by list_services.
        """
        svc = self.target.services.get(service)
        if svc is None:
            known = ", ".join(sorted(self.target.services))
            raise ToolError(ErrorCode.NOT_FOUND, f"unknown service {service!r}; services: {known}")
        return [
            ToolInfo(name=f"{service}__{td.name}", description=td.description)
            for td in svc.tools.values()
        ]

    @tool
    def describe_tool(self, tool_name: str) -> ToolDescription:
        """Show a tool's full input and output schema.

        Args:
            tool_name: The qualified tool name, as returned by list_tools.
        """
        route = self.target.tool(tool_name)
        if route is None:
            raise ToolError(
                ErrorCode.NOT_FOUND, unknown_tool_message(tool_name, self.target.tool_names)
            )
        td = route[1]
        return ToolDescription(
            name=tool_name,
            description=td.description,
            read_only=not td.write,
            input_schema=td.input_schema,
            output_schema=td.output_schema,
        )

    @tool
    def call_tool(self, tool_name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """Call a tool with its arguments and return its result envelope.

        Args:
            tool_name: The qualified tool name, as returned by list_tools.
            arguments: The tool's arguments as a JSON object.
        """
        return self.target.call(tool_name, arguments or {})


class Gateway:
    """An agent's view of a World through the four meta-tools; same envelope as direct mode."""

    META_TOOLS = ("list_services", "list_tools", "describe_tool", "call_tool")

    def __init__(self, world: World) -> None:
        self.world = world
        self.meta = GatewayTools(world)

    def call(self, tool_name: str, arguments: dict | str | bytes | None = None) -> dict:
        td = self.meta.tools.get(tool_name)
        if td is None:
            return fail(ErrorCode.NOT_FOUND, unknown_tool_message(tool_name, self.META_TOOLS))
        if tool_name == "call_tool":
            # Hot path: validate the meta-arguments, then return the inner tool's own envelope
            # (not wrapped twice, and not re-serialized).
            try:
                args = td.args_model.model_validate(parse_arguments(arguments))
            except ValidationError as exc:
                return fail(ErrorCode.INVALID_ARGUMENT, describe_validation_error(exc))
            except ToolError as exc:
                return fail(exc.code, exc.message)
            return self.world.call(args.tool_name, args.arguments or {})
        return run_tool(self.meta, td, arguments, tool_name)

    def tool_schemas(self, fmt: str = "openai") -> list[dict]:
        tds = self.meta.tools.values()
        return [td.openai_schema() if fmt == "openai" else td.mcp_schema() for td in tds]
