"""The environment's share of a GRPO step's wall time: World resets, tool calls and judging
(with CFRR), against everything else the step does (generation, the loss, the optimizer).
Prints figures; asserts nothing.

    .venv/bin/python bench/grpo_env_share.py [--steps 4] [--tasks 4] [--generations 4]

Two runs of TRL's GRPOTrainer with the tiny model on CPU, on tasks composed over the reference
services and stored in a temporary warehouse (the trainer reads them back with SQL):

- ``tiny model``: the randomly initialised model generates (it rarely writes a tool call, so
  the environment is mostly resets and judging);
- ``scripted``: the same trainer with generation scripted to call every step of the gold
  plan through the gateway (``training.scripted``), so every rollout makes real tool calls;
- ``sandboxed``: scripted generation on a warehouse the factory built (two bundled specs
  ingested, compiled, verified; tasks composed over them), so the services are generated
  code and run in sandbox workers, as on a ``make demo`` warehouse.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from library.compose import compose_tasks
from library.llm import LLMSettings
from library.services import reference_service_classes
from tasks.build import BuildSettings, build_services
from tasks.compose import compose_stage
from tasks.ingest import bundled_corpus, ingest_paths
from tasks.rollout import load_tasks
from training.grpo import GRPOSettings, finish, prepare
from training.scripted import script_generation
from warehouse import Warehouse


def run(
    root: Path, name: str, tasks: list, args: argparse.Namespace, scripted: bool, wh: str = "wh"
) -> dict:
    settings = GRPOSettings(
        warehouse=str(root / wh),
        split="",
        out=str(root / name),
        max_steps=args.steps,
        num_generations=args.generations,
        batch_size=args.generations,
        max_completion_length=6000 if scripted else args.completion,
        max_tool_calls=3 if scripted else 2,
    )
    prep = prepare(settings)
    if scripted:
        script_generation(prep.trainer.model, prep.tokenizer, tasks, args.generations)
    return finish(prep)


def report(name: str, metrics: dict) -> None:
    steps = metrics["per_step"][1:] or metrics["per_step"]  # the first step warms up
    step_s = statistics.mean(s["step_s"] for s in steps)
    env = {k: statistics.mean(s[k] for s in steps) for k in ("reset_s", "tool_s", "judge_s")}
    calls = statistics.mean(s["tool_calls"] for s in steps)
    share = sum(env.values()) / step_s
    print(
        f"{name:<11} step {step_s * 1e3:8.1f} ms | reset {env['reset_s'] * 1e3:6.2f} ms, "
        f"{calls:5.1f} tool calls {env['tool_s'] * 1e3:6.2f} ms, judge {env['judge_s'] * 1e3:6.2f}"
        f" ms | environment {100 * share:5.2f}% of the step | mean reward "
        f"{metrics['mean_reward']:.3f}, completion {metrics['completion_rate']:.2f}"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--tasks", type=int, default=4)
    p.add_argument("--generations", type=int, default=4)
    p.add_argument("--completion", type=int, default=64, help="tokens (tiny model run)")
    args = p.parse_args()
    composed = compose_tasks(reference_service_classes(), args.tasks, seed=0).tasks
    tasks = [t.model_copy(update={"split": "rl"}) for t in composed]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        Warehouse(root / "wh").append("tasks", [t.to_row() for t in tasks])
        print(
            f"GRPO on CPU, tiny model, {len(tasks)} tasks, groups of {args.generations}, "
            f"{args.steps} steps (means over steps 2..{args.steps}); environment = resets + "
            "tool calls + judging with CFRR"
        )
        for name, scripted in (("tiny model", False), ("scripted", True)):
            report(name, run(root, name.replace(" ", "-"), tasks, args, scripted))
        factory = Warehouse(root / "factory")
        specs = ("openapi/crm.yaml", "openapi/helpdesk.yaml")
        ingest_paths([str(bundled_corpus() / s) for s in specs], factory.root)
        build_services(factory, BuildSettings(llm=LLMSettings(model=None)))
        compose_stage(factory, args.tasks, seed=3, min_services=2)
        built = load_tasks(factory)
        report("sandboxed", run(root, "sandboxed", built, args, True, wh="factory"))


if __name__ == "__main__":
    main()
