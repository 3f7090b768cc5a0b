"""The inspector: a Starlette app over one open store, served by uvicorn on loopback.

Read-only unless built with ``allow_review=True``: only then does the page show approve /
reject buttons and accept the POSTs behind them. Every POST must also carry the token this
process put in the page (a web page elsewhere cannot post to the loopback port on a visitor's
behalf), and a Host header other than the bound address is refused (DNS rebinding). Endpoints
are plain functions: Starlette runs them in its thread pool, so a slow read never blocks the
event loop.
"""

from __future__ import annotations

import ipaddress
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from deltacore.engine import DeltaCore
from deltacore.errors import ConfigurationError, DeltaCoreError, MissingExtraError

try:
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import Request
    from starlette.responses import (
        HTMLResponse,
        JSONResponse,
        PlainTextResponse,
        RedirectResponse,
        Response,
    )
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingExtraError("the inspector", "inspector", "starlette") from exc

from deltacore.server.inspector import data, views

STATIC = Path(__file__).parent / "static"
LOOPBACK_NAMES = ("localhost",)
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "::1", "[::1]"]
"""The Host headers a loopback-bound inspector answers (anything else: 400, DNS rebinding)."""


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 or ``localhost``."""
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, *, explicit: bool) -> None:
    """Refuse a non-loopback address unless the operator named it explicitly (``--host``): the
    page shows every memory of the tenant to whoever can reach the port."""
    if not is_loopback(host) and not explicit:
        raise ConfigurationError(
            "host",
            f"the inspector binds only to loopback (127.0.0.1, ::1, localhost) unless you pass --host {host} "
            "explicitly: it shows every memory of the tenant to anyone who can reach the port",
        )


def _parse_time(raw: str | None) -> datetime | None:
    if raw in (None, ""):
        return None
    try:
        moment = datetime.fromtimestamp(float(raw), UTC)
    except ValueError:
        moment = datetime.fromisoformat(
            raw
        )  # a bad value raises ValueError: a 400 below
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def build_app(
    memory: DeltaCore,
    *,
    tenant: str = "default",
    allow_review: bool = False,
    title: str = "",
    allowed_hosts: list[str] | None = None,
) -> Starlette:
    """The inspector over ``memory`` (which the caller opens and closes)."""
    token = secrets.token_urlsafe(24)

    def index(request: Request) -> Response:
        now = datetime.now(UTC)
        try:
            at = _parse_time(request.query_params.get("at"))
        except ValueError:
            return PlainTextResponse(
                "at: not a time (unix seconds or ISO 8601)", status_code=400
            )
        recent = data.recent_events(memory, tenant, now)
        search = None
        text = request.query_params.get("q", "").strip()
        if text:
            try:
                search = {
                    "text": text,
                    "packets": memory.query(text, top_k=10, tenant=tenant),
                }
            except (
                DeltaCoreError
            ) as exc:  # e.g. the query reached a honeypot: say so on the page
                search = {
                    "text": text,
                    "packets": [],
                    "error": f"{type(exc).__name__}: {exc}",
                }
        episode_id = request.query_params.get("episode")
        chain = data.episode_chain(memory, episode_id, tenant) if episode_id else None
        eco = data.economy(memory, tenant)
        sections = [
            views.economy_panel(
                eco,
                data.daily_activity(memory, tenant, recent, now),
                search,
            ),
            views.episode_panel(data.episodes(recent), chain),
            views.trust_panel(
                data.quarantine(memory, tenant),
                data.security_log(memory, tenant, now),
                memory.review_queue(tenant=tenant),
                allow_review=allow_review,
                token=token,
            ),
            views.beliefs_panel(data.beliefs(memory, tenant, at, now), at),
            views.erasure_panel(data.erasures(eco)),
        ]
        return HTMLResponse(
            views.page(title or f"tenant {tenant}", sections, allow_review=allow_review)
        )

    def facts_api(request: Request) -> Response:
        try:
            at = _parse_time(request.query_params.get("at"))
        except ValueError:
            return JSONResponse(
                {"error": "at: not a time (unix seconds or ISO 8601)"}, status_code=400
            )
        facts = memory.facts(at=at, tenant=tenant)
        return JSONResponse(
            {
                "at": at.isoformat() if at else None,
                "label": f"{at:%Y-%m-%d %H:%M}" if at else "now",
                "rows": views.fact_rows(facts),
                "facts": [fact.model_dump(mode="json") for fact in facts],
            }
        )

    async def _form(request: Request) -> dict[str, Any] | Response:
        if not allow_review:
            return PlainTextResponse(
                "read-only inspector: start it with --allow-review to review",
                status_code=403,
            )
        form = dict(await request.form())
        if not secrets.compare_digest(str(form.get("token", "")), token):
            return PlainTextResponse(
                "missing or stale form token: reload the page", status_code=403
            )
        return form

    async def review(request: Request) -> Response:
        form = await _form(request)
        if isinstance(form, Response):
            return form
        resolution = form.get("resolution")
        if resolution not in ("accept", "reject"):
            return PlainTextResponse("resolution: accept or reject", status_code=400)
        try:
            await run_in_threadpool(
                memory.resolve_review, int(request.path_params["item"]), str(resolution)
            )
        except DeltaCoreError as exc:
            return PlainTextResponse(str(exc), status_code=400)
        return RedirectResponse("/#trust", status_code=303)

    async def quarantine(request: Request) -> Response:
        form = await _form(request)
        if isinstance(form, Response):
            return form
        verdict = form.get("verdict")
        if verdict not in ("release", "confirm"):
            return PlainTextResponse("verdict: release or confirm", status_code=400)
        event_id = request.path_params["event_id"]
        result = await run_in_threadpool(
            memory.quarantine_review, [event_id], str(verdict), tenant=tenant
        )
        if result.not_quarantined:
            return PlainTextResponse(
                f"{event_id} is not in quarantine", status_code=400
            )
        return RedirectResponse("/#trust", status_code=303)

    routes = [
        Route("/", index),
        Route("/api/facts", facts_api),
        Route("/review/{item:int}", review, methods=["POST"]),
        Route("/quarantine/{event_id}", quarantine, methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = (
        [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)]
        if allowed_hosts
        else []
    )
    return Starlette(routes=routes, middleware=middleware)


def serve(
    memory: DeltaCore,
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
    explicit_host: bool = False,
    tenant: str = "default",
    allow_review: bool = False,
    title: str = "",
) -> None:
    """Serve the inspector until interrupted; refuses a non-loopback ``host`` unless explicit."""
    check_bind(host, explicit=explicit_host)
    try:
        import uvicorn
    except ImportError as exc:  # pragma: no cover
        raise MissingExtraError("the inspector", "inspector", "uvicorn") from exc
    allowed = LOOPBACK_HOSTS if is_loopback(host) else None
    app = build_app(
        memory,
        tenant=tenant,
        allow_review=allow_review,
        title=title,
        allowed_hosts=allowed,
    )
    uvicorn.run(app, host=host, port=port, log_level="warning")
