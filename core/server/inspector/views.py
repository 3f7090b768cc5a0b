"""The inspector's HTML, rendered on the server from ``data.py``'s panels (everything escaped).

The page works without JavaScript except the as-of slider, which asks ``/api/facts`` for the
facts valid at the chosen time (``static/inspector.js``, shipped in the package).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from html import escape
from typing import Any
from urllib.parse import quote

from deltacore.server.inspector import charts


def _e(value: Any) -> str:
    return escape("" if value is None else str(value))


def _time(moment: datetime | None) -> str:
    return f"{moment:%Y-%m-%d %H:%M}" if moment else "—"


def _bytes(size: int | None) -> str:
    if size is None:
        return "—"
    for unit in ("B", "kB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024  # type: ignore[assignment]
    return str(size)


def _table(
    headers: Sequence[str],
    rows: Iterable[Sequence[str]],
    *,
    body_id: str = "",
    empty: str = "nothing here",
) -> str:
    """A table whose cells are already-escaped HTML."""
    body = "".join(
        "<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows
    )
    if not body:
        body = f'<tr><td colspan="{len(headers)}" class="muted">{_e(empty)}</td></tr>'
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    return f"<table><thead><tr>{head}</tr></thead><tbody{f' id={body_id!r}' if body_id else ''}>{body}</tbody></table>"


def _card(label: str, value: str, note: str = "", *, css: str = "") -> str:
    return f'<div class="card {css}"><div class="card-value">{value}</div><div class="card-label">{_e(label)}</div><div class="card-note">{_e(note)}</div></div>'


def _button(
    action: str, token: str, name: str, value: str, label: str, css: str
) -> str:
    return (
        f'<form method="post" action="{_e(action)}" class="inline"><input type="hidden" name="token" value="{_e(token)}">'
        f'<button type="submit" name="{_e(name)}" value="{_e(value)}" class="{css}">{_e(label)}</button></form>'
    )


def economy_panel(
    eco: dict[str, Any], days: list[tuple[str, int, int]], search: dict[str, Any] | None
) -> str:
    latency = eco.get("query_latency") or {}
    improvement = eco.get("improvement_rate")
    cards = [
        _card(
            "memories",
            f"{eco.get('memories', 0):,}",
            f"{eco.get('deltas', 0):,} deltas",
        ),
        _card(
            "on disk",
            _bytes(eco.get("bytes_on_disk")),
            f"{_bytes(eco.get('memory_bytes'))} of memories"
            if eco.get("memory_bytes")
            else "",
        ),
        _card(
            "quarantined",
            str(eco.get("quarantined", 0)),
            "waiting for a reviewer",
            css="warn" if eco.get("quarantined") else "",
        ),
        _card(
            "open reviews",
            str(eco.get("open_reviews", 0)),
            "review queue",
            css="warn" if eco.get("open_reviews") else "",
        ),
        _card(
            "open conflicts", str(eco.get("open_conflicts", 0)), "contradictions (E03)"
        ),
    ]
    if eco.get("available"):
        cards += [
            _card(
                "poisoning attempts",
                str(eco.get("poisoning_attempts_24h", 0)),
                "last 24 h",
                css="alert" if eco.get("poisoning_attempts_24h") else "",
            ),
            _card("schema drifts", str(eco.get("schema_drifts_24h", 0)), "last 24 h"),
            _card(
                "query p95",
                f"{latency['p95_ms']:.1f} ms"
                if latency.get("p95_ms") is not None
                else "—",
                f"{latency.get('count', 0)} queries in this process",
            ),
            _card(
                "improvement",
                f"{improvement:+.3f}" if improvement is not None else "—",
                "reward trend per episode, 7 days",
            ),
            _card(
                "degradation level",
                str(eco.get("degradation_level", 0)),
                "0 = full operation",
                css="alert" if eco.get("degradation_level") else "",
            ),
        ]
    namespaces = sorted(
        (eco.get("memories_by_namespace") or {}).items(), key=lambda kv: -kv[1]
    )
    routers = sorted((eco.get("router_latency") or {}).items())
    groups = [
        (name, [s.get("p50_ms"), s.get("p95_ms"), s.get("p99_ms")])
        for name, s in routers
    ]
    if latency.get("count"):
        groups.insert(
            0,
            (
                "query",
                [latency.get("p50_ms"), latency.get("p95_ms"), latency.get("p99_ms")],
            ),
        )
    parts = [
        '<section id="economy"><h2>Memory economy</h2>',
        f'<p class="muted">tenant <b>{_e(eco.get("tenant"))}</b> · {_e(eco.get("backend"))}'
        + (
            ""
            if eco.get("available")
            else " · this engine has no <code>monitor()</code>: counts only"
        )
        + "</p>",
        f'<div class="cards">{"".join(cards)}</div><div class="grid">',
        f"<figure><figcaption>Memories written per day, with security events</figcaption>{charts.daily_columns('activity', days)}</figure>",
    ]
    if eco.get("available"):
        parts.append(
            f"<figure><figcaption>Memories by namespace</figcaption>{charts.bar_chart('namespaces', namespaces)}</figure>"
        )
        parts.append(
            "<figure><figcaption>Query latency over the rolling window (this process), ms</figcaption>"
            f"{charts.grouped_bars('latency', groups, ('p50', 'p95', 'p99'), unit=' ms')}</figure>"
        )
        by_part = sorted(
            (eco.get("bytes_by_part") or {}).items(), key=lambda kv: -kv[1]
        )[:8]
        parts.append(
            "<figure><figcaption>Bytes on disk by part (kB)</figcaption>"
            f"{charts.bar_chart('bytes', [(k, v / 1024) for k, v in by_part], unit=' kB', css='bar2')}</figure>"
        )
    parts.append("</div>")
    parts.append(search_form(search))
    parts.append("</section>")
    return "".join(parts)


def search_form(search: dict[str, Any] | None) -> str:
    text = search["text"] if search else ""
    form = (
        '<form method="get" action="/#economy" class="search"><label>Try a query '
        f'<input type="search" name="q" value="{_e(text)}" placeholder="what broke the deploy?"></label>'
        '<button type="submit">Search</button></form>'
    )
    if not search:
        return form
    if search.get("error"):
        return form + f'<p class="error">{_e(search["error"])}</p>'
    rows = [
        (
            f"{p.score:.3f}",
            _e(p.text),
            _e(p.kind.value),
            ", ".join(sorted(f.value for f in p.flags)),
        )
        for p in search["packets"]
    ]
    return form + _table(
        ("score", "memory", "kind", "flags"), rows, empty="no memory matches"
    )


def episode_panel(
    episodes: list[tuple[str, int, datetime]], chain: dict[str, Any] | None
) -> str:
    links = "".join(
        f'<li><a href="/?episode={quote(episode)}#episode"{" class=current" if chain and chain["episode_id"] == episode else ""}>'
        f"{_e(episode)}</a> <span class=muted>{steps} steps · {_time(last)}</span></li>"
        for episode, steps, last in episodes
    )
    parts = [
        '<section id="episode"><h2>Episode: causal chain and credit</h2><div class="grid">'
    ]
    parts.append(
        f'<div><h3>Latest episodes</h3><ul class="episodes">{links or "<li class=muted>no episodes in the last 14 days</li>"}</ul>'
    )
    parts.append(
        '<form method="get" action="/#episode"><input name="episode" placeholder="episode id"><button>Show</button></form></div>'
    )
    if chain is None:
        parts.append(
            '<p class="muted">Pick an episode to see its steps, their causal links and the credit each earned from the outcome.</p>'
        )
    else:
        steps = chain["steps"]
        parts.append(
            f"<figure><figcaption>Episode <b>{_e(chain['episode_id'])}</b>: each step tinted by its credit (green earned, red lost); curved arrows are causes other than the previous step</figcaption>{charts.causal_chain(steps)}</figure>"
        )
        rows = [
            (
                str(i),
                _e(s["kind"]),
                _e(s["action"]),
                _e(s["text"][:120]),
                f"{s['credit']:+.3f}",
                f"{s['utility']:.3f}",
                _e(", ".join(s["flags"])),
            )
            for i, s in enumerate(steps)
        ]
        parts.append(
            "</div>"
            + _table(
                ("step", "kind", "action", "text", "credit", "utility", "flags"),
                rows,
                body_id="chain-body",
            )
        )
        if chain["retrieved"]:
            retrieved = [
                (str(r.get("rank")), _e(r.get("event_id")), _e(r.get("query")))
                for r in chain["retrieved"]
            ]
            parts.append(
                "<h3>Memories handed to the agent in this episode</h3>"
                + _table(("rank", "memory", "query"), retrieved)
            )
        parts.append("</section>")
        return "".join(parts)
    parts.append("</div></section>")
    return "".join(parts)


def trust_panel(
    held: list[dict[str, Any]],
    log: list[Any],
    reviews: list[Any],
    *,
    allow_review: bool,
    token: str,
) -> str:
    def verdicts(event_id: str) -> str:
        if not allow_review:
            return ""
        action = f"/quarantine/{quote(event_id)}"
        return _button(
            action, token, "verdict", "release", "Release", "approve"
        ) + _button(action, token, "verdict", "confirm", "Confirm poison", "reject")

    quarantine_rows = [
        (
            _time(q["ts"]),
            _e(q["source"] or "—"),
            _e(q["text"][:140]),
            "<br>".join(_e(r) for r in q["reasons"]) or "—",
            f"{q['score']:.2f}" if q["score"] is not None else "—",
            verdicts(q["id"]),
        )
        for q in held
    ]
    log_rows = [
        (
            _time(s.ts),
            f'<span class="kind">{_e(s.kind)}</span>',
            _e(s.action or "—"),
            f"{s.score:.2f}" if s.score is not None else "—",
            _e(s.source or "—"),
            _e("; ".join(s.reasons)),
        )
        for s in log
    ]

    def review_buttons(item: Any) -> str:
        if not allow_review:
            return ""
        action = f"/review/{item.id}"
        return _button(
            action, token, "resolution", "accept", "Approve", "approve"
        ) + _button(action, token, "resolution", "reject", "Reject", "reject")

    review_rows = [
        (
            str(r.id),
            f'<span class="kind">{_e(r.kind)}</span>',
            _e(r.reason),
            _time(r.created),
            review_buttons(r),
        )
        for r in reviews
    ]
    mode = (
        ""
        if allow_review
        else '<p class="muted">Read-only: start with <code>--allow-review</code> to approve or reject.</p>'
    )
    return (
        f'<section id="trust"><h2>Trust: quarantine, security events, review queue</h2>{mode}'
        f"<h3>Quarantine ({len(held)})</h3>{_table(('when', 'source', 'memory', 'why', 'score', ''), quarantine_rows, body_id='quarantine-body', empty='nothing in quarantine')}"
        f"<h3>Review queue ({len(reviews)})</h3>{_table(('id', 'kind', 'reason', 'queued', ''), review_rows, body_id='review-body', empty='no items waiting')}"
        f"<h3>Security events (last 7 days, newest first)</h3>{_table(('when', 'kind', 'action', 'score', 'source', 'reasons'), log_rows, empty='no security events')}"
        "</section>"
    )


def fact_rows(facts: Iterable[Any]) -> list[tuple[str, ...]]:
    return [
        (
            _e(f.subject_name),
            _e(f.attribute),
            f"<b>{_e(f.value)}</b>",
            f'<span class="status {_e(f.status.value)}">{_e(f.status.value)}</span>',
            _time(f.valid_from),
            _time(f.valid_until),
            f"{f.weight:.2f}",
        )
        for f in facts
    ]


def beliefs_panel(beliefs: dict[str, Any], at: datetime | None) -> str:
    start, end = beliefs["start"], beliefs["end"]
    value = (at or end).timestamp()
    slider = (
        f'<label class="asof">As of <output id="asof-label">{_time(at) if at else "now"}</output>'
        f'<input type="range" id="asof" min="{start.timestamp():.0f}" max="{end.timestamp():.0f}" step="3600" value="{value:.0f}"></label>'
    )
    conflict_rows = [
        (
            _e(c.subject),
            _e(c.attribute),
            f"{_e(c.old_value)} <span class=muted>({c.old_belief:.2f})</span>",
            f"{_e(c.new_value)} <span class=muted>({c.new_belief:.2f})</span>",
            _time(c.created_at),
        )
        for c in beliefs["conflicts"]
    ]
    timeline = (
        charts.fact_timeline(beliefs["timeline"], start, end)
        if beliefs["timeline"]
        else '<p class="muted">no facts yet</p>'
    )
    return (
        '<section id="facts"><h2>Facts in time</h2>'
        f"<figure><figcaption>Each slot's values over their valid time (orange: contested, in lanes; grey: superseded; the red line is the as-of time)</figcaption>{timeline}</figure>{slider}"
        f"{_table(('subject', 'attribute', 'value', 'status', 'valid from', 'valid until', 'weight'), fact_rows(beliefs['facts']), body_id='facts-body', empty='no facts valid then')}"
        f"<h3>Open conflicts ({len(conflict_rows)})</h3>{_table(('subject', 'attribute', 'old value (belief)', 'new value (belief)', 'since'), conflict_rows, empty='no open conflicts')}"
        "</section>"
    )


def erasure_panel(erasures: dict[str, Any]) -> str:
    """Forget requests and their certificates' figures, as the store records them."""
    if not erasures["available"]:
        return '<section id="erasures"><h2>Erasures</h2><p class="muted">this engine has no <code>monitor()</code></p></section>'
    rows = [
        (
            f"<code>{_e(r['request_id'])}</code>",
            _time(r.get("created_at")),
            _time(r.get("completed_at")),
            _e(r["mode"]),
            f'<span class="status {_e(r["state"])}">{_e(r["state"])}</span>',
            _e(", ".join(f"{k}={v}" for k, v in r["counts"].items() if v) or "—"),
            f"<code>{_e(r['audit_hash'][:16])}</code>" if r.get("audit_hash") else "—",
        )
        for r in erasures["records"]
    ]
    unfinished = (erasures["erasures_pending"] or 0) + (
        erasures["erasures_running"] or 0
    )
    cards = [
        _card(
            "erasures",
            str(erasures["erasures_total"] or 0),
            f"{erasures['erasures_24h'] or 0} in the last 24 h",
        ),
        _card("last erasure", _time(erasures["last_erasure_at"]), "completed"),
        _card(
            "matched nothing",
            str(erasures["erasures_nothing_found"] or 0),
            "finished requests",
        ),
        _card(
            "unfinished",
            str(unfinished),
            "pending or interrupted: resumed on the next open",
            css="warn" if unfinished else "",
        ),
    ]
    return (
        '<section id="erasures"><h2>Erasures: forget requests and their certificates</h2>'
        '<p class="muted">What the store records of each request: ids, mode, rows erased per artifact class, '
        "the certificate's audit hash. The subject's text is not kept; a <code>verified</code> request's audit "
        "verdict is in its certificate only.</p>"
        f'<div class="cards">{"".join(cards)}</div>'
        + _table(
            (
                "request",
                "requested",
                "finished",
                "mode",
                "state",
                "erased",
                "audit hash",
            ),
            rows,
            body_id="erasures-body",
            empty="no forget requests",
        )
        + "</section>"
    )


def page(title: str, sections: Sequence[str], *, allow_review: bool) -> str:
    mode = (
        '<span class="badge review">review enabled</span>'
        if allow_review
        else '<span class="badge">read-only</span>'
    )
    nav = "".join(
        f'<a href="#{anchor}">{label}</a>'
        for anchor, label in (
            ("economy", "Economy"),
            ("episode", "Episode"),
            ("trust", "Trust"),
            ("facts", "Facts"),
            ("erasures", "Erasures"),
        )
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{_e(title)}</title><link rel="stylesheet" href="/static/inspector.css"></head><body>'
        f'<header><h1>DeltaCore inspector</h1><span class="muted">{_e(title)}</span>{mode}<nav>{nav}</nav></header><main>'
        + "".join(sections)
        + '</main><script src="/static/inspector.js"></script></body></html>'
    )
