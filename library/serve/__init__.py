"""Serving our environments to other harnesses: an MCP server, an OpenEnv environment and a
verifiers environment, all over one ``Episode`` (a task's World behind an ``Env``, judged by
our rubric in this process). The adapters import their SDKs lazily (optional extra
``serve``); this package knows nothing of the warehouse (``tasks/serve.py`` loads tasks)."""

from library.serve.episode import Episode, EpisodeFactory, Score, envelope_schema, mcp_tools

__all__ = ["Episode", "EpisodeFactory", "Score", "envelope_schema", "mcp_tools"]
