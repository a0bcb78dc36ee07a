"""The system prompt: the result envelope, how tools are reached, and the rules of engagement."""

from __future__ import annotations

from typing import Any

from library.compose.task import Task

_ENVELOPE = """\
Every tool returns one JSON envelope: {"success": true, "data": ...} when the call worked, \
or {"success": false, "error": {"code": ..., "message": ...}} when it did not (codes such \
as invalid_argument, not_found, conflict, permission_denied, failed_precondition). A failed \
call changes nothing."""

_ACCESS = {
    "direct": (
        "Tools are named <service>__<tool> (for example crm__get_contact); call them directly."
    ),
    "gateway": (
        "Tools are reached through a gateway of four tools: list_services shows the services "
        "of this workspace, list_tools(service) a service's tools, describe_tool(tool_name) a "
        "tool's input schema, and call_tool(tool_name, arguments) calls one and returns its "
        "envelope. Tool names are <service>__<tool>. Only some services matter for a request."
    ),
}

_RULES = """\
Rules:
- Use the tools to look things up and to make changes. Never invent ids, names or values: \
take them from the request or from tool results.
- Follow every rule in the request: which record to pick when several match, thresholds, \
records that must be left alone.
- Make only the changes the request asks for.
- When a call fails, read the error, fix the call and try again.
- When the request asks for values, state them in your final reply.
- When everything is done, stop calling tools and reply with a short summary."""


def system_prompt(mode: str) -> str:
    intro = "You complete the user's request by calling tools."
    return "\n\n".join((intro, _ACCESS[mode], _ENVELOPE, _RULES))


def opening_messages(task: Task, mode: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": system_prompt(mode)},
        {"role": "user", "content": task.instruction},
    ]
