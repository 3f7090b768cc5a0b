"""DeltaCore as AutoGen's native memory, retriever and hooks.

The adapter classes arrive with the framework-adapters issue; importing this package already
checks that AutoGen is installed (`pip install 'deltacore[autogen]'`).
"""

from deltacore.adapters._require import require

require("AutoGen", "autogen", "autogen_agentchat")
