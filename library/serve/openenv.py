"""An OpenEnv environment (``openenv-core``) over episodes: ``reset`` gives the task's
instruction and tools, ``step`` takes a tool call and returns its envelope, and a step with a
final answer ends the episode with our judge's score as the reward (the Completion-Focused
Rubric Reward of a group of one: 1.0 on full completion). Served by OpenEnv's own FastAPI app
(HTTP and the WebSocket its clients keep per session), one episode per session.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from openenv.core.env_server import Action, Environment, Observation, State, create_app
from pydantic import Field

from library.serve.episode import Episode, EpisodeFactory


class CompoWorldAction(Action):
    """A tool call, or the final answer (which ends the episode)."""

    tool_name: str = ""
    arguments: dict[str, Any] = Field(default_factory=dict)
    final_answer: str | None = None


class CompoWorldObservation(Observation):
    task_id: str = ""
    instruction: str = ""  # set on reset
    tools: list[dict[str, Any]] = Field(default_factory=list)  # OpenAI schemas, on reset
    result: dict[str, Any] | None = None  # the envelope of the step's tool call
    score: dict[str, Any] | None = None  # ``Score.to_dict()`` when the episode ends


class CompoWorldState(State):
    task_id: str = ""
    state_hash: str = ""


class CompoWorldEnv(Environment[CompoWorldAction, CompoWorldObservation, CompoWorldState]):
    """Episodes of ``factories`` (task id -> factory); ``reset(task_id=...)`` picks one, the
    first by default."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # each session gets an instance and Worlds of its own

    def __init__(self, factories: Mapping[str, EpisodeFactory]) -> None:
        super().__init__()
        if not factories:
            raise ValueError("CompoWorldEnv needs at least one task")
        self.factories = dict(factories)
        self.episode: Episode | None = None
        self._state = CompoWorldState()

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task_id: str | None = None,
        **kwargs: Any,
    ) -> CompoWorldObservation:
        task_id = task_id or next(iter(self.factories))
        factory = self.factories.get(task_id)
        if factory is None:
            raise ValueError(f"unknown task {task_id!r}; tasks: {', '.join(self.factories)}")
        if self.episode is not None:
            self.episode.close()
        self.episode = episode = factory()
        episode.reset()
        self._state = CompoWorldState(
            episode_id=episode_id, task_id=task_id, state_hash=episode.state_hash()
        )
        return CompoWorldObservation(
            task_id=task_id, instruction=episode.instruction, tools=episode.tools()
        )

    def step(
        self, action: CompoWorldAction, timeout_s: float | None = None, **kwargs: Any
    ) -> CompoWorldObservation:
        episode = self.episode
        if episode is None:
            raise RuntimeError("reset() the environment first")
        self._state.step_count += 1
        task_id = episode.task.task_id
        if action.final_answer is not None:
            score = episode.score(action.final_answer)
            self._state.state_hash = episode.state_hash()
            return CompoWorldObservation(
                task_id=task_id, score=score.to_dict(), reward=score.reward, done=True
            )
        envelope = episode.call(action.tool_name, action.arguments)
        self._state.state_hash = episode.state_hash()
        return CompoWorldObservation(task_id=task_id, result=envelope, reward=0.0)

    @property
    def state(self) -> CompoWorldState:
        return self._state

    def close(self) -> None:
        if self.episode is not None:
            self.episode.close()
            self.episode = None


def openenv_app(factories: Mapping[str, EpisodeFactory], max_sessions: int = 64) -> Any:
    """OpenEnv's FastAPI app over these tasks (serve it with uvicorn on 127.0.0.1)."""
    make: Callable[[], CompoWorldEnv] = lambda: CompoWorldEnv(factories)  # noqa: E731
    return create_app(
        make,
        CompoWorldAction,
        CompoWorldObservation,
        env_name="compoworld",
        max_concurrent_envs=max_sessions,
    )
