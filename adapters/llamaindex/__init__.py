"""DeltaCore as LlamaIndex's native memory, retriever and hooks.

The adapter classes arrive with the framework-adapters issue; importing this package already
checks that LlamaIndex is installed (`pip install 'deltacore[llamaindex]'`).
"""

from deltacore.adapters._require import require

require("LlamaIndex", "llamaindex", "llama_index.core")
