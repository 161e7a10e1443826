// TAU alignment labelling, with the mouse or the keys. Mouse: click an answer triplet, then a gold triplet, to align
// them; the toolbar gives the selected triplet an error type, clears it or undoes the last change. Keys: j/k move,
// h/l answer/gold list, a align, 1-4 error types, u clear, z undo, Enter submit. Tab is left to the browser.
// Aligned pairs are drawn as lines between the lists. Triplets are numbered from 1 (A1, G1) on the page; the label
// sent is 0-based JSON in a hidden field of a CSRF-protected form. After a refused submission the page comes back
// with the labels it had (the server hands them back in #tau-initial).
(function () {
  "use strict";
  var lists = { answer: document.getElementById("answer-list"), gold: document.getElementById("gold-list") };
  if (!lists.answer || !lists.gold) { return; }
  var form = document.getElementById("tau-form");
  var statusLine = document.getElementById("tau-status");
  var board = document.getElementById("tau-board");
  var svg = document.getElementById("tau-links");
  var ERRORS = ["relation_wrong", "entity_wrong", "extra", "missing"];
  var ALLOWED = { answer: ["relation_wrong", "entity_wrong", "extra"], gold: ["relation_wrong", "entity_wrong", "missing"] };
  var items = { answer: lists.answer.querySelectorAll("li"), gold: lists.gold.querySelectorAll("li") };
  var cursor = { answer: 0, gold: 0 };
  var active = "answer";
  var picked = null;  // the answer triplet clicked last, waiting for its gold partner
  var state = { pairOfAnswer: {}, pairOfGold: {}, errors: { answer: {}, gold: {} } };
  var history = [];

  function snapshot() { history.push(JSON.stringify(state)); if (history.length > 200) { history.shift(); } }
  function undo() { if (history.length) { state = JSON.parse(history.pop()); picked = null; } else { say("Nothing to undo."); } }

  function clear(side, index) {
    if (side === "answer" && index in state.pairOfAnswer) { delete state.pairOfGold[state.pairOfAnswer[index]]; delete state.pairOfAnswer[index]; }
    if (side === "gold" && index in state.pairOfGold) { delete state.pairOfAnswer[state.pairOfGold[index]]; delete state.pairOfGold[index]; }
    delete state.errors[side][index];
  }
  function align(a, g) { snapshot(); clear("answer", a); clear("gold", g); state.pairOfAnswer[a] = g; state.pairOfGold[g] = a; }
  function setError(side, index, kind) {
    if (ALLOWED[side].indexOf(kind) === -1) { say(kind.replace("_", " ") + " does not apply to a " + side + " triplet."); return false; }
    snapshot(); clear(side, index); state.errors[side][index] = kind;
    if (side === "answer" && picked === index) { picked = null; }  // labelled: no longer waiting for a gold partner
    return true;
  }
  function say(text) { statusLine.textContent = text; }

  function remaining() {
    var left = 0;
    items.answer.forEach(function (_, i) { if (!(i in state.pairOfAnswer) && !state.errors.answer[i]) { left += 1; } });
    items.gold.forEach(function (_, i) { if (!(i in state.pairOfGold) && !state.errors.gold[i]) { left += 1; } });
    return left;
  }

  function drawLinks() {
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    var box = board.getBoundingClientRect();
    svg.setAttribute("width", String(box.width));
    svg.setAttribute("height", String(box.height));
    Object.keys(state.pairOfAnswer).forEach(function (a) {
      var from = items.answer[Number(a)].getBoundingClientRect();
      var to = items.gold[state.pairOfAnswer[a]].getBoundingClientRect();
      var line = document.createElementNS("http://www.w3.org/2000/svg", "line");
      var stacked = to.top > from.bottom && Math.abs(to.left - from.left) < 40;  // narrow screens: lists stacked
      line.setAttribute("x1", String((stacked ? from.left + 12 : from.right) - box.left));
      line.setAttribute("y1", String((stacked ? from.bottom : from.top + from.height / 2) - box.top));
      line.setAttribute("x2", String((stacked ? to.left + 12 : to.left) - box.left));
      line.setAttribute("y2", String((stacked ? to.top : to.top + to.height / 2) - box.top));
      line.setAttribute("class", "link");
      svg.appendChild(line);
    });
  }

  function render() {
    ["answer", "gold"].forEach(function (side) {
      items[side].forEach(function (li, i) {
        li.classList.toggle("selected", i === cursor[side]);
        li.classList.toggle("active-list", side === active);
        li.classList.toggle("picked", side === "answer" && picked === i);
        var text = "", kind = "";
        if (side === "answer" && i in state.pairOfAnswer) { text = "aligned with G" + (state.pairOfAnswer[i] + 1); kind = "aligned"; }
        else if (side === "gold" && i in state.pairOfGold) { text = "aligned with A" + (state.pairOfGold[i] + 1); kind = "aligned"; }
        else if (state.errors[side][i]) { text = state.errors[side][i].replace("_", " "); kind = state.errors[side][i]; }
        li.querySelector(".state").textContent = text;
        li.dataset.state = kind;
      });
    });
    drawLinks();
    var left = remaining();
    say(left === 0 ? "Every triplet is labelled: press Enter or Submit." : left + " triplet(s) left to label.");
  }

  function label() {
    var aligned = Object.keys(state.pairOfAnswer).map(function (a) { return [Number(a), state.pairOfAnswer[a]]; });
    return JSON.stringify({ aligned: aligned, answer_errors: state.errors.answer, gold_errors: state.errors.gold });
  }

  function restore() {
    var node = document.getElementById("tau-initial");
    var raw = node ? JSON.parse(node.textContent || '""') : "";
    if (!raw) { return; }
    try {
      var data = JSON.parse(raw);
      (data.aligned || []).forEach(function (p) {
        if (items.answer[p[0]] && items.gold[p[1]]) { state.pairOfAnswer[p[0]] = p[1]; state.pairOfGold[p[1]] = p[0]; }
      });
      ["answer", "gold"].forEach(function (side) {
        var errs = data[side + "_errors"] || {};
        Object.keys(errs).forEach(function (i) { if (items[side][Number(i)]) { state.errors[side][Number(i)] = errs[i]; } });
      });
    } catch (ignored) { /* a label the page cannot read starts afresh */ }
  }

  function act(action) {
    if (action === "align") {
      if (!items.answer.length || !items.gold.length) { return; }
      align(picked !== null ? picked : cursor.answer, cursor.gold);
      picked = null;
    } else if (action === "clear") { snapshot(); clear(active, cursor[active]); picked = null; }
    else if (action === "undo") { undo(); }
    render();
  }

  function move(delta) {
    var n = items[active].length;
    if (n) { cursor[active] = (cursor[active] + delta + n) % n; items[active][cursor[active]].focus(); }
  }

  document.addEventListener("keydown", function (event) {
    if (event.target && /^(TEXTAREA|INPUT|SELECT|BUTTON)$/.test(event.target.tagName)) { return; }
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var key = event.key;
    if (key === "j") { move(1); }
    else if (key === "k") { move(-1); }
    else if (key === "h") { active = "answer"; }
    else if (key === "l") { active = "gold"; }
    else if (key === "a") { act("align"); return event.preventDefault(); }
    else if (key === "u") { act("clear"); return event.preventDefault(); }
    else if (key === "z") { act("undo"); return event.preventDefault(); }
    else if (/^[1-4]$/.test(key)) { setError(active, cursor[active], ERRORS[Number(key) - 1]); }
    else if (key === "Enter") {
      event.preventDefault();
      if (remaining() > 0) { say(remaining() + " triplet(s) still need a label."); return; }
      document.getElementById("tau-label").value = label();
      form.submit();
      return;
    }
    else { return; }
    event.preventDefault();
    render();
  });

  ["answer", "gold"].forEach(function (side) {
    items[side].forEach(function (li, i) {
      li.addEventListener("click", function () {
        active = side; cursor[side] = i;
        if (side === "answer") { picked = i; }
        else if (picked !== null) { align(picked, i); picked = null; }
        render();
      });
      li.addEventListener("focus", function () { active = side; cursor[side] = i; render(); });
    });
  });
  document.querySelectorAll(".tau-toolbar button").forEach(function (button) {
    button.addEventListener("click", function () {
      if (button.dataset.error) { setError(active, cursor[active], button.dataset.error); render(); }
      else { act(button.dataset.action); }
    });
  });
  form.addEventListener("submit", function () { document.getElementById("tau-label").value = label(); });
  window.addEventListener("resize", drawLinks);
  restore();
  render();
}());
