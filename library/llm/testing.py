"""A scripted OpenAI-compatible model server on 127.0.0.1, for tests and offline demos.

Pointing ``LLMSettings.api_base`` at it sends requests down the same litellm path a real
vLLM server gets (provider ``hosted_vllm``, HTTP, response parsing, usage, cost), while the
answers come from a script. It counts hits and keeps every request body, so a test can prove
that a replay made no call and read what a prompt contained.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson

from library.llm.settings import LLMSettings


class _Drop:
    def __repr__(self) -> str:
        return "DROP"


# Close the connection without an answer (a server that died mid-request).
DROP = _Drop()

# A reply: assistant text, an assistant message dict (``content`` and/or ``tool_calls`` with
# ``{"name", "arguments"}`` items), an HTTP error status, a status with the JSON body to send
# (an error body echoing a header, a 200 without choices), ``DROP``, or a function of the
# request body returning one of these.
Reply = (
    str
    | dict[str, Any]
    | int
    | tuple[int, dict[str, Any]]
    | _Drop
    | Callable[[dict[str, Any]], Any]
)


class ScriptedModel:
    """Answers each chat completion with the next scripted reply; 400 once the script ends
    (a non-transient error, so an unexpected call fails loudly instead of being retried)."""

    served_name = "scripted"

    def __init__(self, replies: list[Reply] | None = None) -> None:
        self.replies: list[Reply] = list(replies or [])
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    # -- lifecycle ----------------------------------------------------------------------
    def start(self) -> ScriptedModel:
        self._server = _QuietServer(("127.0.0.1", 0), _handler(self))
        # A short poll interval keeps stop() fast (the default waits up to 0.5 s).
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> ScriptedModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- use ----------------------------------------------------------------------------
    @property
    def api_base(self) -> str:
        assert self._server is not None, "start() the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def settings(self, **overrides: Any) -> LLMSettings:
        values: dict[str, Any] = {
            "model": f"hosted_vllm/{self.served_name}",
            "api_base": self.api_base,
            "timeout_s": 10.0,
            "backoff_s": 0.0,
        }
        return LLMSettings(**(values | overrides))

    def add(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    @property
    def hits(self) -> int:
        return len(self.requests)

    def prompt_text(self, index: int = -1) -> str:
        """All message contents of one request, joined: what the model was shown."""
        messages = self.requests[index].get("messages", [])
        return "\n".join(str(m.get("content") or "") for m in messages)

    # -- serving ------------------------------------------------------------------------
    def _answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]] | _Drop:
        with self._lock:
            self.requests.append(body)
            n = len(self.requests)
            reply = self.replies.pop(0) if self.replies else None
        if callable(reply):
            reply = reply(body)
        if reply is None:
            return 400, {"error": {"message": f"script exhausted at request {n}"}}
        if isinstance(reply, _Drop | tuple):
            return reply
        if isinstance(reply, int):
            return reply, {"error": {"message": f"scripted HTTP {reply}", "code": reply}}
        message = _message(reply, n)
        prompt_chars = len(orjson.dumps(body.get("messages", [])))
        completion_chars = len(orjson.dumps(message))
        usage = {
            "prompt_tokens": prompt_chars // 4 + 1,
            "completion_tokens": completion_chars // 4 + 1,
        }
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return 200, {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", self.served_name),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if message.get("tool_calls") else "stop",
                }
            ],
            "usage": usage,
        }


def _message(reply: str | dict[str, Any], n: int) -> dict[str, Any]:
    if isinstance(reply, str):
        return {"role": "assistant", "content": reply}
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    calls = []
    for i, call in enumerate(reply.get("tool_calls") or []):
        fn = call.get("function", call)
        args = fn.get("arguments", {})
        calls.append(
            {
                "id": call.get("id", f"call_{n}_{i}"),
                "type": "function",
                "function": {
                    "name": fn["name"],
                    "arguments": args if isinstance(args, str) else orjson.dumps(args).decode(),
                },
            }
        )
    if calls:
        message["tool_calls"] = calls
    return message


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out has closed its socket; that is the point of a slow reply.
        pass


def _handler(model: ScriptedModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = orjson.loads(self.rfile.read(length) or b"{}")
            except orjson.JSONDecodeError:
                body = {}
            answer = model._answer(body)
            if isinstance(answer, _Drop):
                self.close_connection = True  # no status line, no body: a dropped connection
                return
            status, payload = answer
            data = orjson.dumps(payload)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler
