"""Packaging guards: every package folder ships, frameworks stay optional, the API is pinned."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def declared_packages() -> set[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(config["tool"]["setuptools"]["packages"])


def package_folders() -> set[str]:
    found = set()
    for base, prefix in ((ROOT / "core", "deltacore"), (ROOT / "adapters", "deltacore.adapters")):
        for init in base.rglob("__init__.py"):
            parts = init.parent.relative_to(base).parts
            found.add(".".join((prefix, *parts)))
    return found


def test_every_package_folder_is_listed_for_the_wheel():
    # An editable install imports unlisted subpackages anyway; the wheel would silently lack them.
    assert package_folders() == declared_packages()


def test_importing_deltacore_imports_no_framework():
    code = (
        "import sys, deltacore, deltacore.engine, deltacore.cli;"
        "bad = [m for m in ('langchain_core', 'langchain', 'autogen_agentchat', 'autogen_core', 'crewai',"
        " 'llama_index', 'sentence_transformers', 'torch', 'mcp', 'starlette', 'uvicorn') if m in sys.modules];"
        "print(','.join(bad))"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert output == ""


PUBLIC_API = [
    "AsyncDeltaCore", "BackendError", "BackendUnavailableError", "BeliefStale", "CausalChain", "Channel",
    "ChromaEmbedder", "CircularCausalChain", "CompressionLimit", "ConfigurationError", "ConsolidationTimeout",
    "CreditUpdate", "Decision", "DeleteResult", "Delta", "DeltaCore", "DeltaCoreConfig", "DeltaCoreError", "DistributionShift",
    "DriftReport", "Embedder",
    "EmbedderMismatchError",
    "ForeignDatabaseError", "ReadOnlyStoreError", "StorageFullError",
    "Event", "EventKind", "IngestResult", "InvalidEventError", "InvalidQueryError", "MemoryAlias",
    "MemoryException", "MemoryFlag", "MemoryPacket", "MiniLMEmbedder", "MissingExtraError", "Namespace",
    "NotFoundError", "OutcomeReport", "PoisonDetected", "PropagationReport", "QuarantineReview",
    "QueryCriteria", "Rejection", "ReviewItem", "SchemaDrift", "SecurityEvent", "StoreClosedError", "StoreLockedError",
    "StoreStats", "TemporalContradiction", "ToolDrift", "TrustAction", "TrustDecision", "TrustPolicy",
    "__version__",
    "GovernorPolicy", "MemoryBudget", "MemoryEconomy", "OverloadedError", "QuotaExceededError", "TelemetryPolicy",
]

ENGINE_METHODS = [
    "add", "apply_outbox", "checkpoints", "close", "conflicts", "delete", "embed", "events", "export", "facts",
    "feedback", "forget", "forget_many", "forget_status", "get", "history", "ingest", "monitor", "namespaces",
    "observe_tools", "open", "owns_vector_index", "propagate", "quarantine_review", "quarantined", "query",
    "query_belief", "query_causal", "recall_decisions", "record_outcome", "record_retrieval", "reindex",
    "resolve_conflict", "resolve_review", "restore", "retrievals", "review_queue", "security_events", "set_budget",
    "stats", "system_events", "tool_schemas", "trust_score", "update", "verify_erasure", "versions",
]
# Plans as schemas (issue 17).
ENGINE_METHODS = sorted(ENGINE_METHODS + [
    "declare_failure", "recall_plans", "schema_export", "schema_get", "schema_import", "schema_rollback", "schema_update",
])  # fmt: skip
# Sleep-cycle consolidation (issue 18).
ENGINE_METHODS = sorted(ENGINE_METHODS + ["consolidate", "consolidate_status", "register_probes"])
PUBLIC_API = PUBLIC_API + [
    "ColdPartitionCorruptError", "ConsolidationBusyError", "ConsolidationPhase", "ConsolidationPolicy",
    "ConsolidationReport", "ConsolidationStatus", "InvalidConsolidationError",
]  # fmt: skip
# The schema router's packets (issue 18): a packet's kind and the schema it matched.
PUBLIC_API = PUBLIC_API + ["PacketKind", "SchemaMatch"]


def test_public_api_is_pinned():
    import deltacore

    assert sorted(deltacore.__all__) == sorted(PUBLIC_API)
    for name in PUBLIC_API:
        assert hasattr(deltacore, name), name
    public_methods = sorted(n for n in dir(deltacore.DeltaCore) if not n.startswith("_"))
    assert public_methods == ENGINE_METHODS


def test_async_twin_mirrors_the_sync_api():
    from deltacore import AsyncDeltaCore, DeltaCore

    sync = {n for n in dir(DeltaCore) if not n.startswith("_")} - {"owns_vector_index"}  # a property; the twin has .sync
    twin = {n for n in dir(AsyncDeltaCore) if not n.startswith("_")} - {"sync"}
    assert sync == twin


@pytest.mark.parametrize("framework", ["langchain", "autogen", "crewai", "llamaindex"])
def test_adapter_without_its_framework_names_the_extra(framework, tmp_path):
    # Hide every installed framework with a meta path finder, in a child process.
    code = (
        "import sys, importlib.abc\n"
        "class Hide(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('langchain_core', 'autogen_agentchat', 'crewai', 'llama_index'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        f"import deltacore.adapters.{framework}\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode != 0
    assert f"pip install 'deltacore[{framework}]'" in result.stderr
    assert "MissingExtraError" in result.stderr
