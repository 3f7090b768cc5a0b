"""DeltaCore as LangChain's native memory, retriever, stores, embeddings and hooks.

Importing this package checks that LangChain is installed (`pip install 'deltacore[langchain]'`).

=====================================  ============================================================
class                                  LangChain / LangGraph interface it implements
=====================================  ============================================================
``DeltaCoreMiddleware``                ``langchain.agents.middleware.AgentMiddleware``
``DeltaCorePlanMiddleware``            ``AgentMiddleware``: the best plan in the system message
``DeltaCoreCallbackHandler``           ``langchain_core.callbacks.BaseCallbackHandler``
``AsyncDeltaCoreCallbackHandler``      ``langchain_core.callbacks.AsyncCallbackHandler``
``DeltaCoreRetriever``                 ``langchain_core.retrievers.BaseRetriever``
``DeltaCoreChatMessageHistory``        ``langchain_core.chat_history.BaseChatMessageHistory``
``DeltaCoreStore``                     ``langchain_core.stores.BaseStore[str, Any]``
``DeltaCoreLangGraphStore``            ``langgraph.store.base.BaseStore``
``LangChainEmbedder``                  a LangChain ``Embeddings`` as DeltaCore's embedder
``DeltaCoreEmbeddings``                ``langchain_core.embeddings.Embeddings``
``memory_tools``                       ``manage_memory`` / ``search_memory`` / ``recall_plans`` tools
``DeltaCoreCheckpointSaver``           ``langgraph.checkpoint.base.BaseCheckpointSaver``
=====================================  ============================================================
"""

from deltacore.adapters._require import require

require("LangChain", "langchain", "langchain_core", "langchain", "langgraph")

from deltacore.adapters.langchain.callbacks import (  # noqa: E402
    AsyncDeltaCoreCallbackHandler,
    DeltaCoreCallbackHandler,
)
from deltacore.adapters.langchain.chat_history import DeltaCoreChatMessageHistory  # noqa: E402
from deltacore.adapters.langchain.embeddings import DeltaCoreEmbeddings, LangChainEmbedder  # noqa: E402
from deltacore.adapters.langchain.middleware import DeltaCoreMiddleware  # noqa: E402
from deltacore.adapters.langchain.plans import DeltaCorePlanMiddleware  # noqa: E402
from deltacore.adapters.langchain.retrievers import DeltaCoreRetriever  # noqa: E402
from deltacore.adapters.langchain.storage import DeltaCoreStore  # noqa: E402
from deltacore.adapters.langchain.store import DeltaCoreLangGraphStore  # noqa: E402
from deltacore.adapters.langchain.tools import memory_tools  # noqa: E402
from deltacore.adapters.langchain.checkpoint import DeltaCoreCheckpointSaver  # noqa: E402

__all__ = [
    "AsyncDeltaCoreCallbackHandler",
    "DeltaCoreCallbackHandler",
    "DeltaCoreChatMessageHistory",
    "DeltaCoreEmbeddings",
    "DeltaCoreLangGraphStore",
    "DeltaCoreMiddleware",
    "DeltaCorePlanMiddleware",
    "DeltaCoreRetriever",
    "DeltaCoreStore",
    "LangChainEmbedder",
    "memory_tools",
    "DeltaCoreCheckpointSaver",
]
