"""The fixed set of tool error codes and the exception tools raise."""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    INVALID_ARGUMENT = "invalid_argument"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    PERMISSION_DENIED = "permission_denied"
    FAILED_PRECONDITION = "failed_precondition"
    INTERNAL = "internal"


class ToolError(Exception):
    """Raised by a tool to fail a call with a code the agent can act on.

    The World turns it into ``{"success": false, "error": {"code", "message"}}`` and rolls back
    any change the call made.
    """

    def __init__(self, code: ErrorCode | str, message: str) -> None:
        self.code = ErrorCode(code)
        self.message = message
        super().__init__(f"{self.code}: {message}")


def ok(data: object) -> dict:
    return {"success": True, "data": data}


def fail(code: ErrorCode | str, message: str) -> dict:
    return {"success": False, "error": {"code": str(ErrorCode(code)), "message": message}}
