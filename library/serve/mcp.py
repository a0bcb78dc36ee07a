"""An MCP server over episodes, with the official ``mcp`` SDK (2.x, low-level ``Server``).

Tools are the episode's: every tool of the task's services with its input schema and the
envelope as its output schema (direct mode), or the four meta-tools (gateway mode). A tool
result is the runtime's envelope as structured content (and as text), ``isError`` when it
failed. Malformed arguments never reach a tool: the runtime answers with an
``invalid_argument`` envelope; a request the SDK cannot parse is a JSON-RPC error.

Sessions: each session gets its own episode, reset to the task's initial state. Over stdio
the process serves one client, so the process holds one episode. Over streamable HTTP an
episode lives on the connection of the initialize handshake (``Mcp-Session-Id``) and is
closed with it; the 2026-07-28 protocol is stateless, so this server's ``server/discover``
advertises only handshake versions and the SDK's ``auto`` clients fall back to the handshake.

Episode control is not a tool (an agent only calls tools, so it cannot reach it): the
instruction is the prompt ``task`` and the resource ``compoworld://task``; the harness resets,
scores and reads the final state with the JSON-RPC methods ``compoworld/reset``,
``compoworld/score`` (the rubric judged here on the session's World, per criterion) and
``compoworld/state``.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

import anyio
import mcp_types as types
import orjson
from mcp.server import Server
from mcp.server.lowlevel.server import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from library.serve.episode import Episode, EpisodeFactory, NoRubric

log = logging.getLogger(__name__)

RESET = "compoworld/reset"
SCORE = "compoworld/score"
STATE = "compoworld/state"
TASK_URI = "compoworld://task"
TASK_PROMPT = "task"
Sessions = Literal["process", "connection"]


class ScoreParams(types.RequestParams):
    answer: str = ""  # the agent's final answer (answer criteria read it)


class ScoreResult(types.Result):
    score: dict[str, Any]  # ``Score.to_dict()``


class StateResult(types.Result):
    state_hash: str  # every mounted service
    states: dict[str, Any]  # the task's services, as the rubric reads them


class ResetResult(types.Result):
    task_id: str
    instruction: str
    state_hash: str


class ScoreRequest(types.Request[ScoreParams, Literal["compoworld/score"]]):
    method: Literal["compoworld/score"] = SCORE
    params: ScoreParams


# -- the harness's side: episode control over a client session ------------------------------
async def reset_episode(session: Any) -> ResetResult:
    """``session``: an ``mcp.ClientSession`` (``Client.session``)."""
    request = types.Request(method=RESET, params=types.RequestParams())
    return await session.send_request(request, ResetResult)


async def score_episode(session: Any, answer: str = "") -> dict[str, Any]:
    """The session's episode judged with ``answer`` as the final answer (``Score.to_dict()``)."""
    request = ScoreRequest(params=ScoreParams(answer=answer))
    return (await session.send_request(request, ScoreResult)).score


async def episode_state(session: Any) -> StateResult:
    request = types.Request(method=STATE, params=types.RequestParams())
    return await session.send_request(request, StateResult)


class _Slot:
    """One session's episode and the lock that orders its blocking calls."""

    def __init__(self, episode: Episode) -> None:
        self.episode = episode
        self.lock = anyio.Lock()

    async def run(self, fn: Callable[[], Any]) -> Any:
        if not self.episode.blocking:
            return fn()  # in-process calls take microseconds: inline, atomic for the loop
        async with self.lock:  # a sandbox worker answers one request at a time
            return await anyio.to_thread.run_sync(fn)


