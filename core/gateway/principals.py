"""Authenticated principals: who is actually speaking, against the voice a write claims.

``Event.source`` — and an "as Caroline:" or "Caroline here:" opening in the text, or
``meta.speaker`` / ``meta.on_behalf_of`` — is a *claim*: anyone who can write on a channel can
type any name. ``Event.principal`` (``DeltaCore.ingest(..., principal=...)``, filled by the
adapters from the framework: LangChain's run config, AutoGen's message source, CrewAI's agent
and user, LlamaIndex's chat user) is what the host *authenticated*. A write whose claimed voice
is not its principal is an **impersonation**: it is never the principal's first-party record
(``deltacore.gateway.scoring`` routes it to the slow path, where it competes with nothing
trusted; ``deltacore.retrieval.defence`` never counts it as anyone's own account).

Two labels are the same voice when they are equal or when the names they go by
(``deltacore.gateway.hearsay.source_names``: "user:caroline" → "caroline") overlap — so a host
that authenticates "caroline" may keep writing ``source="user:caroline"``. Without a principal
nothing is authenticated: the verdict says so and the claims are taken as claims, as before.
"""

from __future__ import annotations

import re

from deltacore.gateway.hearsay import source_names
from deltacore.model import Event

NO_PRINCIPAL = "no authenticated principal: the source is as claimed"
_META_CLAIMS = ("speaker", "on_behalf_of")
# "As Caroline: …", "Speaking as Caroline, …", "Caroline here: …", "[Caroline]: …" at the start.
_TEXT_CLAIM = re.compile(
    r"^\s*(?:(?:[Ss]peaking |[Ww]riting |[Pp]osting )?(?<![A-Za-z])(?:[Aa]s|AS)\s+(?P<a>[A-Z][\w.'-]{1,40})\s*[:,]"
    r"|(?P<b>[A-Z][\w.'-]{1,40})\s+here\s*[:,]"
    r"|\[(?P<c>[A-Z][\w.'-]{1,40})\]\s*:)"
)


def claimed_voices(event: Event) -> list[str]:
    """The voices a write claims: its source, the speaker named in its metadata, and a name it
    opens its text with ("As Caroline: …")."""
    voices = [event.source] if event.source else []
    voices += [str(event.meta[k]) for k in _META_CLAIMS if isinstance(event.meta.get(k), str) and event.meta[k]]
    match = _TEXT_CLAIM.match(event.text or "")
    if match:
        voices.append(next(g for g in match.groups() if g))
    return voices


def same_voice(claim: str, principal: str) -> bool:
    """Whether a claimed label names the authenticated principal (equal, or a shared name)."""
    if claim == principal:
        return True
    return bool(source_names(claim, None) & source_names(principal, None))


def impersonation(event: Event, relays: tuple[str, ...] = ()) -> str | None:
    """Why this write impersonates someone (a claimed voice that is not its principal), or None.

    ``relays``: source prefixes that are the application's own integration (``"langchain:"``…,
    ``TrustPolicy.principal_sources``): a label the adapter's code chose is not a voice anyone
    typed, so it claims nothing; a name in the text or metadata still does."""
    if event.principal is None:
        return None
    for claim in claimed_voices(event):
        if claim == event.source and relays and claim.startswith(relays):
            continue
        if not same_voice(claim, event.principal):
            return f"claims the voice {claim!r}, not its authenticated principal"
    return None
