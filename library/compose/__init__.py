"""Task composition: random walks over the tool graph become verified cross-service tasks
with gold plans, rubrics and template instructions."""

from library.compose.compose import (
    ComposeResult,
    candidate,
    compose_tasks,
    composed,
    make_env,
    merge_tasks,
    shard_size,
)
from library.compose.config import ComposeConfig
from library.compose.env import ComposeEnv
from library.compose.paraphrase import paraphrase, paraphrase_task
from library.compose.render import render_instruction
from library.compose.run import completes, judge_states, run_task, task_world
from library.compose.sample import pick_sample, sample_markdown
from library.compose.task import CAPABILITIES, Task

__all__ = [
    "CAPABILITIES",
    "ComposeConfig",
    "ComposeEnv",
    "ComposeResult",
    "Task",
    "candidate",
    "completes",
    "compose_tasks",
    "composed",
    "judge_states",
    "make_env",
    "merge_tasks",
    "paraphrase",
    "paraphrase_task",
    "pick_sample",
    "render_instruction",
    "run_task",
    "sample_markdown",
    "shard_size",
    "task_world",
]
