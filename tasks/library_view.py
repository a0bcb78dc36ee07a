"""The built service library as later stages see it: for each service its latest verified
code, which of its tools are verified, which are simulated by the world model, and their
specs."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from library.toolspec import ToolSpec
from tasks.build import current_specs
from warehouse import Warehouse


@dataclass(frozen=True, slots=True)
class BuiltService:
    name: str
    service_id: str
    code: str
    code_hash: str
    verified_tools: tuple[str, ...]
    specs: tuple[ToolSpec, ...] = field(default=())
    # Tools no tier verified that the world model answers at run time (status world_model).
    world_model_tools: tuple[str, ...] = ()

    @property
    def world_model_specs(self) -> list[ToolSpec]:
        wanted = set(self.world_model_tools)
        return [s for s in self.specs if s.name in wanted]

    @property
    def module(self) -> str:
        """A module name for loading the code in a sandbox worker (unique per code)."""
        return f"svc_{self.name}_{hashlib.blake2b(self.code.encode(), digest_size=6).hexdigest()}"


def built_services(wh: Warehouse, only_verified: bool = True) -> dict[str, BuiltService]:
    """The latest build of every current service that has at least one verified tool."""
    rows = wh.query(
        "with latest as (select * from services "
        "qualify row_number() over (partition by name order by built_at desc) = 1) "
        "select s.name, s.service_id, s.code, s.code_hash, "
        "list(t.tool order by t.tool) filter (where t.status = 'verified') as verified, "
        "list(t.tool order by t.tool) filter (where t.status = 'world_model') as simulated "
        "from latest s join service_tools t using (service_id) "
        "group by s.name, s.service_id, s.code, s.code_hash order by s.name"
    ).to_pylist()
    specs = current_specs(wh)
    out: dict[str, BuiltService] = {}
    for r in rows:
        verified = tuple(r["verified"] or ())
        if only_verified and not verified:
            continue
        if r["name"] not in specs:  # its spec file is gone or was renamed
            continue
        out[r["name"]] = BuiltService(
            r["name"],
            r["service_id"],
            r["code"],
            r["code_hash"],
            verified,
            tuple(specs[r["name"]]),
            tuple(r["simulated"] or ()),
        )
    return out
