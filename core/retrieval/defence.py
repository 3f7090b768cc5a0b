"""Retrieval-time defence: what reaches the agent must deserve to drive a decision.

Applied to the fused candidates before anything is fetched, so every router (and the HOT
tier) goes through it:

1. **Honeypots**: a query that would retrieve a canary raises ``HONEYPOT_TRIGGERED``
   (``deltacore.gateway.honeypots``); canaries are never returned.
2. **Trust or corroboration**: an UNVERIFIED memory (a document, a peer, a write the gateway
   sent down the slow path) counts only when a trusted memory from an *independent* source in
   the same candidate pool says nearly the same thing (cosine ≥
   ``corroboration_similarity``). Uncorroborated, its score is multiplied by
   ``suspect_weight`` (slow-path writes) or ``unverified_weight`` (unverified channels);
   with ``QueryCriteria.for_decision`` it is left out.
   The same holds for any memory of a source without **standing** (``deltacore.gateway.standing``:
   enough memories, over days, and a reputation it has not lost — or trust earned from
   outcomes), with one exception so that a new user can find what they said: when nothing
   trusted answers the query and nothing trusted covers the memory's topic (no trusted
   candidate of a source with standing within ``answered_similarity`` of the query or of the
   memory), the newcomer's memory keeps its score. A planted answer that competes with true
   evidence therefore loses; one about a topic nothing trusted covers does not
   (docs/security.md says so).
   Corroboration is at the level of values too: a corroborator must be a near-duplicate
   (cosine ≥ ``corroboration_similarity``) *and* repeat every number, date and name the
   doubted memory asserts (its own writer's names aside) — misinformation is topically close
   to the truth by construction, so a cosine alone would pass a planted variant.
3. **First-party authority** (``deltacore.gateway.hearsay``): a memory that speaks about a
   principal of the tenant (someone who is a source there) in the third person, written by a
   different source, is *hearsay*. When one of that principal's own memories among the
   candidates is about the same thing (cosine ≥ ``hearsay_topic_similarity``) and none of them
   confirms it (cosine ≥ ``corroboration_similarity`` *and* every value it asserts — number,
   date, name — repeated), its score is multiplied by ``hearsay_weight``, whatever its
   writer's standing; with ``for_decision`` it is left out. A demoted memory corroborates
   nothing. Seen from the question (``question_subject_authority``): when the query speaks
   about a principal, every candidate another person (user or peer channel) wrote is an
   account of that principal for this query, named or not — a planted "They went camping on
   2 June" competes with Caroline's own account exactly as "Caroline went camping…" would.
4. **Narrow cone**: a memory retrieved (``record_retrieval``) by at least
   ``cone_min_retrievals`` queries that are nearly all the same words is what a trigger
   backdoor looks like (it is built to answer one trigger); its score is multiplied by
   ``cone_weight``.

Quarantined memories never get here (every SQL filter and the HOT tier drop them), and
tainted ones are dropped at packet time (``exclude_tainted``). Nothing of this is visible in
the packets beyond their ordinary ``namespace``/``trust``/flags.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection

from deltacore.gateway.consistency import content_words
from deltacore.gateway.honeypots import Honeypots
from deltacore.gateway.hearsay import agrees, principal_sources, source_names, spoken_about
from deltacore.trust_policy import TrustPolicy
from deltacore.gateway.standing import newcomer_sources
from deltacore.model import Channel, Namespace
from deltacore.storage.retrieval_reads import retrieval_queries, trust_rows, unit_vectors

Fused = list[tuple[str, float, dict[str, int]]]
# Channels whose writes are a person's (or a peer agent's) account: the question-side hearsay
# rule weighs them against the principal's own (see ``TrustPolicy.question_subject_authority``).
_PEOPLE = frozenset({Channel.USER.value, Channel.PEER.value})


class RetrievalDefence:
    def __init__(self, policy: TrustPolicy, honeypots: Honeypots | None = None) -> None:
        self.policy = policy
        self._honeypots = honeypots

    def honeypot_hits(self, context: Any, ranked: dict[str, list[tuple[str, float]]]) -> list[str]:
        criteria = context.criteria
        if self._honeypots is None or not criteria.text or not self.policy.enabled:
            return []
        semantic = ranked.get("semantic") or []
        best = semantic[0][1] if semantic else None
        vector = context.query_vector() if "semantic" in ranked else None
        return self._honeypots.reached(criteria.tenant, criteria.text, vector, best)

    def rerank(
        self, conn: Connection, fused: Fused, for_decision: bool, tenant: str = "default",
        semantic: Sequence[tuple[str, float]] | None = None, query: str | None = None,
    ) -> Fused:
        """The candidates re-weighted (and, for a decision, filtered), best first.

        ``semantic``: the semantic router's (id, cosine to the query), which tells whether a
        trusted memory answers the query (without it, one is assumed to). ``query``: the
        question's text, whose subjects make the other sources' candidates accounts of them
        (``TrustPolicy.question_subject_authority``)."""
        if not self.policy.enabled or not fused:
            return fused
        ids = [item_id for item_id, _, _ in fused]
        info, details, parents = _trust_info(conn, ids)
        vectors = _Vectors(conn)  # fetched once per query, shared by the rules that need them
        derived = _derived_from(conn, self.policy, details, parents)
        hearsay = self._hearsay(vectors, info, details, for_decision, query, derived)
        weights = self._corroboration(
            conn, info, for_decision, tenant, dict(semantic) if semantic is not None else None, details, set(hearsay),
            vectors,
        )
        # Independent doubts compound: a newcomer's uncorroborated record that is also hearsay
        # against a principal's own account must rank below the merely demoted candidates of
        # people with standing (by ``min`` it tied with them, and a trigger backdoor — built to
        # be a triggered query's nearest neighbour — won the tie).
        for event_id, weight in hearsay.items():
            weights[event_id] = weights.get(event_id, 1.0) * weight
        for event_id, weight in self._cones(conn, ids).items():
            weights[event_id] = weights.get(event_id, 1.0) * weight
        if not weights:
            return fused
        adjusted = [
            (item_id, score * weights.get(item_id, 1.0), ranks)
            for item_id, score, ranks in fused
            if weights.get(item_id, 1.0) > 0.0
        ]
        adjusted.sort(key=lambda item: (-item[1], item[0]))
        return adjusted

    def _hearsay(
        self, fetch: _Vectors, info: dict[str, tuple[str, float, str | None]], details: dict[str, tuple[str | None, str, str]],
        for_decision: bool, query: str | None = None, derived: dict[str, set[str]] | None = None,
    ) -> dict[str, float]:
        """Weights of the hearsay candidates that compete with their principal's own account
        unconfirmed (see the module docstring, rule 3). ``derived``: the agent's own records →
        the sources of the trusted turns they cite (``_derived_from``): not hearsay about those."""
        derived = derived or {}
        policy = self.policy
        if not policy.first_party_authority:
            return {}
        # The principals in the pool: the names each candidate's source goes by.
        own: dict[str, set[str]] = {}
        by_name: dict[str, set[str]] = {}
        for event_id, (_, _, source) in info.items():
            if source is None:
                continue
            own[event_id] = source_names(source, details[event_id][0])
            for name in own[event_id]:
                by_name.setdefault(name, set()).add(source)
        if len(set().union(*by_name.values()) if by_name else ()) < 2:
            return {}  # one source: nothing in the pool can be about another principal
        named: dict[str, dict[str, set[str]]] = {}  # hearsay id -> principal name -> their sources
        for event_id, (_, _, source) in info.items():
            if source is None:
                continue
            others: dict[str, set[str]] = {}
            # Names the text speaks about (not to); cached per text: most candidates of a
            # conversation address the other speaker by name, and the regexes are the cost.
            for name in spoken_about(details[event_id][1]) - own[event_id]:
                sources = principal_sources(name, by_name)
                if sources and source not in sources and not sources & derived.get(event_id, set()):
                    others[name] = sources
            if others:
                named[event_id] = others
        asked: dict[str, dict[str, set[str]]] = {}  # the same, for the question's subjects
        if query and policy.question_subject_authority:
            # The question's subjects: for this query, whatever another person wrote is an
            # account of them, named or not ("They went camping on 2 June" answers "When did
            # Caroline go camping?" as much as "Caroline went camping on 2 June" does).
            subjects = {name: principal_sources(name, by_name) for name in spoken_about(query)}
            subjects = {name: sources for name, sources in subjects.items() if sources}
            for event_id, (_, _, source) in info.items():
                if source is None or details[event_id][2] not in _PEOPLE:
                    continue  # a tool's output or a system record is not someone's account of a person
                accounts = {name: sources for name, sources in subjects.items() if source not in sources}
                if accounts:
                    asked[event_id] = accounts
        if not named and not asked:
            return {}
        principals_sources = {s for about in (named, asked) for p in about.values() for ss in p.values() for s in ss}
        # A principal's own account is a trusted record at fast-path trust: a write that only
        # claims their source (an impersonation, sent down the slow path) speaks for no one.
        first_party = {
            event_id for event_id, (namespace, trust, source) in info.items()
            if source in principals_sources and namespace == Namespace.TRUSTED.value and trust >= policy.fast_path
        }
        vectors = fetch(list(set(named) | set(asked) | first_party))
        # Cosines of every judged memory to every first-party one: one matrix product (a
        # question about a principal judges about half the pool against the other half).
        judged = [i for i in dict.fromkeys([*named, *asked]) if i in vectors]
        firsts = sorted(f for f in first_party if f in vectors)
        if not judged or not firsts:
            return {}
        cosine = np.stack([vectors[i] for i in judged]) @ np.stack([vectors[f] for f in firsts]).T
        row_of = {event_id: row for row, event_id in enumerate(judged)}
        first_sources = [info[f][2] for f in firsts]

        def unconfirmed(event_id: str, principals: dict[str, set[str]]) -> bool:
            """Does this memory compete with a principal's own account without their confirmation?"""
            row = row_of.get(event_id)
            if row is None:
                return False
            for sources in principals.values():
                topical = [
                    (f, float(cosine[row, col])) for col, f in enumerate(firsts)
                    if first_sources[col] in sources and cosine[row, col] >= policy.hearsay_topic_similarity
                ]
                if not topical:
                    continue  # the principal has said nothing about this here: no competing account
                ignore = source_names(info[topical[0][0]][2], details[topical[0][0]][0])
                if not any(
                    similarity >= policy.corroboration_similarity and agrees(details[event_id][1], details[f][1], ignore)
                    for f, similarity in topical
                ):
                    return True
            return False

        # The two demotions compound: hearsay that names the principal stays below the other
        # people's candidates a question about that principal demotes, instead of tying with them.
        weights: dict[str, float] = {}
        for event_id in set(named) | set(asked):
            weight = 1.0
            for about in (named, asked):
                if event_id in about and unconfirmed(event_id, about[event_id]):
                    weight *= policy.hearsay_weight
            if weight < 1.0:
                weights[event_id] = 0.0 if for_decision else weight
        return weights

    def _corroboration(
        self, conn: Connection, info: dict[str, tuple[str, float, str | None]], for_decision: bool, tenant: str,
        cosines: dict[str, float] | None, details: dict[str, tuple[str | None, str, str]] | None = None,
        demoted: set[str] = frozenset(),  # type: ignore[assignment]
        fetch: _Vectors | None = None,
    ) -> dict[str, float]:
        policy = self.policy
        newcomers = newcomer_sources(conn, policy, tenant, {row[2] for row in info.values() if row[2]})
        doubts: dict[str, float] = {}
        only_new: set[str] = set()  # doubted for lacking standing alone (the gateway had no doubt)
        for event_id, (namespace, trust, source) in info.items():
            weight = 1.0
            if namespace == Namespace.TRUSTED.value and trust < policy.fast_path:
                weight = min(weight, policy.suspect_weight)
            elif namespace == Namespace.UNVERIFIED.value:
                weight = min(weight, policy.suspect_weight if trust < policy.fast_path else policy.unverified_weight)
            if source in newcomers:
                if weight == 1.0:
                    only_new.add(event_id)
                weight = min(weight, policy.newcomer_weight)
            if weight < 1.0:
                doubts[event_id] = weight
        if not doubts:
            return {}
        # Corroborators: trusted memories at fast-path trust from sources with standing (or unnamed).
        trusted = [
            i for i, (namespace, trust, source) in info.items()
            if i not in doubts and i not in demoted and namespace == Namespace.TRUSTED.value and trust >= policy.fast_path
        ]
        # Does anything trusted answer the query? If not, a newcomer's memory may be the best there is.
        answered = cosines is None or any(cosines.get(i, 0.0) >= policy.answered_similarity for i in trusted)
        fetch = fetch or _Vectors(conn)
        vectors = fetch(list(doubts) + trusted) if trusted else {}
        corroborated = self._corroborated(list(doubts), trusted, info, vectors, details)
        weights: dict[str, float] = {}
        for event_id, weight in doubts.items():
            if event_id in corroborated:
                continue
            if for_decision:
                weights[event_id] = 0.0
            elif event_id in only_new and not answered and not self._covered(event_id, trusted, vectors):
                continue  # a new user's own news: nothing trusted says anything about it
            else:
                weights[event_id] = weight
        return weights

    def _covered(self, event_id: str, trusted: Sequence[str], vectors: dict[str, np.ndarray]) -> bool:
        """Is a trusted candidate about the same thing as this memory (cosine ≥
        ``answered_similarity``, below corroboration)? A planted answer restates a topic the
        true evidence covers, even when the question itself is far from that evidence."""
        mine = vectors.get(event_id)
        if mine is None:
            return False
        return any(float(mine @ vectors[other]) >= self.policy.answered_similarity for other in trusted if other in vectors)

    def _corroborated(
        self, doubted: Sequence[str], trusted: Sequence[str], info: dict[str, Any], vectors: dict[str, np.ndarray],
        details: dict[str, tuple[str | None, str, str]] | None = None,
    ) -> set[str]:
        """The doubted memories that a trusted memory of another source says nearly the same as.

        One matrix product for all pairs (the vectors are unit length, so it is their cosine);
        a source cannot corroborate itself, and a memory without a vector is never corroborated.
        With ``details`` (actor, text), a close pair must also agree on values: every number,
        date and name the doubted memory asserts appears in the corroborator (the
        corroborator's own names aside — John confirms "John went …" by "I went …").
        """
        doubted = [i for i in doubted if i in vectors]
        trusted = [i for i in trusted if i in vectors]
        if not doubted or not trusted:
            return set()
        similarity = np.stack([vectors[i] for i in doubted]) @ np.stack([vectors[i] for i in trusted]).T
        sources = [info[i][2] for i in trusted]
        same_source = np.array([[s is not None and info[d][2] == s for s in sources] for d in doubted], dtype=bool)
        close = (similarity >= self.policy.corroboration_similarity) & ~same_source
        if details is None:
            return {event_id for event_id, row in zip(doubted, close) if row.any()}
        return {
            event_id for event_id, row in zip(doubted, close)
            if any(
                agrees(details[event_id][1], details[other][1], source_names(info[other][2], details[other][0]))
                for other, hit in zip(trusted, row) if hit
            )
        }

    def _cones(self, conn: Connection, ids: Sequence[str]) -> dict[str, float]:
        policy = self.policy
        queries: dict[str, list[str]] = {}
        for event_id, query in retrieval_queries(conn, ids):
            if len(queries.setdefault(event_id, [])) < 20:
                queries[event_id].append(query)
        weights = {}
        for event_id, texts in queries.items():
            if len(texts) < policy.cone_min_retrievals:
                continue
            sets = [content_words(t) for t in texts]
            pairs = list(itertools.combinations(sets, 2))
            overlap = sum(len(a & b) / len(a | b) if a | b else 1.0 for a, b in pairs) / len(pairs)
            if overlap >= policy.cone_similarity:
                weights[event_id] = policy.cone_weight
        return weights


