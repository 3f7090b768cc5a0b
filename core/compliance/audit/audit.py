"""``audit_erasure``: is anything of a subject left in a store?

Three independent checks (issue 16, "Audit"), each run for the subject and for retained
controls, because an audit that cannot see a retained subject proves nothing about an erased one:

(a) probes through every router of the read path (the identifiers, the probe questions of the
    membership test, and the questions the erased memories used to answer);
(b) a byte scan of every file under the embedded store folder (strings in every encoding of
    ``needles.py``, vectors exactly and as near-duplicates), plus SQL scans of every text column
    and, on PostgreSQL, ``pg_dump``;
(c) the membership-inference test (``membership.py``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from deltacore.compliance.audit.needles import Needle, string_needles, token_counts, vector_needles, whole_tokens
from deltacore.compliance.audit.result import (
    AuditResult,
    AuditVerdict,
    ByteFinding,
    Control,
    FileClass,
    NotChecked,
    ScannedFile,
    SQLFinding,
    VectorFinding,
)
from deltacore.compliance.audit.scanner import scan_bytes, scan_file, store_files
from deltacore.compliance.audit.sql_scan import pg_dump, scan_columns
from deltacore.compliance.audit.probing import ProbeOutcome, run_probes
from deltacore.compliance.audit.target import AuditTarget
from deltacore.errors import InvalidQueryError
from deltacore.gateway.normalization import fold


def audit_erasure(
    memory: AuditTarget,
    identifiers: Sequence[str],
    *,
    vectors: Sequence[Sequence[float]] | np.ndarray = (),
    controls: Sequence[str] = (),
    control_vectors: Sequence[Sequence[float]] | np.ndarray = (),
    questions: Sequence[str] = (),
    baseline: Sequence[str] = (),
    erased_event_ids: Sequence[str] = (),
    top_k: int = 10,
    alpha: float = 0.05,
    probes: bool = True,
    scan_files: bool = True,
    scan_sql: bool = True,
    extra_folders: Sequence[Path | str] = (),
    seed: int = 0,
) -> AuditResult:
    """Audit that ``identifiers`` (a subject's names, e-mail, phone…) are gone from ``memory``.

    ``vectors`` are the subject's embeddings if the caller kept them (searched exactly and as
    near-duplicates). ``controls`` are identifiers of retained subjects that must still be found
    (``control_vectors`` likewise); without them the verdict can be at best ``INCONCLUSIVE``.
    ``questions`` are what the erased memories used to answer; ``baseline`` names never stored
    (default: random names); ``erased_event_ids`` must never come back from a probe.
    ``extra_folders`` are scanned like the store folder (a Chroma server's ``--path`` on this
    machine, an export folder).

    >>> from deltacore.compliance.audit import AuditVerdict
    >>> AuditVerdict.ERASURE_VERIFIED.value
    'ERASURE_VERIFIED'
    """
    started = time.perf_counter()
    identifiers = _clean(identifiers, "identifiers")
    controls = _clean(controls, "controls", allow_empty=True)
    if not identifiers:
        raise InvalidQueryError(
            "identifiers",
            "give at least one identifier of the subject (a name, an e-mail…)",
        )
    overlap = {fold(i) for i in identifiers} & {fold(c) for c in controls}
    if overlap:
        raise InvalidQueryError(
            "controls",
            "a control must be a retained subject, not one of the identifiers",
        )
    subject_vectors = _matrix(vectors, "vectors")
    retained_vectors = _matrix(control_vectors, "control_vectors")
    not_checked: list[NotChecked] = []
    n = len(identifiers)

    # (a) probes, and (c) the membership test on the answers of the full read path.
    outcome = ProbeOutcome(control_hits=[0] * len(controls))
    if probes:
        outcome = run_probes(
            memory,
            identifiers,
            controls,
            questions=questions,
            baseline=_clean(baseline, "baseline", allow_empty=True),
            erased_event_ids=erased_event_ids,
            top_k=top_k,
            alpha=alpha,
            seed=seed,
        )
    else:
        not_checked.append(NotChecked(what="router probes and the membership test", why="probes=False"))
    control_probe_hits = outcome.control_hits
    membership_result, control_membership = outcome.membership, outcome.control_membership

    # (b) the byte scan of every store file, then what SQL can see.
    files: list[ScannedFile] = []
    byte_findings: list[ByteFinding] = []
    vector_findings: list[VectorFinding] = []
    control_byte_hits = [0] * len(controls)
    needles, skipped = string_needles([*identifiers, *controls])
    tokens = token_counts([*identifiers, *controls])
    encodings = tuple(sorted({needle.encoding.split("+")[0] for needle in needles}))
    for item in skipped:
        not_checked.append(NotChecked(what=item, why="pattern too short to be told from chance in binary data"))
    all_vectors = (
        np.vstack([m for m in (subject_vectors, retained_vectors) if m is not None])
        if (subject_vectors is not None or retained_vectors is not None)
        else None
    )
    exact = _vector_patterns(all_vectors)
    n_subject_vectors = len(subject_vectors) if subject_vectors is not None else 0
    n_control_vectors = len(retained_vectors) if retained_vectors is not None else 0
    control_vectors_seen: set[int] = set()
    folders = [Path(f) for f in ([memory.folder] if memory.folder is not None else []) + list(extra_folders)]
    if scan_files and folders:
        for folder in folders:
            for path, relative in store_files(folder):
                label = relative if len(folders) == 1 else Path(folder.name) / relative
                scan = scan_file(path, label, needles, exact, all_vectors)
                files.append(scan.file)
                _split(whole_tokens(scan.bytes_found, tokens), n, byte_findings, control_byte_hits)
                for finding in scan.vectors_found:
                    if finding.vector < n_subject_vectors:
                        vector_findings.append(finding)
                    else:
                        control_vectors_seen.add(finding.vector - n_subject_vectors)
        unused = sum(f.unused_bytes for f in files)
        if unused:
            not_checked.append(
                NotChecked(
                    what=f"text in {unused:,} bytes of HNSW capacity",
                    why="Chroma writes an HNSW segment at its whole capacity; the slots past its element count "
                    "hold the writing process's uninitialised heap, not the store's data (searched for vectors only)",
                )
            )
    elif not scan_files:
        not_checked.append(NotChecked(what="store files", why="scan_files=False"))
    else:
        not_checked.append(
            NotChecked(
                what="store files",
                why="the store keeps no local folder (PostgreSQL and a Chroma server): give extra_folders= "
                "to scan a server's data folder on this machine",
            )
        )
    if all_vectors is None:
        not_checked.append(
            NotChecked(
                what="vectors",
                why="no vectors given: the subject's embeddings are searched only when the caller kept them",
            )
        )

    sql_findings: list[SQLFinding] = []
    control_sql_hits = [0] * len(controls)
    postgres = memory.sql_url.startswith("postgresql")
    if scan_sql:
        found, _columns = scan_columns(memory.sql_url, [*identifiers, *controls])
        for finding in found:
            if finding.identifier < n:
                sql_findings.append(finding)
            else:
                control_sql_hits[finding.identifier - n] += finding.rows
    if postgres:
        dump, why = pg_dump(memory.sql_url)
        if dump is None:
            not_checked.append(NotChecked(what="pg_dump of the database", why=why))
        else:
            scan = scan_bytes(dump, "pg_dump", FileClass.PG_DUMP, needles)
            files.append(scan.file)
            _split(whole_tokens(scan.bytes_found, tokens), n, byte_findings, control_byte_hits)
        not_checked.append(
            NotChecked(
                what="PostgreSQL relation files, WAL, replicas and backups",
                why="a database client sees live rows and the dump; dead tuples in heap, TOAST and index "
                "files until VACUUM, and the WAL and backups, are on the server's disk",
            )
        )

    controls_result = tuple(
        Control(
            control=index,
            probe_hits=control_probe_hits[index],
            byte_hits=control_byte_hits[index],
            sql_hits=control_sql_hits[index],
            seen=bool(control_probe_hits[index] or control_byte_hits[index] or control_sql_hits[index]),
        )
        for index in range(len(controls))
    )
    if not controls:
        not_checked.append(
            NotChecked(
                what="retained-subject control",
                why="no controls given: nothing shows the audit could see a subject",
            )
        )
    found_something = bool(
        outcome.findings
        or byte_findings
        or vector_findings
        or sql_findings
        or (membership_result and membership_result.detected)
    )
    blind = (
        not controls
        or not all(c.seen for c in controls_result)
        or (control_membership is not None and not control_membership.detected)
        or (scan_files and folders and len(control_vectors_seen) < n_control_vectors)
    )
    verdict = (
        AuditVerdict.ERASURE_INCOMPLETE
        if found_something
        else AuditVerdict.INCONCLUSIVE
        if blind
        else AuditVerdict.ERASURE_VERIFIED
    )
    return AuditResult(
        verdict=verdict,
        identifiers=n,
        probe_count=outcome.probe_count,
        routers=tuple(outcome.routers),
        probe_findings=tuple(outcome.findings),
        files=tuple(files),
        byte_findings=tuple(byte_findings),
        vector_findings=tuple(vector_findings),
        sql_findings=tuple(sql_findings),
        membership=membership_result,
        control_membership=control_membership,
        controls=controls_result,
        control_vectors=n_control_vectors,
        control_vectors_seen=len(control_vectors_seen),
        not_checked=tuple(not_checked),
        encodings=encodings,
        seconds=round(time.perf_counter() - started, 3),
    )


def _clean(values: Sequence[str], field: str, allow_empty: bool = False) -> list[str]:
    if isinstance(values, str):
        raise InvalidQueryError(field, "give a list of strings, not one string")
    cleaned = []
    for position, value in enumerate(values):
        if not isinstance(value, str) or not value.strip():
            raise InvalidQueryError(f"{field}[{position}]", f"must be a non-empty string, got {value!r}")
        cleaned.append(value.strip())
    return list(dict.fromkeys(cleaned))


def _matrix(vectors: Sequence[Sequence[float]] | np.ndarray, field: str) -> np.ndarray | None:
    if vectors is None or len(vectors) == 0:
        return None
    try:
        matrix = np.asarray(vectors, dtype=np.float32)
    except ValueError as exc:
        raise InvalidQueryError(field, "vectors must all have the same dimension") from exc
    if matrix.ndim != 2 or not np.isfinite(matrix).all():
        raise InvalidQueryError(field, "give a list of finite vectors of one dimension")
    return matrix


def _vector_patterns(matrix: np.ndarray | None) -> list[Needle]:
    if matrix is None:
        return []
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    # An index in cosine space stores each vector normalised: search both byte forms.
    patterns = vector_needles(matrix)
    patterns += [Needle(n.index, n.encoding + "-normalised", n.pattern) for n in vector_needles(matrix / norms)]
    seen: set[bytes] = set()
    return [n for n in patterns if not (n.pattern in seen or seen.add(n.pattern))]  # type: ignore[func-returns-value]


def _split(
    found: Sequence[ByteFinding],
    n: int,
    subject: list[ByteFinding],
    control_hits: list[int],
) -> None:
    for finding in found:
        if finding.identifier < n:
            subject.append(finding)
        else:
            control_hits[finding.identifier - n] += finding.count
