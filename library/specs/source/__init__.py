"""Generator of the bundled spec corpus under ``library/specs/``.

Services are defined compactly in :mod:`.domains` (resources with typed fields, enums,
relations and actions) and rendered by the emitters in every supported spec format. Run
``python -m library.specs.source`` to regenerate the files, ``--check`` to verify that the
checked-in files equal a fresh regeneration.
"""

from __future__ import annotations

from .catalog import SERVICES
from .model import Action, Field, Resource, Service
from .render import SPECS_DIR, relpath, render, tool_count

__all__ = [
    "SERVICES",
    "SPECS_DIR",
    "Action",
    "Field",
    "Resource",
    "Service",
    "generate",
    "relpath",
    "render",
    "tool_count",
]


def generate() -> dict[str, str]:
    """Every generated file: its path relative to ``library/specs/`` and its exact text."""
    from .readme import render_readme

    files = {relpath(svc): render(svc) for svc in SERVICES}
    if len(files) != len(SERVICES):
        raise ValueError("two services render to the same path")
    readme = SPECS_DIR / "README.md"
    if readme.exists():
        files["README.md"] = render_readme(readme.read_text(encoding="utf-8"), SERVICES)
    return files
