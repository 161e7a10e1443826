// Live progress without reload: every element with data-progress-url is refreshed from that small JSON endpoint
// every 2 s while its run is queued or running: the overall bar, and where the page shows them, one bar per phase
// (answering, judging, graphs) with units done, failed and planned, the time the run has run and the time left at
// its pace so far. Then, if the page asked for it (data-reload-when-done), the page reloads once to show the results.
(function () {
  "use strict";
  const ACTIVE = ["queued", "running"];
  function duration(s) {
    if (s === null || s === undefined) { return "–"; }
    s = Math.round(s);
    if (s < 60) { return s + " s"; }
    const m = Math.floor(s / 60), r = s % 60;
    if (m < 60) { return m + " min" + (r ? " " + r + " s" : ""); }
    return Math.floor(m / 60) + " h " + (m % 60) + " min";
  }
  function label(done, total, failed) {
    const pct = total ? Math.round(100 * done / total) : 0;
    return pct + " % (" + done + " / " + total + (failed ? ", " + failed + " failed" : "") + ")";
  }
  function update(el, data) {
    const pct = Math.round(data.progress_percent);
    const overall = el.querySelector(".progress");
    overall.querySelector(".bar").style.width = pct + "%";
    overall.querySelector(".label").textContent = label(data.progress_done, data.progress_total, data.progress_failed);
    overall.setAttribute("aria-valuenow", String(pct));
    const phases = el.querySelector(".phases");
    if (phases && data.phases) {
      phases.textContent = "";
      data.phases.forEach(function (p) {
        const row = document.createElement("div");
        row.className = "phase phase-" + p.stage;
        const name = document.createElement("span");
        name.className = "phase-name";
        name.textContent = p.phase;
        const bar = document.createElement("div");
        bar.className = "progress small";
        const fill = document.createElement("div");
        fill.className = "bar";
        fill.style.width = (p.total ? Math.round(100 * p.done / p.total) : 0) + "%";
        const text = document.createElement("span");
        text.className = "label";
        text.textContent = label(p.done, p.total, p.failed);
        bar.appendChild(fill);
        bar.appendChild(text);
        row.appendChild(name);
        row.appendChild(bar);
        phases.appendChild(row);
      });
    }
    const timing = el.querySelector(".timing");
    if (timing) {
      let text = data.elapsed_s === null ? "Not started yet." : "Running for " + duration(data.elapsed_s);
      if (data.status === "running" && data.eta_s !== null) { text += ", about " + duration(data.eta_s) + " left at this pace"; }
      if (ACTIVE.indexOf(data.status) === -1 && data.elapsed_s !== null) { text = "Ran for " + duration(data.elapsed_s) + "."; }
      else if (data.elapsed_s !== null) { text += "."; }
      if (data.status_reason) { text += " " + data.status_reason; }
      timing.textContent = text;
    }
    el.dataset.status = data.status;
    el.dataset.percent = String(pct);
    const status = document.getElementById("status-" + data.id);
    if (status) { status.textContent = data.status; }
  }
  function poll(el, once) {
    fetch(el.dataset.progressUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (data) {
        const wasActive = ACTIVE.indexOf(el.dataset.status) !== -1;
        update(el, data);
        if (ACTIVE.indexOf(data.status) !== -1) {
          setTimeout(function () { poll(el, false); }, 2000);
        } else if (wasActive && !once && el.dataset.reloadWhenDone === "1") {
          window.location.reload();
        }
      })
      .catch(function () { if (!once) { setTimeout(function () { poll(el, false); }, 4000); } });
  }
  document.querySelectorAll("[data-progress-url]").forEach(function (el) {
    if (ACTIVE.indexOf(el.dataset.status) !== -1) { poll(el, false); }
    else if (el.querySelector(".phases")) { poll(el, true); }  // a finished run's page shows its phases once
  });
}());
