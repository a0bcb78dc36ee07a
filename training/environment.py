"""RL environments for TRL's ``GRPOTrainer`` over our World, and the rubric reward.

``WorldEnvironment`` is what ``environment_factory`` builds: one instance per rollout, whose
``reset(**example)`` mounts the example's task (its services at ``task.initial_state`` and,
in gateway mode, its distractors) through one of our episode environments
(``library.rollout.env``), and whose public methods are the tools the model calls. Gateway
mode exposes the four meta-tools (``list_services``, ``list_tools``, ``describe_tool``,
``call_tool``): the same for every task, which is what TRL 1.16 needs, since it reads the
tools off the environment class. Every call returns our envelope as JSON text.

Where the service code runs: trusted reference service classes run in this process
(``InProcessEnv``); generated services (untrusted code from the warehouse) run in sandbox
workers (``SandboxEnv``). Either way the worker only executes: ``RubricReward`` reads the
final states and the final answer here and judges them with ``library.judge`` (the judge
stage's own code), so nothing in a worker can change a reward.

``RubricReward`` is the reward function: it splits the batch into GRPO groups (the
``num_generations`` consecutive rollouts of one prompt), judges each group against its
task's rubric and returns the Completion-Focused Rubric Reward of ``library.reward``
computed within the group; it logs the completion rate and the pass rate of each criterion
kind, and keeps every judged rollout (transcript, final states, reward) for the run's record.

``EnvClock`` adds up the time spent in resets, tool calls and judging, for the environment's
share of a step.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from library.compose.task import Task
from library.judge import judge_group
from library.reward import ALPHA, EPS
from library.rollout.calls import dump_envelope
from library.rollout.env import Env, InProcessEnv, SandboxEnvPool, meta_tool_schemas
from library.rollout.record import Rollout, group_key, rollout_key
from library.runtime.gateway import GatewayTools
from library.runtime.service import Service

MODE = "gateway"


class MissingServices(ValueError):
    """A selected task mounts services that are neither built in the warehouse nor trusted."""


@dataclass(slots=True)
class EnvClock:
    """Seconds spent in the environment, by kind; ``take()`` returns them and starts over."""

    reset_s: float = 0.0
    tool_s: float = 0.0
    judge_s: float = 0.0
    resets: int = 0
    tool_calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, kind: str, seconds: float) -> None:
        with self._lock:
            if kind == "reset":
                self.reset_s += seconds
                self.resets += 1
            elif kind == "tool":
                self.tool_s += seconds
                self.tool_calls += 1
            else:
                self.judge_s += seconds

    def take(self) -> dict[str, float]:
        with self._lock:
            out = {
                "reset_s": self.reset_s,
                "tool_s": self.tool_s,
                "judge_s": self.judge_s,
                "resets": self.resets,
                "tool_calls": self.tool_calls,
            }
            self.reset_s = self.tool_s = self.judge_s = 0.0
            self.resets = self.tool_calls = 0
        out["env_s"] = out["reset_s"] + out["tool_s"] + out["judge_s"]
        return out


class TaskBook:
    """Tasks by id, parsed once from the examples' ``task`` JSON (resets happen per rollout,
    parsing a task's states per rollout would cost more than mounting them)."""

    def __init__(self, size: int = 4096) -> None:
        self._tasks: OrderedDict[str, Task] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, task_id: str, task_json: str | None = None) -> Task:
        with self._lock:
            task = self._tasks.get(task_id)
            if task is not None:
                self._tasks.move_to_end(task_id)
                return task
        if task_json is None:
            raise KeyError(f"task {task_id!r} was never seen by this trainer")
        task = Task.model_validate_json(task_json)
        with self._lock:
            self._tasks[task_id] = task
            while len(self._tasks) > self._size:
                self._tasks.popitem(last=False)
        return task


def _doc(name: str) -> str:
    """The meta-tool's docstring, so the schema TRL builds says what the gateway says."""
    return getattr(GatewayTools, name).__doc__ or ""


