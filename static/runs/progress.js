// Live progress without reload: every element with data-progress-url is refreshed from that small JSON
// endpoint every 1.5 s until its run is no longer queued or running; then, if the page asked for it
// (data-reload-when-done), the page reloads once to show the results.
(function () {
  "use strict";
  const ACTIVE = ["queued", "running"];
  function update(el, data) {
    const pct = Math.round(data.progress_percent);
    const bar = el.querySelector(".bar");
    if (bar) { bar.style.width = pct + "%"; }
    const label = el.querySelector(".label");
    if (label) {
      label.textContent = pct + " % (" + data.progress_done + " / " + data.progress_total +
        (data.progress_failed ? ", " + data.progress_failed + " failed" : "") + ")";
    }
    el.dataset.status = data.status;
    el.dataset.percent = String(pct);
    const status = document.getElementById("status-" + data.id);
    if (status) { status.textContent = data.status; }
  }
  function poll(el) {
    fetch(el.dataset.progressUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
      .then(function (data) {
        update(el, data);
        if (ACTIVE.indexOf(data.status) !== -1) {
          setTimeout(function () { poll(el); }, 1500);
        } else if (el.dataset.reloadWhenDone === "1") {
          window.location.reload();
        }
      })
      .catch(function () { setTimeout(function () { poll(el); }, 4000); });
  }
  document.querySelectorAll("[data-progress-url]").forEach(function (el) {
    if (ACTIVE.indexOf(el.dataset.status) !== -1) { poll(el); }
  });
}());
