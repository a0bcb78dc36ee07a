"""World-model tools of services that run in sandbox workers, answered in the parent.

A built service keeps the tools that no tier verified but a model can simulate (status
``world_model``). Its code runs in a sandbox worker, which has no network, so those tools are
answered here: the worker reports the service's state and clock (``view``, data) and, once per
module, the JSON schema of its ``State`` (``state_schema``, a trusted function run in the
worker); the model is called here through the ``LLMClient`` (recorded, replayed), its answer
checked here against the spec's output schema, its patch applied here and the patched state
checked here against that schema (``DocumentState``). Only an accepted state is sent back to
the worker, which loads it through its own model. So the decision to accept a model's answer
is never taken by the untrusted code, and nothing the code does can change what the model is
asked beyond the state it holds (which is what it reports anyway).
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import TYPE_CHECKING, Any

from jsonschema.exceptions import SchemaError

from library.llm import LLMClient, LLMError
from library.runtime import ErrorCode
from library.runtime.errors import fail
from library.toolspec import ToolSpec
from library.world_model.cache import AnswerCache, MemoryAnswerCache
from library.world_model.simulator import WorldModelSettings, WorldModelTool
from library.world_model.state import DocumentState

if TYPE_CHECKING:
    from library.sandbox import Sandbox
    from library.sandbox.worker import InvokeContext

# The invoke target (and the policy prefix that allows it) for a State's JSON schema.
STATE_SCHEMA = "library.world_model.remote:state_schema"
INVOKE_PREFIX = "library.world_model.remote."


def state_schema(ctx: InvokeContext, payload: Any) -> dict[str, Any]:
    """Runs inside the worker: the JSON schema of a loaded service's ``State`` and the names
    of its collections. ``payload``: ``{"ref": "module:Class"}``."""
    ref = payload.get("ref") if isinstance(payload, dict) else None
    cls = ctx.services.get(ref) if isinstance(ref, str) else None
    if cls is None:
        raise KeyError(f"no loaded service {ref!r}")
    return {
        "schema": cls.State.model_json_schema(),
        "collections": list(cls.State.collection_types),
    }


def spec_tool_schema(spec: ToolSpec, name: str, fmt: str = "openai") -> dict[str, Any]:
    """A simulated tool's schema as ``ToolDef`` formats one: the spec's own schemas."""
    description = spec.description or spec.name
    if fmt == "openai":
        return {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": spec.input_schema},
        }
    entry: dict[str, Any] = {
        "name": name,
        "description": description,
        "inputSchema": spec.input_schema,
        "annotations": {"readOnlyHint": spec.access != "write"},
    }
    if spec.output_schema is not None:
        entry["outputSchema"] = spec.output_schema
    return entry


class SandboxedWorldModel:
    """Answers world-model tools of sandboxed services (see the module docstring). One per
    stage run, shared by its envs and threads; ``cache`` holds validated answers (a
    ``DirectoryAnswerCache`` keeps them for later runs)."""

    def __init__(
        self,
        client: LLMClient,
        *,
        settings: WorldModelSettings | None = None,
        cache: AnswerCache | None = None,
    ) -> None:
        self.client = client
        self.settings = settings if settings is not None else WorldModelSettings.from_env()
        self.cache: AnswerCache = cache if cache is not None else MemoryAnswerCache()
        self._tools: dict[str, WorldModelTool] = {}
        self._schemas: dict[str, tuple[dict[str, Any], list[str]]] = {}
        self._lock = threading.Lock()
        self.calls = 0  # simulated calls answered (from the model or the cache)
        self.cached = 0  # of which from the answer cache

    def tool(self, spec: ToolSpec) -> WorldModelTool:
        with self._lock:
            found = self._tools.get(spec.id)
            if found is None:
                found = self._tools[spec.id] = WorldModelTool(
                    spec, self.client, settings=self.settings, cache=self.cache
                )
            return found

    def _schema(self, box: Sandbox, ref: str) -> tuple[dict[str, Any], list[str]]:
        # A module's name carries its code's hash (``svc_<name>_<hash>``): one schema per ref.
        with self._lock:
            known = self._schemas.get(ref)
        if known is not None:
            return known
        out = box.invoke(STATE_SCHEMA, {"ref": ref})
        if (
            not isinstance(out, dict)
            or not isinstance(out.get("schema"), dict)
            or not isinstance(out.get("collections"), list)
        ):
            raise ValueError(f"{STATE_SCHEMA} answered for {ref} with the wrong shape")
        found = (out["schema"], [str(c) for c in out["collections"]])
        with self._lock:
            self._schemas[ref] = found
        return found

    def call(
        self,
        box: Sandbox,
        world: int | None,
        service: str,
        ref: str,
        spec: ToolSpec,
        arguments: dict[str, Any],
    ) -> dict[str, Any]:
        """One call of a simulated tool of ``service`` (class ``ref``), whose state lives in
        ``box`` under ``world``; returns the envelope. A write's accepted state is loaded
        into the worker; a refused or failed call changes nothing."""
        from library.sandbox import SandboxError

        tool = self.tool(spec)
        where = f"world model for {service}.{spec.name}"
        try:
            schema, collections = self._schema(box, ref)
            view = box.view(world=world)
            doc = view["states"].get(service)
            if not isinstance(doc, dict):
                return fail(ErrorCode.INTERNAL, f"{where}: the worker holds no {service} state")
            state = DocumentState(doc, schema, collections)
            sim = tool.call(state, arguments, now=dt.datetime.fromisoformat(view["now"]))
            if sim.envelope["success"] and sim.state is not None:
                box.load_states({service: sim.state}, world=world)
        except SandboxError as exc:
            return fail(ErrorCode.INTERNAL, f"{where}: the service's worker failed: {exc.reason}")
        except LLMError as exc:  # no model configured and nothing recorded to replay
            return fail(ErrorCode.INTERNAL, f"{where}: {exc}")
        except (
            ValueError,
            KeyError,
            TypeError,
            SchemaError,
        ) as exc:  # a schema or state of the wrong shape
            return fail(ErrorCode.INTERNAL, f"{where}: {type(exc).__name__}: {exc}")
        with self._lock:
            self.calls += 1
            self.cached += sim.cached
        return sim.envelope
