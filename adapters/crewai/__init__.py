"""DeltaCore as CrewAI's native memory, retriever and hooks.

The adapter classes arrive with the framework-adapters issue; importing this package already
checks that CrewAI is installed (`pip install 'deltacore[crewai]'`).
"""

from deltacore.adapters._require import require

require("CrewAI", "crewai", "crewai")
