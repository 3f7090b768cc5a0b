"""DeltaCore as CrewAI's native memory, storage backend, event listener and tool hooks.

Importing this package checks that CrewAI is installed (`pip install 'deltacore[crewai]'`).

>>> # store = DeltaCore.open("./memory")
>>> # recorder = DeltaCoreListener(store)            # episodes: tool calls, outputs, outcomes
>>> # crew = Crew(agents=[...], tasks=[...], memory=DeltaCoreMemory(store))
"""

from deltacore.adapters._require import require

require("CrewAI", "crewai", "crewai")

from deltacore.adapters.crewai.episodes import current_episode_id, episode_of  # noqa: E402
from deltacore.adapters.crewai.hooks import ToolCallCapture, ToolSchemaHooks, tool_args_schema  # noqa: E402
from deltacore.adapters.crewai.listeners import DeltaCoreListener  # noqa: E402
from deltacore.adapters.crewai.memory import DeltaCoreMemory, NoAnalysisLLM  # noqa: E402
from deltacore.adapters.crewai.storage import DeltaCoreEmbedder, DeltaCoreStorage  # noqa: E402
from deltacore.adapters.crewai.tools import memory_tools  # noqa: E402

__all__ = [
    "DeltaCoreEmbedder",
    "DeltaCoreListener",
    "DeltaCoreMemory",
    "DeltaCoreStorage",
    "NoAnalysisLLM",
    "ToolCallCapture",
    "ToolSchemaHooks",
    "current_episode_id",
    "episode_of",
    "tool_args_schema",
    "memory_tools",
]