class WorldEnvironment:
    """One rollout's World, reached through the gateway's four meta-tools."""

    def __init__(self, backend: Callable[[], Env], book: TaskBook, clock: EnvClock) -> None:
        self._backend, self._book, self._clock = backend, book, clock
        self._env: Env | None = None
        self.task: Task | None = None

    def reset(self, **example: Any) -> None:
        start = time.perf_counter()
        self.task = self._book.get(example["task_id"], example.get("task"))
        if self._env is None:
            self._env = self._backend()
        self._env.reset(self.task, MODE)
        self._clock.add("reset", time.perf_counter() - start)

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self._env is None:
            raise RuntimeError("reset() the environment first")
        start = time.perf_counter()
        try:
            envelope = self._env.call(name, arguments)
        finally:
            self._clock.add("tool", time.perf_counter() - start)
        return dump_envelope(envelope)

    def list_services(self) -> str:
        return self._call("list_services", {})

    def list_tools(self, service: str) -> str:
        return self._call("list_tools", {"service": service})

    def describe_tool(self, tool_name: str) -> str:
        return self._call("describe_tool", {"tool_name": tool_name})

    def call_tool(self, tool_name: str, arguments: dict | None = None) -> str:
        return self._call("call_tool", {"tool_name": tool_name, "arguments": arguments or {}})

    list_services.__doc__ = _doc("list_services")
    list_tools.__doc__ = _doc("list_tools")
    describe_tool.__doc__ = _doc("describe_tool")
    call_tool.__doc__ = _doc("call_tool")

    def _final_states(self) -> dict[str, Any] | None:
        if self._env is None:
            return None
        start = time.perf_counter()
        try:
            return self._env.final_states()
        except Exception:  # a failed worker: the judge fails every criterion
            return None
        finally:
            self._clock.add("judge", time.perf_counter() - start)

    def _state_hash(self) -> str | None:
        try:
            return self._env.state_hash() if self._env is not None else None
        except Exception:
            return None

    def _close(self) -> None:
        if self._env is not None:
            self._env.close()
            self._env = None


def backend_factory(
    services: Sequence[str],
    trusted: Sequence[type[Service]],
    generated: Mapping[str, str],
    distractors: Sequence[str] = (),
) -> tuple[Callable[[], Env], str, Callable[[], None]]:
    """(env factory, what runs where, close). ``services``: what the tasks need;
    ``distractors``: what gateway mode also mounts where there is code for it (as the
    rollout stage does); ``generated``: service name -> source code from the warehouse
    (untrusted: sandbox workers); ``trusted``: reference classes (in-process). A generated
    build of a service wins over a trusted class of the same name: it is what the tasks were
    composed and verified against."""
    classes = {c.name: c for c in trusted}
    missing = sorted(s for s in services if s not in generated and s not in classes)
    if missing:
        raise MissingServices(
            f"the selected tasks mount services with no code: {missing} (neither built in "
            f"the warehouse nor a trusted reference service: {sorted(classes)})"
        )
    wanted = set(services) | set(distractors)
    if not any(s in generated for s in wanted):
        return (lambda: InProcessEnv(classes)), "in-process (trusted reference services)", _noop
    refs = {n: f"{c.__module__}:{c.__qualname__}" for n, c in classes.items() if n in wanted}
    refs = {n: r for n, r in refs.items() if n not in generated}
    modules = {
        f"svc_{name}_{hashlib.blake2b(code.encode(), digest_size=6).hexdigest()}": (name, code)
        for name, code in generated.items()
        if name in wanted
    }
    pool = SandboxEnvPool(
        refs,
        {module: code for module, (_, code) in modules.items()},
        homes={name: module for module, (name, _) in modules.items()},
    )
    return pool, f"sandbox workers ({len(modules)} generated services)", pool.close


def _noop() -> None:
    return None


# -- the reward --------------------------------------------------------------------------------
def _openai_messages(prompt: list[dict[str, Any]], completion: list[dict[str, Any]]) -> list:
    """TRL's conversation (parsed tool calls, tool results by name) as OpenAI chat with call
    ids, the shape of the ``rollouts`` table."""
    messages = [dict(m) for m in prompt]
    pending: list[str] = []
    for turn, message in enumerate(completion):
        if message.get("role") == "tool":
            call_id = pending.pop(0) if pending else f"call_{turn}_orphan"
            messages.append(
                {"role": "tool", "tool_call_id": call_id, "content": str(message.get("content"))}
            )
            continue
        calls = []
        for k, call in enumerate(message.get("tool_calls") or []):
            fn = call.get("function") or {}
            args = fn.get("arguments")
            call_id = f"call_{turn}_{k}"
            pending.append(call_id)
            calls.append(
                {
                    "id": call_id,
                    "type": "function",
                    "function": {
                        "name": str(fn.get("name", "")),
                        "arguments": args if isinstance(args, str) else json.dumps(args or {}),
                    },
                }
            )
        out: dict[str, Any] = {"role": "assistant", "content": message.get("content") or None}
        if calls:
            out["tool_calls"] = calls
        messages.append(out)
    return messages