def _trust_info(
    conn: Connection, ids: Sequence[str]
) -> tuple[dict[str, tuple[str, float, str | None]], dict[str, tuple[str | None, str, str]], dict[str, tuple[str, ...]]]:
    """(namespace, trust, source), (actor, text, channel) and parent ids of each candidate."""
    found, details, parents = {}, {}, {}
    for row in trust_rows(conn, ids):
        found[row.id] = (row.namespace, float(row.trust), row.source)
        details[row.id] = (row.actor, row.text, row.channel)
        if row.parent_ids:
            parents[row.id] = tuple(row.parent_ids)
    return found, details, parents


# Channels whose writes are the agent's own (the host attributes them to it, no one can type
# into them): only there does a cited parent make a record derived rather than hearsay.
_AGENT_OWN = frozenset({Channel.AGENT.value, Channel.SYSTEM.value})


def _derived_from(
    conn: Connection, policy: TrustPolicy, details: dict[str, tuple[str | None, str, str]], parents: dict[str, tuple[str, ...]]
) -> dict[str, set[str]]:
    """The agent's own records (agent or system channel) → the sources of the trusted,
    fast-path turns they cite in ``parent_ids``. An observation the agent derived from
    Caroline's own turns is first-party material about Caroline, not a third party's account;
    one citing nothing (or only untrusted records) stays hearsay. A user-channel write that
    cites parents is not helped: anyone can type an id."""
    cited = {i: ps for i, ps in parents.items() if details[i][2] in _AGENT_OWN}
    if not cited or not policy.first_party_authority:
        return {}
    trusted = {
        row.id: row.source for row in trust_rows(conn, list({p for ps in cited.values() for p in ps}))
        if row.source and row.namespace == Namespace.TRUSTED.value and float(row.trust) >= policy.fast_path
    }
    return {i: found for i, ps in cited.items() if (found := {trusted[p] for p in ps if p in trusted})}


class _Vectors:
    """Unit vectors of candidates, fetched on demand and kept for the rest of one query."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._found: dict[str, np.ndarray] = {}
        self._asked: set[str] = set()

    def __call__(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        missing = [i for i in dict.fromkeys(ids) if i not in self._asked]
        if missing:
            self._found.update(unit_vectors(self._conn, missing))
            self._asked.update(missing)
        return self._found
