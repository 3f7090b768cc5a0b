"""DeltaCore as AutoGen's native memory, tool workbench and run recorder.

>>> # memory = DeltaCoreMemory(DeltaCore.open("./memory"), user_id="alice")
>>> # agent = AssistantAgent("assistant", client, workbench=DeltaCoreWorkbench(memory, tools), memory=[memory])
>>> # result = await record_run(memory, agent, "What's the weather in Paris?")

Importing this package checks that AutoGen is installed (`pip install 'deltacore[autogen]'`).
"""

from deltacore.adapters._require import require

require("AutoGen", "autogen", "autogen_agentchat")

from deltacore.adapters.autogen.episodes import (  # noqa: E402
    Episode,
    current_episode,
    record_run,
    record_run_stream,
    record_stream,
)
from deltacore.adapters.autogen.memory import (  # noqa: E402
    MEMORY_HEADER,
    DeltaCoreMemory,
    DeltaCoreMemoryConfig,
    format_memories,
    format_memory,
    is_memory_message,
)
from deltacore.adapters.autogen.workbench import DeltaCoreWorkbench, DeltaCoreWorkbenchConfig  # noqa: E402
from deltacore.adapters.autogen.tools import memory_tools  # noqa: E402
from deltacore.adapters.autogen.plans import DeltaCorePlanMemory, is_plan_message  # noqa: E402

__all__ = [
    "MEMORY_HEADER",
    "DeltaCoreMemory",
    "DeltaCoreMemoryConfig",
    "DeltaCorePlanMemory",
    "DeltaCoreWorkbench",
    "DeltaCoreWorkbenchConfig",
    "Episode",
    "current_episode",
    "format_memories",
    "format_memory",
    "is_memory_message",
    "is_plan_message",
    "record_run",
    "record_run_stream",
    "record_stream",
    "memory_tools",
]
