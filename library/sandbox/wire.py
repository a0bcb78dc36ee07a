"""The worker protocol: each message is a 4-byte big-endian length, then that many bytes of
orjson. The worker side blocks; the parent side never waits past a deadline."""

from __future__ import annotations

import os
import select
import struct
import time
from typing import IO, Any

import orjson
from pydantic import BaseModel

HEADER = struct.Struct(">I")


def _to_json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def encode(message: Any) -> bytes:
    body = orjson.dumps(message, default=_to_json)
    return HEADER.pack(len(body)) + body


# -- worker side (blocking) -----------------------------------------------------------------
def read_message(reader: IO[bytes]) -> Any | None:
    """The next message, or None when the parent closed the pipe."""
    header = reader.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    body = reader.read(size)
    if len(body) < size:
        return None
    return orjson.loads(body)


def write_message(writer: IO[bytes], message: Any) -> None:
    writer.write(encode(message))
    writer.flush()


# -- parent side (deadlines) ----------------------------------------------------------------
class ChannelClosed(Exception):
    """The worker closed its end (it exited or was killed)."""


class ChannelTimeout(Exception):
    """The deadline passed before the message was through."""


class ChannelGarbage(Exception):
    """The worker sent something that is not a message."""


class Channel:
    """Deadline-bound framed IO over the worker's stdin (``wfd``) and stdout (``rfd``)."""

    def __init__(self, wfd: int, rfd: int, max_bytes: int) -> None:
        self.wfd, self.rfd, self.max_bytes = wfd, rfd, max_bytes
        # A hung worker stops reading; a non-blocking write lets the deadline still apply.
        os.set_blocking(wfd, False)
        self._out = select.poll()
        self._out.register(wfd, select.POLLOUT)
        self._in = select.poll()
        self._in.register(rfd, select.POLLIN)
        self._buf = bytearray()

    @staticmethod
    def _wait(poller: select.poll, deadline: float) -> None:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not poller.poll(remaining * 1000):
            raise ChannelTimeout

    def send(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            try:
                sent = os.write(self.wfd, view)
            except BlockingIOError:
                self._wait(self._out, deadline)
                continue
            except BrokenPipeError:
                raise ChannelClosed from None
            view = view[sent:]

    def _fill(self, need: int, deadline: float) -> None:
        while len(self._buf) < need:
            # poll before every read: a blocking read would not honour the deadline.
            self._wait(self._in, deadline)
            chunk = os.read(self.rfd, max(need - len(self._buf), 1 << 16))
            if not chunk:
                raise ChannelClosed
            self._buf += chunk

    def recv(self, deadline: float) -> Any:
        self._fill(HEADER.size, deadline)
        (size,) = HEADER.unpack_from(self._buf)
        if size > self.max_bytes:
            raise ChannelGarbage(f"message header announces {size} bytes")
        self._fill(HEADER.size + size, deadline)
        body = bytes(self._buf[HEADER.size : HEADER.size + size])
        del self._buf[: HEADER.size + size]
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            raise ChannelGarbage(f"undecodable message: {exc}") from None