class EpisodeServer:
    """The MCP server: ``factory`` makes a fresh (not yet reset) episode per session."""

    def __init__(self, factory: EpisodeFactory, *, sessions: Sessions, name: str = "compoworld"):
        self.factory = factory
        self.sessions = sessions
        self._process: _Slot | None = None
        self._process_lock = anyio.Lock()
        self.open_sessions = 0  # live episodes (tests and operators read it)
        self.server: Server[Any] = Server(
            name,
            version="1",
            instructions="CompoWorld: a task's services as tools. The task is the prompt "
            f"{TASK_PROMPT!r} (and the resource {TASK_URI}).",
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_prompts=self._list_prompts,
            on_get_prompt=self._get_prompt,
            on_list_resources=self._list_resources,
            on_read_resource=self._read_resource,
        )
        self.server.add_request_handler(RESET, types.RequestParams, self._reset)
        self.server.add_request_handler(SCORE, ScoreParams, self._score)
        self.server.add_request_handler(STATE, types.RequestParams, self._state)
        if sessions == "connection":
            self.server.add_request_handler("server/discover", types.RequestParams, self._discover)

    # -- sessions ------------------------------------------------------------------------------
    async def _new_slot(self) -> _Slot:
        def make() -> Episode:
            episode = self.factory()
            episode.reset()
            return episode

        episode = await anyio.to_thread.run_sync(make)  # a sandboxed one starts a worker
        self.open_sessions += 1
        return _Slot(episode)

    async def _close_slot(self, slot: _Slot) -> None:
        self.open_sessions -= 1
        async with slot.lock:  # a call still running in a thread finishes first
            await anyio.to_thread.run_sync(slot.episode.close)

    async def _slot(self, ctx: ServerRequestContext[Any, Any]) -> _Slot:
        if self.sessions == "process":
            async with self._process_lock:
                if self._process is None:
                    self._process = await self._new_slot()
                return self._process
        # The SDK gives low-level handlers the connection only through the session.
        conn = ctx.session._connection
        if conn.session_id is None:
            raise MCPError(
                types.INVALID_REQUEST,
                "this server keeps one episode per session: connect with the initialize "
                f"handshake (protocol versions {', '.join(HANDSHAKE_PROTOCOL_VERSIONS)})",
            )
        slot = conn.state.get("compoworld")
        if slot is None:
            lock = conn.state.setdefault("compoworld_lock", anyio.Lock())
            async with lock:
                slot = conn.state.get("compoworld")
                if slot is None:
                    slot = conn.state["compoworld"] = await self._new_slot()
                    conn.exit_stack.push_async_callback(self._close_slot, slot)
        return slot

    async def close(self) -> None:
        """End the process episode (stdio); connection episodes end with their sessions."""
        if self._process is not None:
            slot, self._process = self._process, None
            await self._close_slot(slot)

    # -- handlers ------------------------------------------------------------------------------
    async def _discover(
        self, ctx: ServerRequestContext[Any, Any], params: types.RequestParams | None
    ) -> types.DiscoverResult:
        return types.DiscoverResult(
            supported_versions=list(HANDSHAKE_PROTOCOL_VERSIONS),
            capabilities=self.server.get_capabilities(protocol_version=ctx.protocol_version),
            instructions=self.server.instructions,
        )

    async def _list_tools(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        slot = await self._slot(ctx)
        entries = await slot.run(slot.episode.tools_mcp)
        return types.ListToolsResult(tools=[types.Tool.model_validate(e) for e in entries])

    async def _call_tool(
        self, ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        slot = await self._slot(ctx)
        arguments = params.arguments
        envelope = await slot.run(lambda: slot.episode.call(params.name, arguments))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=orjson.dumps(envelope).decode())],
            structured_content=envelope,
            is_error=not envelope.get("success", False),
        )

    async def _list_prompts(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[types.Prompt(name=TASK_PROMPT, description="The task to carry out.")]
        )

    async def _get_prompt(
        self, ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        if params.name != TASK_PROMPT:
            raise MCPError(types.INVALID_PARAMS, f"unknown prompt {params.name!r}")
        slot = await self._slot(ctx)
        text = types.TextContent(type="text", text=slot.episode.instruction)
        return types.GetPromptResult(
            description=slot.episode.task.task_id,
            messages=[types.PromptMessage(role="user", content=text)],
        )

    async def _list_resources(
        self, ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        resource = types.Resource(uri=TASK_URI, name="task", mime_type="text/plain")
        return types.ListResourcesResult(resources=[resource])

    async def _read_resource(
        self, ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        if str(params.uri) != TASK_URI:
            raise MCPError(types.INVALID_PARAMS, f"unknown resource {params.uri}")
        slot = await self._slot(ctx)
        text = types.TextResourceContents(
            uri=TASK_URI, mime_type="text/plain", text=slot.episode.instruction
        )
        return types.ReadResourceResult(contents=[text])

    async def _reset(
        self, ctx: ServerRequestContext[Any, Any], params: types.RequestParams | None
    ) -> ResetResult:
        slot = await self._slot(ctx)
        episode = slot.episode
        await slot.run(episode.reset)
        state_hash = await slot.run(episode.state_hash)
        return ResetResult(
            task_id=episode.task.task_id, instruction=episode.instruction, state_hash=state_hash
        )

    async def _score(self, ctx: ServerRequestContext[Any, Any], params: ScoreParams) -> ScoreResult:
        slot = await self._slot(ctx)
        try:
            score = await slot.run(lambda: slot.episode.score(params.answer))
        except NoRubric as exc:
            raise MCPError(types.INVALID_REQUEST, str(exc)) from None
        return ScoreResult(score=score.to_dict())

    async def _state(
        self, ctx: ServerRequestContext[Any, Any], params: types.RequestParams | None
    ) -> StateResult:
        slot = await self._slot(ctx)
        episode = slot.episode
        states = await slot.run(episode.env.final_states)
        return StateResult(state_hash=await slot.run(episode.state_hash), states=states)

    # -- transports ----------------------------------------------------------------------------
    async def run_stdio(self) -> None:
        from mcp.server.stdio import stdio_server

        try:
            async with stdio_server() as (read, write):
                await self.server.run(read, write, self.server.create_initialization_options())
        finally:
            await self.close()

    def http_app(self, idle_timeout_s: float = 1800) -> Any:
        """A Starlette app serving streamable HTTP at ``/mcp`` (loopback host checks on).
        A session idle for ``idle_timeout_s`` is closed with its episode: a client that
        vanishes without ending its session must not hold a World (or a worker) forever."""
        app = self.server.streamable_http_app(host="127.0.0.1", json_response=True)
        # The SDK's manager takes the timeout; its app factory does not pass it through.
        self.server.session_manager.session_idle_timeout = idle_timeout_s
        return app


def serve_stdio(factory: EpisodeFactory) -> None:
    anyio.run(EpisodeServer(factory, sessions="process").run_stdio)


def serve_http(
    factory: EpisodeFactory,
    port: int = 8000,
    *,
    on_ready: Callable[[int], Awaitable[None] | None] | None = None,
) -> None:
    """Serve streamable HTTP on 127.0.0.1:``port`` (0: any free port, told to ``on_ready``)
    until interrupted."""
    import uvicorn

    app = EpisodeServer(factory, sessions="connection").http_app()
    # An agent's session idles while its model thinks; uvicorn's 5 s keep-alive would close
    # the connection under a client about to reuse it (a POST that fails with a reset).
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", timeout_keep_alive=300
    )
    server = uvicorn.Server(config)
    if on_ready is None:
        server.run()
        return

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve)
            while not server.started:
                await anyio.sleep(0.01)
            bound = server.servers[0].sockets[0].getsockname()[1]
            ready = on_ready(bound)
            if ready is not None:
                await ready

    anyio.run(main)
