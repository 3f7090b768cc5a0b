"""LangChain's own standard tests (``langchain-tests``) run against the DeltaCore adapters."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from typing import Any  # noqa: E402

import pytest  # noqa: E402

pytest.importorskip("langchain_tests", reason="the standard tests need the dev dependency langchain-tests")

from langchain_tests.integration_tests import (  # noqa: E402
    BaseStoreAsyncTests,
    BaseStoreSyncTests,
    RetrieversIntegrationTests,
)

from deltacore import DeltaCore  # noqa: E402
from deltacore.adapters.langchain import DeltaCoreRetriever, DeltaCoreStore  # noqa: E402
from deltacore.testing import FakeEmbedder  # noqa: E402


@pytest.fixture
def memory(tmp_path):
    with DeltaCore.open(tmp_path / "mem", embedder=FakeEmbedder()) as store:
        yield store


class TestDeltaCoreRetrieverStandard(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _memories(self, memory: DeltaCore) -> None:
        memory.ingest([{"text": f"the service number {n} runs on port {8000 + n}", "kind": "fact"} for n in range(5)])
        self.memory = memory

    @property
    def retriever_constructor(self) -> type[DeltaCoreRetriever]:
        return DeltaCoreRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"store": self.memory}

    @property
    def retriever_query_example(self) -> str:
        return "which port does the service use?"

    @property
    def num_results_arg_name(self) -> str:
        return "top_k"


class TestDeltaCoreStoreSync(BaseStoreSyncTests[Any]):
    @pytest.fixture
    def kv_store(self, memory: DeltaCore) -> DeltaCoreStore:
        return DeltaCoreStore(memory, namespace="standard")

    @pytest.fixture
    def three_values(self) -> tuple[Any, Any, Any]:
        return "alpha value", {"nested": [1, 2]}, b"raw bytes"


class TestDeltaCoreStoreAsync(BaseStoreAsyncTests[Any]):
    @pytest.fixture
    async def kv_store(self, memory: DeltaCore) -> DeltaCoreStore:
        return DeltaCoreStore(memory, namespace="standard")

    @pytest.fixture
    def three_values(self) -> tuple[Any, Any, Any]:
        return "alpha value", {"nested": [1, 2]}, b"raw bytes"