def final_answer(completion: Sequence[Mapping[str, Any]]) -> str | None:
    """The last assistant message's text when it calls no tool (the episode ended on a reply);
    None when the rollout was cut off mid-work."""
    for message in reversed(completion):
        if message.get("role") == "assistant":
            if message.get("tool_calls"):
                return None
            return str(message.get("content") or "")
    return None


class RubricReward:
    """TRL reward function: CFRR within each group of ``num_generations`` rollouts."""

    def __init__(
        self,
        num_generations: int,
        clock: EnvClock,
        *,
        run: str = "",
        eps: float = EPS,
        alpha: float = ALPHA,
        keep: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.__name__ = "cfrr"  # TRL names the reward's metrics after it
        self.num_generations = num_generations
        self.clock = clock
        self.run, self.eps, self.alpha = run, eps, alpha
        self.keep = keep
        self.calls = 0

    def __call__(
        self,
        prompts: list[list[dict[str, Any]]],
        completions: list[list[dict[str, Any]]],
        environments: list[WorldEnvironment],
        task_id: list[str],
        trainer_state: Any = None,
        log_metric: Callable[[str, float], None] | None = None,
        **_: Any,
    ) -> list[float]:
        g = self.num_generations
        if len(completions) % g:
            raise ValueError(
                f"a batch of {len(completions)} rollouts is not whole groups of {g}: the reward "
                "is computed within each group, so each process must hold whole groups"
            )
        step = int(getattr(trainer_state, "global_step", self.calls) or 0)
        self.calls += 1
        rewards: list[float] = []
        completed: list[bool] = []
        by_kind: dict[str, list[bool]] = defaultdict(list)
        for start in range(0, len(completions), g):
            members = range(start, start + g)
            ids = {task_id[i] for i in members}
            if len(ids) != 1:
                raise ValueError(f"a GRPO group must be one task's rollouts, got tasks {ids}")
            tid = ids.pop()
            env0 = environments[start]
            task = env0.task
            if task is None or task.task_id != tid:
                raise ValueError(f"the environment of task {tid} was not reset to it")
            t0 = time.perf_counter()
            gid = group_key(tid, f"grpo:{self.run}", MODE, f"step{step}:{start // g}")
            rollouts = [
                self._rollout(task, gid, i - start, prompts[i], completions[i], environments[i])
                for i in members
            ]
            judged = judge_group(task, rollouts, eps=self.eps, alpha=self.alpha)
            self.clock.add("judge", time.perf_counter() - t0)
            rewards += judged.rewards
            completed += judged.completed
            for row in judged.passes:
                for criterion, passed in zip(judged.criteria, row, strict=True):
                    by_kind[criterion.kind].append(passed)
            if self.keep is not None:
                for rollout, score in zip(rollouts, judged.score_rows(), strict=True):
                    self.keep(
                        {
                            "step": step + 1,  # the step this batch trains, 1-based as logged
                            "rollout": rollout.model_dump(mode="json"),
                            "score": score,
                            "passes": judged.passes[rollout.sample],
                            "kinds": [c.kind for c in judged.criteria],
                        }
                    )
        if log_metric is not None:
            log_metric("cfrr/completion_rate", sum(completed) / len(completed))
            for kind, passes in sorted(by_kind.items()):
                log_metric(f"cfrr/pass_rate/{kind}", sum(passes) / len(passes))
        return rewards

    def _rollout(
        self,
        task: Task,
        gid: str,
        sample: int,
        prompt: list[dict[str, Any]],
        completion: list[dict[str, Any]],
        env: WorldEnvironment,
    ) -> Rollout:
        answer = final_answer(completion)
        messages = _openai_messages(prompt, completion)
        calls = [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls", [])]
        errors = sum(1 for m in messages if m["role"] == "tool" and not _succeeded(m["content"]))
        return Rollout(
            rollout_id=rollout_key(task.task_id, gid, sample),
            task_id=task.task_id,
            group_id=gid,
            sample=sample,
            policy=f"grpo:{self.run}",
            mode=MODE,
            messages=messages,
            tools=[dict(t) for t in meta_tool_schemas()],
            final_answer=answer,
            final_states=env._final_states(),
            final_state_hash=env._state_hash(),
            steps=sum(1 for m in messages if m["role"] == "assistant"),
            tool_calls=len(calls),
            tool_errors=errors,
            status="finished" if answer is not None else "max_steps",
        )


def _succeeded(content: str) -> bool:
    try:
        envelope = orjson.loads(content)
    except orjson.JSONDecodeError:
        return False  # TRL's own error text: the call never reached the environment
    return isinstance(envelope, dict) and bool(envelope.get("success"))
