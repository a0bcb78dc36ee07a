"""The built service library as later stages see it: for each service its latest verified
code, which of its tools are verified, which are simulated by the world model, and their
specs."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from library.llm import LLMClient, LLMSettings
from library.rollout import SandboxEnvPool
from library.rollout.env import world_model_policy
from library.toolspec import ToolSpec
from library.world_model import AnswerCache, DirectoryAnswerCache
from library.world_model.remote import SandboxedWorldModel
from tasks.build import current_specs
from tasks.llm_store import WarehouseCallStore
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


def world_model_cache_dir() -> Path:
    """Where validated world-model answers are kept between runs."""
    return Path(os.environ.get("COMPOWORLD_HOME", ".compoworld")).absolute() / "world_model_cache"


def world_model_runtime(wh: Warehouse, cache: AnswerCache | None = None) -> SandboxedWorldModel:
    """The world model that answers sandboxed services' world-model tools: the configured
    model (``COMPOWORLD_LLM_*``), its calls recorded in and replayed from ``llm_calls``, its
    validated answers kept in ``cache`` (default: a folder under ``$COMPOWORLD_HOME``)."""
    client = LLMClient(LLMSettings.from_env(), WarehouseCallStore(wh))
    cache = cache if cache is not None else DirectoryAnswerCache(world_model_cache_dir())
    return SandboxedWorldModel(client, cache=cache)


def env_pool(
    wh: Warehouse,
    services: Iterable[BuiltService],
    refs: Mapping[str, str] | None = None,
    *,
    world_model: SandboxedWorldModel | None = None,
) -> SandboxEnvPool:
    """Sandboxed envs over built services (each module in a worker of its own; ``refs``:
    trusted services by ``module:Class``), their world-model tools mounted beside their
    verified ones and answered by ``world_model`` (default: ``world_model_runtime``)."""
    services = list(services)
    simulated = {s.name: s.world_model_specs for s in services if s.world_model_tools}
    if simulated and world_model is None:
        world_model = world_model_runtime(wh)
    return SandboxEnvPool(
        refs,
        {s.module: s.code for s in services},
        world_model_policy() if simulated else None,
        homes={s.name: s.module for s in services},
        simulated=simulated,
        world_model=world_model,
    )
