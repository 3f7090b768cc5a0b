"""DeltaCore as LangChain's native memory, retriever and hooks.

The adapter classes arrive with the framework-adapters issue; importing this package already
checks that LangChain is installed (`pip install 'deltacore[langchain]'`).
"""

from deltacore.adapters._require import require

require("LangChain", "langchain", "langchain_core")
