"""Our own compiler's output seeds and composes inside the sandbox: generated code that
reaches for a module the sandbox refuses (``strftime`` imports ``time``, say) would drop a
whole service to the world-model tier in production while in-process benches looked fine."""

from __future__ import annotations

from library.compiler import compile_service
from library.compose.corpus import bundled_specs
from library.sandbox import Sandbox
from tasks.compose import COMPOSE, COMPOSE_POLICY


def test_every_bundled_service_seeds_and_composes_in_a_sandbox_worker() -> None:
    by_service = bundled_specs()
    refs, specs, verified = {}, [], {}
    with Sandbox(COMPOSE_POLICY) as sandbox:
        for name, service_specs in by_service.items():
            compiled = compile_service(service_specs)
            module = f"bundled_{name}_{compiled.code_hash[:12]}"
            loaded = sandbox.load(module, compiled.source)
            refs[name] = next(s.ref for s in loaded if s.service == name)
            specs += [s.model_dump(mode="json") for s in service_specs]
            verified[name] = list(compiled.compiled_tools)
        # Composition seeds every service in several worlds, inside the worker.
        payload = {"refs": refs, "specs": specs, "verified": verified, "n": 3, "seed": 1}
        out = sandbox.invoke(COMPOSE, payload)
    assert len(refs) == len(by_service) == 49
    assert len(out["tasks"]) == 3
