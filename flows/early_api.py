"""Boot Prefect's temporary API server while the stages' heavy imports load.

Without ``PREFECT_API_URL`` a flow's first call starts a temporary local server and waits
for it (6-10 s on 2 cores; STACK.md). The stages then import litellm, Great Expectations and
the rest (another 2-3 s, on the other core). Starting the server first, in a thread, overlaps
the two; the flow call then finds the server up (Prefect keeps one per process).
"""

from __future__ import annotations

import os
import threading


def start_in_background() -> threading.Thread | None:
    """Start the temporary server in a thread; None when a real server is configured."""
    if os.environ.get("PREFECT_API_URL"):
        return None
    from prefect.server.api.server import SubprocessASGIServer

    server = SubprocessASGIServer()  # the instance get_client() will find later
    thread = threading.Thread(target=server.start, name="prefect-api-start", daemon=True)
    thread.start()
    return thread


def wait_until_up(thread: threading.Thread | None) -> None:
    """Join the start-up thread before any flow runs: a flow called while it is still
    booting would see it as running and send requests to a port not yet listening."""
    if thread is not None:
        thread.join()
