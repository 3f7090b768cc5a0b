"""AsyncDeltaCore: every public method of DeltaCore has an awaitable twin that takes the same
parameters, works on a real store, and leaves the event loop free while the store works."""

from __future__ import annotations

import asyncio
import inspect
import threading

import pytest

from deltacore import AsyncDeltaCore, DeltaCore, NotFoundError
from deltacore.testing import FakeEmbedder

# Handled on their own: the context manager is `async with` on the twin.
CONTEXT_MANAGER = {"__enter__": "__aenter__", "__exit__": "__aexit__"}


def public_methods() -> list[str]:
    """DeltaCore's public methods (properties such as ``owns_vector_index`` are not methods)."""
    names = []
    for name in dir(DeltaCore):
        if name.startswith("_"):
            continue
        attribute = inspect.getattr_static(DeltaCore, name)
        if isinstance(attribute, (staticmethod, classmethod)) or inspect.isfunction(attribute):
            names.append(name)
    return sorted(names)


def parameters(function: object) -> list[tuple[str, str, object, object]]:
    return [
        (p.name, p.kind.name, p.default, p.annotation) for p in inspect.signature(function).parameters.values()
    ]


def test_the_method_list_covers_the_facade():
    # Guards the filter above: if it silently matched nothing, the twin test would pass vacuously.
    assert {"open", "close", "ingest", "query", "record_outcome", "delete", "reindex"} <= set(public_methods())


@pytest.mark.parametrize("name", public_methods())
def test_every_public_method_has_an_async_twin_with_the_same_parameters(name):
    twin = getattr(AsyncDeltaCore, name, None)
    assert twin is not None, f"AsyncDeltaCore.{name} is missing: add the async twin of DeltaCore.{name}"
    assert inspect.iscoroutinefunction(twin), f"AsyncDeltaCore.{name} must be `async def`"
    assert parameters(twin) == parameters(getattr(DeltaCore, name)), (
        f"AsyncDeltaCore.{name} must take exactly the parameters of DeltaCore.{name} "
        "(names, kinds, defaults and annotations)"
    )
    assert f"DeltaCore.{name}" in (twin.__doc__ or ""), f"AsyncDeltaCore.{name}'s docstring should point at its sync twin"


def test_the_twin_has_no_method_the_facade_lacks():
    twin_methods = {
        name
        for name in dir(AsyncDeltaCore)
        if not name.startswith("_") and inspect.iscoroutinefunction(getattr(AsyncDeltaCore, name))
    }
    assert twin_methods == set(public_methods())


def test_the_twin_is_an_async_context_manager():
    for sync_name, async_name in CONTEXT_MANAGER.items():
        assert hasattr(DeltaCore, sync_name)
        assert inspect.iscoroutinefunction(getattr(AsyncDeltaCore, async_name)), async_name


async def test_ingest_query_learn_and_delete_through_the_async_api(backend):
    async with await AsyncDeltaCore.open(embedder=FakeEmbedder(), **backend.settings) as memory:
        result = await memory.ingest(
            [
                {"id": "port", "text": "the api service runs on port 8080", "kind": "fact", "episode_id": "ep1"},
                {"id": "db", "text": "the billing database is postgres 16", "kind": "fact", "episode_id": "ep1"},
            ]
        )
        assert sorted(result.event_ids) == ["db", "port"]

        packets = await memory.query("which port does the api use?", top_k=1)
        assert [p.id for p in packets] == ["port"]

        report = await memory.record_outcome("ep1", 1.0)
        assert report.update_for("port").utility > 0.5

        deleted = await memory.delete(["port"])
        assert deleted.event_ids == ["port"]
        assert "port" not in [p.id for p in await memory.query("which port does the api use?", top_k=5)]
        with pytest.raises(NotFoundError):
            await memory.get("port")
        assert (await memory.stats()).events == 1
        assert (await memory.reindex(batch_size=1)) == 1


class GatedEmbedder(FakeEmbedder):
    """The fake embedder, made to wait for the event loop to make progress once armed.

    If the awaited call ran on the loop's own thread, the loop could not run the ticker that
    opens the gate, and the wait would time out."""

    def __init__(self) -> None:
        super().__init__()
        self.armed = False
        self.gate = threading.Event()
        self.released_by_loop: bool | None = None

    def __call__(self, input: list[str]):
        if self.armed:
            self.released_by_loop = self.gate.wait(timeout=5)
        return super().__call__(input)


async def test_a_slow_call_does_not_block_the_event_loop(tmp_path):
    embedder = GatedEmbedder()
    async with await AsyncDeltaCore.open(tmp_path / "store", embedder=embedder) as memory:
        await memory.add("the api service runs on port 8080", kind="fact")
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1
                if ticks == 5:  # the loop kept running while the query waits in its thread
                    embedder.gate.set()

        embedder.armed = True
        ticking = asyncio.create_task(ticker())
        try:
            packets = await memory.query("which port does the api use?", top_k=1)
        finally:
            ticking.cancel()
        assert embedder.released_by_loop is True
        assert ticks >= 5
        assert packets[0].text == "the api service runs on port 8080"
