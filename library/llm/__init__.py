"""The one gateway to models: settings, a recording and replaying litellm client, call records.

litellm itself is imported lazily on the first real call (it takes seconds to import).
"""

from library.llm.client import LLMCallError, LLMClient, LLMError, LLMResponse, ModelNotConfigured
from library.llm.records import CallRecord, CallStore, MemoryCallStore, prompt_hash
from library.llm.settings import LLMSettings, settings_from_env

__all__ = [
    "CallRecord",
    "CallStore",
    "LLMCallError",
    "LLMClient",
    "LLMError",
    "LLMResponse",
    "LLMSettings",
    "MemoryCallStore",
    "ModelNotConfigured",
    "prompt_hash",
    "settings_from_env",
]
