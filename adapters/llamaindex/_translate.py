"""Translation of LlamaIndex objects, shared by the adapter's modules (the framework-independent
helpers are in :mod:`deltacore.adapters._shared`)."""

from __future__ import annotations

from llama_index.core.base.llms.types import ChatMessage, TextBlock
from llama_index.core.instrumentation.dispatcher import active_instrument_tags

FRAMEWORK = "llamaindex"
RUN_ID_TAG = "llamaindex.run_id"
"""The instrument tag a workflow run sets around its steps: the run's id (``handler.run_id``)."""


def current_run_id() -> str | None:
    """The id of the workflow run this code runs inside (a FunctionAgent run), if any."""
    run_id = active_instrument_tags.get().get(RUN_ID_TAG)
    return str(run_id) if run_id else None


def message_text(message: ChatMessage | str | None) -> str:
    if message is None:
        return ""
    if isinstance(message, str):
        return message
    return "\n".join(block.text for block in message.blocks if isinstance(block, TextBlock))
