"""Charts drawn on the server as inline SVG: no JavaScript library, nothing fetched.

Each function takes plain numbers and returns an ``<svg>`` string sized by its ``viewBox`` (the
stylesheet scales it to the column). Text is escaped; colours come from CSS classes so the page
keeps one palette.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from html import escape

WIDTH = 560
BAR = 22


def _number(value: float) -> str:
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 100 or float(value).is_integer():
        return f"{value:.0f}"
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def bar_chart(
    title: str, bars: Sequence[tuple[str, float]], *, unit: str = "", css: str = "bar"
) -> str:
    """Horizontal bars, one per (label, value), longest = widest; empty data says so."""
    if not bars:
        return f'<svg class="chart" role="img" aria-label="{escape(title)}" viewBox="0 0 {WIDTH} 40"><text x="8" y="24" class="muted">no data yet</text></svg>'
    top = max(value for _, value in bars) or 1.0
    label_w, left = 150, 158
    span = WIDTH - left - 70
    height = len(bars) * (BAR + 8) + 8
    parts = [
        f'<svg class="chart" role="img" aria-label="{escape(title)}" viewBox="0 0 {WIDTH} {height}">'
    ]
    for i, (label, value) in enumerate(bars):
        y = 8 + i * (BAR + 8)
        w = max(1.0, span * value / top) if value > 0 else 0
        parts.append(
            f'<text x="{label_w}" y="{y + 16}" text-anchor="end" class="label">{escape(label)}</text>'
        )
        parts.append(
            f'<rect x="{left}" y="{y}" width="{w:.1f}" height="{BAR}" rx="3" class="{css}"><title>{escape(label)}: {_number(value)}{unit}</title></rect>'
        )
        parts.append(
            f'<text x="{left + w + 6:.1f}" y="{y + 16}" class="value">{_number(value)}{escape(unit)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def grouped_bars(
    title: str,
    groups: Sequence[tuple[str, Sequence[float | None]]],
    series: Sequence[str],
    *,
    unit: str = "",
) -> str:
    """Vertical bar groups (e.g. p50 / p95 / p99 per router); a missing value draws nothing."""
    values = [v for _, vs in groups for v in vs if v is not None]
    if not values:
        return f'<svg class="chart" role="img" aria-label="{escape(title)}" viewBox="0 0 {WIDTH} 40"><text x="8" y="24" class="muted">no queries measured yet</text></svg>'
    top = max(values) or 1.0
    height, base, left = 220, 180, 40
    slot = (WIDTH - left - 10) / len(groups)
    bar_w = min(26.0, (slot - 12) / len(series))
    parts = [
        f'<svg class="chart" role="img" aria-label="{escape(title)}" viewBox="0 0 {WIDTH} {height}">'
    ]
    parts.append(
        f'<line x1="{left}" y1="{base}" x2="{WIDTH - 10}" y2="{base}" class="axis"/>'
    )
    parts.append(
        f'<text x="{left + 2}" y="12" class="value">max {_number(top)}{escape(unit)}</text>'
    )
    for g, (label, vs) in enumerate(groups):
        x0 = left + g * slot + 6
        for s, value in enumerate(vs):
            if value is None:
                continue
            h = max(1.0, (base - 20) * value / top)
            x = x0 + s * bar_w
            parts.append(
                f'<rect x="{x:.1f}" y="{base - h:.1f}" width="{bar_w - 2:.1f}" height="{h:.1f}" class="series{s}">'
                f"<title>{escape(label)} {escape(series[s])}: {_number(value)}{escape(unit)}</title></rect>"
            )
        parts.append(
            f'<text x="{x0 + len(series) * bar_w / 2:.1f}" y="{base + 16}" text-anchor="middle" class="label">{escape(label)}</text>'
        )
    for s, name in enumerate(series):
        parts.append(
            f'<rect x="{left + s * 70}" y="{height - 16}" width="10" height="10" class="series{s}"/>'
        )
        parts.append(
            f'<text x="{left + s * 70 + 14}" y="{height - 7}" class="label">{escape(name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def daily_columns(title: str, days: Sequence[tuple[str, int, int]]) -> str:
    """Columns per day: memories written, and (red, on top) security events that day."""
    height, base, left = 180, 146, 30
    top = max([written + flagged for _, written, flagged in days] + [1])
    slot = (WIDTH - left - 10) / max(1, len(days))
    parts = [
        f'<svg class="chart" role="img" aria-label="{escape(title)}" viewBox="0 0 {WIDTH} {height}">'
    ]
    parts.append(
        f'<line x1="{left}" y1="{base}" x2="{WIDTH - 10}" y2="{base}" class="axis"/>'
    )
    parts.append(
        f'<text x="{left - 4}" y="14" text-anchor="end" class="value">{top}</text>'
    )
    for i, (day, written, flagged) in enumerate(days):
        x = left + i * slot + 2
        h_w = (base - 16) * written / top
        h_f = (base - 16) * flagged / top
        parts.append(
            f'<rect x="{x:.1f}" y="{base - h_w:.1f}" width="{slot - 4:.1f}" height="{h_w:.1f}" class="bar"><title>{day}: {written} written</title></rect>'
        )
        if flagged:
            parts.append(
                f'<rect x="{x:.1f}" y="{base - h_w - h_f:.1f}" width="{slot - 4:.1f}" height="{h_f:.1f}" class="alert">'
                f"<title>{day}: {flagged} security events</title></rect>"
            )
        if i % max(1, len(days) // 7) == 0:
            parts.append(
                f'<text x="{x + slot / 2:.1f}" y="{base + 14}" text-anchor="middle" class="label">{day[5:]}</text>'
            )
    parts.append(
        f'<rect x="{left}" y="{height - 14}" width="10" height="10" class="bar"/><text x="{left + 14}" y="{height - 5}" class="label">memories written</text>'
    )
    parts.append(
        f'<rect x="{left + 140}" y="{height - 14}" width="10" height="10" class="alert"/><text x="{left + 154}" y="{height - 5}" class="label">security events</text>'
    )
    parts.append("</svg>")
    return "".join(parts)


def causal_chain(steps: Sequence[dict[str, object]]) -> str:
    """An episode's steps top to bottom, each a box tinted by its credit, with the causal edges
    (a straight arrow to the step before, a curved one to an earlier cause)."""
    if not steps:
        return '<svg class="chart" viewBox="0 0 560 40"><text x="8" y="24" class="muted">no steps</text></svg>'
    row, box_w, x0 = 52, 330, 150
    height = len(steps) * row + 10
    index = {str(step["delta_id"]): i for i, step in enumerate(steps)}
    top = max(abs(float(step["credit"])) for step in steps) or 1.0  # type: ignore[arg-type]
    parts = [
        f'<svg class="chart chain" role="img" aria-label="causal chain" viewBox="0 0 {WIDTH} {height}">'
    ]
    parts.append(
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" class="edge-head"/></marker></defs>'
    )
    for i, step in enumerate(steps):
        for parent in step["parents"]:  # type: ignore[attr-defined]
            j = index.get(str(parent))
            if j is None:
                continue
            y_child, y_parent = 10 + i * row, 10 + j * row + 36
            if j == i - 1:
                parts.append(
                    f'<line x1="{x0 + 40}" y1="{y_parent}" x2="{x0 + 40}" y2="{y_child}" class="edge" marker-end="url(#arrow)"/>'
                )
            else:
                bend = x0 - 30 - 8 * (i - j)
                parts.append(
                    f'<path d="M{x0},{y_parent - 18} C{bend},{y_parent - 18} {bend},{y_child + 18} {x0},{y_child + 18}" '
                    f'class="edge data" marker-end="url(#arrow)"/>'
                )
    for i, step in enumerate(steps):
        y = 10 + i * row
        credit = float(step["credit"])  # type: ignore[arg-type]
        css = (
            "credit-pos"
            if credit > 0
            else "credit-neg"
            if credit < 0
            else "credit-zero"
        )
        strength = 0.25 + 0.75 * abs(credit) / top
        parts.append(
            f'<text x="{x0 - 8}" y="{y + 22}" text-anchor="end" class="label">step {i}</text>'
        )
        parts.append(
            f'<rect x="{x0}" y="{y}" width="{box_w}" height="36" rx="5" class="{css}" fill-opacity="{strength:.2f}">'
            f"<title>{escape(str(step['text']))}</title></rect>"
        )
        label = escape(str(step["action"]))[:48]
        parts.append(f'<text x="{x0 + 8}" y="{y + 22}" class="node">{label}</text>')
        parts.append(
            f'<text x="{x0 + box_w + 6}" y="{y + 22}" class="value">{credit:+.3f}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def fact_timeline(
    slots: Sequence[tuple[str, Sequence[dict[str, object]]]],
    start: datetime,
    end: datetime,
) -> str:
    """One row per slot (subject · attribute), one bar per value over its valid time; a contested
    values (a contested slot) share the row in lanes. ``data-start``/``data-end`` let the page's script
    place the as-of cursor."""
    row, left = 34, 200
    span = WIDTH - left - 10
    total = max((end - start).total_seconds(), 1.0)
    height = max(1, len(slots)) * row + 24

    def x_of(moment: datetime) -> float:
        return left + span * min(
            max((moment - start).total_seconds() / total, 0.0), 1.0
        )

    head = (
        f'<svg class="chart timeline" id="fact-timeline" role="img" aria-label="fact timeline" viewBox="0 0 {WIDTH} {height}" '
        f'data-start="{start.timestamp():.0f}" data-end="{end.timestamp():.0f}" data-left="{left}" data-span="{span}">'
    )
    parts = [head]
    for i, (slot, facts) in enumerate(slots):
        y = 6 + i * row
        parts.append(
            f'<text x="{left - 8}" y="{y + 17}" text-anchor="end" class="label">{escape(slot)[:30]}</text>'
        )
        lanes = _lanes(facts, end)
        lane_h = 24 / (max(lanes) + 1)
        for fact, lane in zip(facts, lanes, strict=True):
            x1 = x_of(fact["valid_from"])  # type: ignore[arg-type]
            x2 = max(x_of(fact["valid_until"] or end), x1 + 3)  # type: ignore[arg-type]
            status = str(fact["status"])
            top = y + lane * lane_h
            parts.append(
                f'<rect x="{x1:.1f}" y="{top:.1f}" width="{x2 - x1:.1f}" height="{lane_h - 1:.1f}" rx="3" class="fact {status}">'
                f"<title>{escape(str(fact['value']))} ({status}) from {fact['valid_from']:%Y-%m-%d}</title></rect>"  # type: ignore[str-format]
            )
            if x2 - x1 > 30:
                text = escape(str(fact["value"]))[: int((x2 - x1) / 7)]
                parts.append(
                    f'<text x="{x1 + 5:.1f}" y="{top + lane_h / 2 + 4:.1f}" class="node small">{text}</text>'
                )
    parts.append(
        f'<text x="{left}" y="{height - 4}" class="label">{start:%Y-%m-%d}</text>'
    )
    parts.append(
        f'<text x="{WIDTH - 10}" y="{height - 4}" text-anchor="end" class="label">{end:%Y-%m-%d}</text>'
    )
    parts.append(
        f'<line id="asof-cursor" x1="{left + span}" y1="0" x2="{left + span}" y2="{height - 16}" class="cursor"/>'
    )
    parts.append("</svg>")
    return "".join(parts)


def _lanes(facts: Sequence[dict[str, object]], end: datetime) -> list[int]:
    """A lane per fact so that values true at the same time (a contested slot) sit one above
    the other instead of on top of each other."""
    lane_ends: list[datetime] = []
    lanes = []
    for fact in facts:
        start, until = fact["valid_from"], fact["valid_until"] or end
        for lane, busy_until in enumerate(lane_ends):
            if busy_until <= start:  # type: ignore[operator]
                lane_ends[lane] = until  # type: ignore[assignment]
                lanes.append(lane)
                break
        else:
            lane_ends.append(until)  # type: ignore[arg-type]
            lanes.append(len(lane_ends) - 1)
    return lanes
