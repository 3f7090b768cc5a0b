// The as-of slider: ask the inspector for the facts valid at the chosen time and redraw the
// table and the timeline's cursor. Everything else on the page is plain HTML.
(function () {
  "use strict";
  const slider = document.getElementById("asof");
  if (!slider) return;
  const label = document.getElementById("asof-label");
  const body = document.getElementById("facts-body");
  const svg = document.getElementById("fact-timeline");
  const cursor = document.getElementById("asof-cursor");
  let pending = null;

  function placeCursor(seconds) {
    if (!svg || !cursor) return;
    const start = Number(svg.dataset.start), end = Number(svg.dataset.end);
    const left = Number(svg.dataset.left), span = Number(svg.dataset.span);
    const x = left + span * Math.min(Math.max((seconds - start) / Math.max(end - start, 1), 0), 1);
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
  }

  function render(payload) {
    label.textContent = payload.label;
    if (!payload.rows.length) {
      body.innerHTML = '<tr><td colspan="7" class="muted">no facts valid then</td></tr>';
      return;
    }
    // The server escaped every cell (views.fact_rows), so the cells can go in as HTML.
    body.innerHTML = payload.rows.map((row) => "<tr>" + row.map((cell) => "<td>" + cell + "</td>").join("") + "</tr>").join("");
  }

  async function update() {
    const seconds = Number(slider.value);
    placeCursor(seconds);
    const atEnd = seconds >= Number(slider.max);
    const query = atEnd ? "" : "?at=" + encodeURIComponent(seconds);
    const response = await fetch("/api/facts" + query, { headers: { Accept: "application/json" } });
    if (response.ok) render(await response.json());
    const url = new URL(window.location.href);
    if (atEnd) url.searchParams.delete("at"); else url.searchParams.set("at", String(seconds));
    window.history.replaceState(null, "", url);
  }

  slider.addEventListener("input", () => {
    clearTimeout(pending);
    pending = setTimeout(update, 120);
  });
  placeCursor(Number(slider.value));
})();
