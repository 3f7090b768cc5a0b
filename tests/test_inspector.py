"""``deltacore inspect``: the local inspector page, in a real browser and over HTTP.

The browser test starts the real command (a ``deltacore inspect`` subprocess on a demo store)
and drives Debian's ``chromium`` headless through Playwright, asserting what a person sees:
the economy's figures and charts, an episode's causal chain with each step's credit, the
quarantine with its reason, the review queue (and that Reject really resolves the item), and
the facts table following the as-of slider, and the erasures panel listing a forget request
(without the forgotten name). It saves a screenshot of each panel; with
``DELTACORE_SCREENSHOT_DIR=docs/img`` they are the ones in docs/operating.md.

Without chromium (or Playwright) the browser test is skipped locally and fails in CI
(``CI=true``), where ``.ci/run`` installs chromium.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from deltacore import DeltaCore
from deltacore.cli import main
from deltacore.testing import FakeEmbedder

sys.path.insert(0, str(Path(__file__).parent))
from inspector_demo import ago, populate

IN_CI = os.environ.get("CI", "").lower() == "true"
CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
MAX_PNG = 300 * 1024

pytestmark = pytest.mark.timeout(180)


def _missing(reason: str) -> None:
    if IN_CI:
        pytest.fail(
            f"CI=true but {reason} (.ci/run installs chromium; playwright is in the dev group)"
        )
    pytest.skip(reason)


@pytest.fixture(autouse=True)
def _hermetic_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "DELTACORE_PATH",
        "DELTACORE_DATABASE_URL",
        "DELTACORE_CHROMA_URL",
        "DELTACORE_INSPECT_HOST",
    ):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def demo_store(tmp_path: Path) -> tuple[Path, dict[str, object]]:
    path = tmp_path / "store"
    with DeltaCore.open(path, embedder=FakeEmbedder()) as memory:
        info = populate(memory)
    return path, info


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def inspector(
    demo_store: tuple[Path, dict[str, object]], tmp_path: Path
) -> Iterator[tuple[str, Path, dict[str, object]]]:
    """``deltacore inspect STORE --allow-review`` running in a subprocess; yields its URL."""
    path, info = demo_store
    port = _free_port()
    log = (tmp_path / "inspector.log").open("wb")
    env = {
        **os.environ,
        "HF_HUB_OFFLINE": "1",
        "ANONYMIZED_TELEMETRY": "False",
        "OTEL_SDK_DISABLED": "true",
    }
    command = [
        sys.executable,
        "-m",
        "deltacore.cli",
        "--embedder",
        "fake",
        "inspect",
        str(path),
        "--port",
        str(port),
        "--allow-review",
    ]
    proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 90
    while True:
        try:
            urllib.request.urlopen(url, timeout=5).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(
                    f"the inspector did not start: {(tmp_path / 'inspector.log').read_text()}"
                )
            time.sleep(0.3)
    try:
        yield url, path, info
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def _shots(tmp_path: Path) -> Path:
    folder = Path(
        os.environ.get("DELTACORE_SCREENSHOT_DIR") or tmp_path / "screenshots"
    )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _save(locator, folder: Path, name: str) -> None:
    target = folder / name
    locator.screenshot(path=str(target))
    assert target.stat().st_size < MAX_PNG, f"{name} is {target.stat().st_size} bytes"


def test_inspector_in_a_real_browser(inspector, tmp_path: Path) -> None:
    if CHROMIUM is None:
        _missing("chromium is not installed (apt-get install -y chromium)")
    try:
        from playwright.sync_api import expect, sync_playwright
    except ImportError:
        _missing(
            "playwright is not installed (pip install playwright; no browser download needed)"
        )
    url, path, info = inspector
    shots = _shots(tmp_path)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"]
        )
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.route(
            "**/*",
            lambda route: (
                route.continue_()
                if route.request.url.startswith(url)
                else route.abort()
            ),
        )
        failed: list[str] = []
        page.on("requestfailed", lambda request: failed.append(request.url))

        # Economy: the figures of the store, a chart with one column per day, a query.
        page.goto(url)
        economy = page.locator("#economy")
        expect(economy.locator(".card-value").first).to_have_text(str(info["memories"]))
        expect(economy.locator("svg.chart").first.locator("rect.bar")).to_have_count(
            14 + 1
        )  # 14 days + legend
        page.fill("input[name=q]", "billing v7 deploy")
        page.click("text=Search")
        expect(economy.locator("table tbody tr").first).to_contain_text(
            "deploy billing v7 to prod"
        )
        _save(economy, shots, "inspector-economy.png")

        # Episode: the causal chain, every step with its credit; the winning deploy earned most.
        page.click("a:has-text('deploy-42')")
        rows = page.locator("#chain-body tr")
        expect(rows).to_have_count(int(info["episode_steps"]))  # type: ignore[call-overload]
        expect(page.locator("svg.chain rect.credit-pos")).to_have_count(
            int(info["episode_steps"])
        )  # type: ignore[call-overload]
        credits = [
            float(rows.nth(i).locator("td").nth(4).inner_text())
            for i in range(rows.count())
        ]
        assert all(c > 0 for c in credits) and credits[-1] == max(credits) == 1.0
        _save(page.locator("#episode"), shots, "inspector-episode.png")

        # Trust: the quarantined write with its reason; the review queue with its buttons.
        trust = page.locator("#trust")
        expect(trust.locator("#quarantine-body")).to_contain_text("user:eve")
        expect(trust.locator("#quarantine-body")).to_contain_text(
            "instruction aimed at the agent"
        )
        reviews = trust.locator("#review-body tr")
        expect(reviews).to_have_count(len(info["reviews"]))  # type: ignore[arg-type]
        expect(reviews.first).to_contain_text("SCHEMA_DRIFT")
        _save(trust, shots, "inspector-trust.png")

        # Erasures: the certificate of the demo's forget, without the person it was about.
        erasures = page.locator("#erasures")
        row = erasures.locator("#erasures-body tr")
        expect(row).to_have_count(1)
        expect(row.first).to_contain_text(str(info["erasure"]))
        expect(row.first).to_contain_text("completed")
        expect(row.first).to_contain_text(f"events={info['erased_events']}")
        expect(erasures.locator(".card-value").first).to_have_text("1")
        expect(erasures).not_to_contain_text("Mallory")
        expect(page.locator("body")).not_to_contain_text("Mallory")
        _save(erasures, shots, "inspector-erasures.png")
        reviews.first.locator("button:has-text('Reject')").click()
        expect(trust.locator("#review-body tr")).to_have_count(len(info["reviews"]) - 1)  # type: ignore[arg-type]

        # Facts: now Alice lives in Berlin; slid back three weeks, Paris (and Python unchallenged).
        facts = page.locator("#facts")
        body = facts.locator("#facts-body")
        expect(body).to_contain_text("Berlin")
        expect(facts.locator("svg.timeline rect.fact")).to_have_count(
            int(info["timeline_facts"])  # type: ignore[call-overload]
        )
        expect(facts.locator("svg.timeline rect.fact.contested")).to_have_count(2)
        slider = page.locator("#asof")
        three_weeks_ago = int(ago(21).timestamp())
        slider.evaluate(
            "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }",
            three_weeks_ago,
        )
        expect(body).to_contain_text("Paris")
        expect(body).not_to_contain_text("Berlin")
        expect(body).not_to_contain_text("Go")
        expect(page.locator("#asof-label")).not_to_have_text("now")
        expect(facts.locator("table").nth(1)).to_contain_text("Python")  # the conflict
        _save(page.locator("#facts"), shots, "inspector-facts.png")
        assert (
            "at=" in page.url
        )  # the URL keeps the time: reloading it shows the same view
        page.reload()
        expect(page.locator("#facts-body")).to_contain_text("Paris")
        expect(page.locator("#asof-label")).not_to_have_text("now")
        assert failed == [], (
            f"requests that failed (nothing may leave the loopback page): {failed}"
        )
        browser.close()

    with DeltaCore.open(path, embedder=FakeEmbedder()) as memory:
        assert len(memory.review_queue()) == len(info["reviews"]) - 1  # type: ignore[arg-type]
        resolved = [
            item
            for item in memory.review_queue(include_resolved=True)
            if item.resolution
        ]
        assert [item.resolution for item in resolved] == ["reject"]


def test_read_only_inspector_shows_no_buttons_and_refuses_reviews(demo_store) -> None:
    from deltacore.server.inspector.app import LOOPBACK_HOSTS, build_app
    from starlette.testclient import TestClient

    path, info = demo_store
    with DeltaCore.open(path, embedder=FakeEmbedder()) as memory:
        client = TestClient(build_app(memory, allow_review=False))
        page = client.get("/")
        assert page.status_code == 200
        assert "SCHEMA_DRIFT" in page.text and "user:eve" in page.text
        assert "<button" not in page.text.split('id="trust"')[1].split("</section>")[0]
        assert "Read-only" in page.text
        refused = client.post(
            f"/review/{info['reviews'][0]}", data={"resolution": "reject"}
        )  # type: ignore[index]
        assert refused.status_code == 403 and "--allow-review" in refused.text
        assert (
            client.post("/quarantine/poison-1", data={"verdict": "release"}).status_code
            == 403
        )
        assert len(memory.review_queue()) == len(info["reviews"])  # type: ignore[arg-type]
        assert [event.id for event in memory.quarantined()] == ["poison-1"]

        # With review allowed, a POST without the page's token (another site's form) is refused too.
        client = TestClient(build_app(memory, allow_review=True))
        assert (
            client.post("/quarantine/poison-1", data={"verdict": "release"}).status_code
            == 403
        )
        assert [event.id for event in memory.quarantined()] == ["poison-1"]

        # With the page's token, Release puts the event back and the page no longer lists it.
        token = re.search(r'name="token" value="([^"]+)"', client.get("/").text).group(
            1
        )
        bad = client.post(
            f"/review/{info['reviews'][0]}",
            data={"resolution": "maybe", "token": token},
        )  # type: ignore[index]
        assert bad.status_code == 400 and len(memory.review_queue()) == len(
            info["reviews"]
        )  # type: ignore[arg-type]
        released = client.post(
            "/quarantine/poison-1",
            data={"verdict": "release", "token": token},
            follow_redirects=False,
        )
        assert released.status_code == 303 and memory.quarantined() == []
        assert "nothing in quarantine" in client.get("/").text
        again = client.post(
            "/quarantine/poison-1", data={"verdict": "release", "token": token}
        )
        assert again.status_code == 400 and "not in quarantine" in again.text

        assert client.get("/api/facts?at=not-a-time").status_code == 400

        # Bound to loopback, a request for another host name (DNS rebinding) is refused.
        guarded = TestClient(
            build_app(memory, allowed_hosts=LOOPBACK_HOSTS),
            base_url="http://127.0.0.1:8765",
        )
        assert guarded.get("/").status_code == 200
        assert guarded.get("/", headers={"Host": "attacker.example"}).status_code == 400
        assert [
            row[2]
            for row in client.get(f"/api/facts?at={ago(21).timestamp():.0f}").json()[
                "rows"
            ]
        ] == [
            "<b>Paris</b>",
            "<b>Python</b>",
        ]


def test_a_non_loopback_bind_needs_an_explicit_host(
    demo_store, monkeypatch, capsys
) -> None:
    from deltacore.server.inspector.app import check_bind

    path, _ = demo_store
    monkeypatch.setenv("DELTACORE_INSPECT_HOST", "0.0.0.0")
    code = main(
        ["--embedder", "fake", "inspect", str(path), "--port", str(_free_port())]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "binds only to loopback" in err and "--host 0.0.0.0" in err
    check_bind(
        "0.0.0.0", explicit=True
    )  # named on the command line: the operator's choice
    for loopback in ("127.0.0.1", "::1", "localhost", "127.0.0.2"):
        check_bind(loopback, explicit=False)
    code = main(["--embedder", "fake", "inspect", str(path), "--port", "70000"])
    assert code == 2 and "--port" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("command", "module", "extra"),
    [("inspect", "starlette", "inspector"), ("mcp", "mcp", "mcp")],
)
def test_without_its_extra_a_server_command_names_it(
    command, module, extra, demo_store
) -> None:
    path, _ = demo_store
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "from deltacore.cli import main\n"
        f"sys.exit(main(['--embedder', 'fake', {command!r}, {str(path)!r}]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert f"pip install 'deltacore[{extra}]'" in result.stderr
