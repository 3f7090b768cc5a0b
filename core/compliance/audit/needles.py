"""The byte patterns a subject's identifier can take on disk.

A store writes text as UTF-8 (SQLite, PostgreSQL, Chroma's SQLite), sometimes inside JSON with
non-ASCII characters escaped (``\\u00e9``), as UTF-16 when a tool or a driver chose it, as base64
when a blob passed through JSON, and case-folded in full-text indexes (FTS5 keeps each token
lower-cased, one term at a time). Each identifier is searched in all of these forms.
"""

from __future__ import annotations

import base64
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from deltacore.gateway.normalization import fold

MIN_PATTERN_BYTES = 5
"""Shorter patterns match by chance in a few megabytes of binary data."""
MIN_TOKEN_CHARS = 6
"""Single words of a multi-word identifier are searched when at least this long (FTS5 stores
terms one by one): shorter words are too common to mean the subject."""
_WORDS = re.compile(r"\w+", re.UNICODE)
_NAME_LIKE = re.compile(r"[^\W\d_]+(?:[\s'’.-]+[^\W\d_]+)+")
"""Words of letters joined by spaces, hyphens, apostrophes or dots: a personal name."""


@dataclass(frozen=True)
class Needle:
    """One byte pattern of one identifier (or vector)."""

    index: int
    """Position of the identifier (or vector) in what the caller passed."""
    encoding: str
    pattern: bytes


def text_variants(identifier: str) -> dict[str, str]:
    """The written forms of an identifier: as given, case-folded, the gateway's folding, and (for
    several words) each long word case-folded."""
    variants = {"": identifier}
    for label, variant in (
        ("+casefold", identifier.casefold()),
        ("+lower", identifier.lower()),
        ("+nfkc", unicodedata.normalize("NFKC", identifier)),
        ("+fold", fold(identifier)),
    ):
        if variant not in variants.values():
            variants[label] = variant
    words = _WORDS.findall(identifier.casefold())
    # Only a name's words: an e-mail's or a phone's parts ("example", "mail", "org") are shared
    # by many people and would report every one of them.
    if len(words) > 1 and _NAME_LIKE.fullmatch(identifier):
        for word in dict.fromkeys(words):
            if len(word) >= MIN_TOKEN_CHARS and word not in variants.values():
                variants[f"+token{len(variants)}"] = word
    return variants


def whole_tokens(findings: list, token_counts: dict[int, int]) -> list:  # type: ignore[type-arg]
    """Drop the single-word findings of an identifier unless every one of its words was found in
    the file: one first name in a file is anybody's, all of a name's words are the subject's."""
    found: dict[int, set[str]] = {}
    for finding in findings:
        if "+token" in finding.encoding:
            found.setdefault(finding.identifier, set()).add(finding.encoding.split("+token")[1])
    return [
        f
        for f in findings
        if "+token" not in f.encoding or len(found.get(f.identifier, ())) >= token_counts.get(f.identifier, 0)
    ]


def token_counts(identifiers: Sequence[str]) -> dict[int, int]:
    """How many single-word variants each identifier has."""
    return {
        index: sum(label.startswith("+token") for label in text_variants(identifier))
        for index, identifier in enumerate(identifiers)
    }


def base64_fragments(data: bytes) -> list[bytes]:
    """The base64 text of ``data`` at each of the 3 byte alignments it can start at inside a
    larger blob: only the characters that do not depend on the neighbouring bytes."""
    fragments = []
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + data)
        # Groups of 3 input bytes map to 4 characters; keep the groups made only of ``data``.
        first_group = -(-shift // 3)
        last_group = (shift + len(data)) // 3
        fragment = encoded[first_group * 4 : last_group * 4]
        fragments.append(fragment)
    return fragments


def string_needles(identifiers: Sequence[str]) -> tuple[list[Needle], list[str]]:
    """Every pattern of every identifier, and the (encoding, identifier) pairs left out because
    their pattern would be too short to mean anything."""
    needles: list[Needle] = []
    skipped: list[str] = []
    for index, identifier in enumerate(identifiers):
        seen: set[bytes] = set()

        def add(encoding: str, pattern: bytes, index: int = index, seen: set[bytes] = seen) -> None:
            if len(pattern) < MIN_PATTERN_BYTES:
                skipped.append(f"identifier {index} as {encoding} ({len(pattern)} bytes)")
            elif pattern not in seen:
                seen.add(pattern)
                needles.append(Needle(index, encoding, pattern))

        for label, text in text_variants(identifier).items():
            utf8 = text.encode("utf-8")
            add("utf-8" + label, utf8)
            add("utf-16-le" + label, text.encode("utf-16-le"))
            add("utf-16-be" + label, text.encode("utf-16-be"))
            escaped = json.dumps(text, ensure_ascii=True)[1:-1].encode("ascii")
            if escaped != utf8:
                add("json-escaped" + label, escaped)
            if not label.startswith("+token"):
                for shift, fragment in enumerate(base64_fragments(utf8)):
                    add(f"base64-{shift}" + label, fragment)
    return needles, skipped


def vector_needles(vectors: Sequence[Sequence[float]] | np.ndarray) -> list[Needle]:
    """The exact little-endian float32 and float16 bytes of each vector."""
    needles = []
    for index, vector in enumerate(np.asarray(vectors, dtype=np.float64).reshape(len(vectors), -1)):
        needles.append(Needle(index, "float32", vector.astype("<f4").tobytes()))
        needles.append(Needle(index, "float16", vector.astype("<f2").tobytes()))
    return needles
