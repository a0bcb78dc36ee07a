"""The runtime every service is written against."""

from library.runtime import (
    compute,  # noqa: F401  (stateless tools import it; preloaded)
    shell,  # noqa: F401  (shell tools import it; preloaded)
)
from library.runtime.collection import Collection
from library.runtime.errors import ErrorCode, ToolError
from library.runtime.gateway import Gateway
from library.runtime.ids import (
    AnyRef,
    IntId,
    IntRef,
    fit_text,
    int_id,
    int_ref,
    pattern_id,
    pattern_or,
    pattern_text,
    uuid_id,
    uuid_text,
)
from library.runtime.semantic import (
    Address,
    CompanyName,
    Country,
    Currency,
    Date,
    DateTime,
    Email,
    Money,
    PersonName,
    Phone,
    Ref,
    Url,
)
from library.runtime.service import Record, Service, State, paginate
from library.runtime.tool import ToolDef, tool
from library.runtime.world import Snapshot, World, WorldDiff

__all__ = [
    "Address",
    "AnyRef",
    "Collection",
    "CompanyName",
    "Country",
    "Currency",
    "Date",
    "DateTime",
    "Email",
    "ErrorCode",
    "Gateway",
    "IntId",
    "IntRef",
    "Money",
    "PersonName",
    "Phone",
    "Record",
    "Ref",
    "Service",
    "Snapshot",
    "State",
    "ToolDef",
    "ToolError",
    "Url",
    "World",
    "WorldDiff",
    "fit_text",
    "int_id",
    "int_ref",
    "paginate",
    "pattern_id",
    "pattern_or",
    "pattern_text",
    "tool",
    "uuid_id",
    "uuid_text",
]
