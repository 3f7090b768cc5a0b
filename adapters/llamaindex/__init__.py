"""DeltaCore as LlamaIndex's native memory block, retriever, embedding and instrumentation.

>>> # handler = instrument(store, user_id="alice")                       # records every run
>>> # memory = Memory.from_defaults(session_id="s1", memory_blocks=[DeltaCoreMemoryBlock(store=store, user_id="alice")])
>>> # await agent.run(user_msg="...", memory=memory)

Importing this package checks that LlamaIndex is installed (`pip install 'deltacore[llamaindex]'`).
"""

from deltacore.adapters._require import require

require("LlamaIndex", "llamaindex", "llama_index.core")

from deltacore.adapters._shared import memory_line as format_packet  # noqa: E402
from deltacore.adapters.llamaindex._translate import current_run_id  # noqa: E402
from deltacore.adapters.llamaindex.embeddings import DeltaCoreEmbedding, LlamaIndexEmbedder  # noqa: E402
from deltacore.adapters.llamaindex.instrumentation import (  # noqa: E402
    DeltaCoreSpanHandler,
    active_handlers,
    instrument,
)
from deltacore.adapters.llamaindex.memory import MEMORY_HEADER, DeltaCoreMemoryBlock, format_block  # noqa: E402
from deltacore.adapters.llamaindex.retrievers import DeltaCoreRetriever, to_node  # noqa: E402
from deltacore.adapters.llamaindex.tools import memory_tools  # noqa: E402
from deltacore.adapters.llamaindex.plans import DeltaCorePlanBlock  # noqa: E402

__all__ = [
    "MEMORY_HEADER",
    "DeltaCoreEmbedding",
    "DeltaCoreMemoryBlock",
    "DeltaCorePlanBlock",
    "DeltaCoreRetriever",
    "DeltaCoreSpanHandler",
    "LlamaIndexEmbedder",
    "active_handlers",
    "current_run_id",
    "format_block",
    "format_packet",
    "instrument",
    "to_node",
    "memory_tools",
]
