"""A closed store refuses every call with a clear error instead of half-working."""

from __future__ import annotations

import asyncio

import pytest

from deltacore import AsyncDeltaCore, DeltaCore, DeltaCoreError, StoreClosedError

PUBLIC = sorted(n for n in dir(DeltaCore) if not n.startswith("_") and n not in ("close", "open"))


def test_every_public_method_of_a_closed_store_raises(backend):
    memory = backend.open()
    memory.add("deploy billing to prod")
    memory.close()
    for name in PUBLIC:
        with pytest.raises(StoreClosedError, match=f"DeltaCore.{name}: this store is closed"):
            getattr(memory, name)
    assert issubclass(StoreClosedError, DeltaCoreError)
    memory.close()  # closing twice is a no-op


def test_using_the_store_after_its_with_block(backend):
    with backend.open() as memory:
        memory.add("deploy billing to prod")
    with pytest.raises(StoreClosedError, match="open it again"):
        memory.query("deploy")
    with pytest.raises(StoreClosedError):
        with memory:
            pass
    with backend.open() as again:  # the data is still there for a new handle
        assert [p.text for p in again.query("deploy", top_k=1, include_deltas=False)] == ["deploy billing to prod"]


def test_the_async_twin_of_a_closed_store_raises_too(backend):
    async def run() -> None:
        memory = AsyncDeltaCore(backend.open())
        await memory.close()
        with pytest.raises(StoreClosedError):
            await memory.query("anything")

    asyncio.run(run())

