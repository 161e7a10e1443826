// TAU alignment labelling: keyboard-first. j/k move, h/l or Tab switch list, a align, u clear,
// 1-4 error types, Enter submit. The label is sent as JSON in a hidden field of a CSRF-protected form.
(function () {
  "use strict";
  var lists = { answer: document.getElementById("answer-list"), gold: document.getElementById("gold-list") };
  if (!lists.answer || !lists.gold) { return; }
  var form = document.getElementById("tau-form");
  var statusLine = document.getElementById("tau-status");
  var ERRORS = ["relation_wrong", "entity_wrong", "extra", "missing"];
  var ALLOWED = { answer: ["relation_wrong", "entity_wrong", "extra"], gold: ["relation_wrong", "entity_wrong", "missing"] };
  var items = { answer: lists.answer.querySelectorAll("li"), gold: lists.gold.querySelectorAll("li") };
  var cursor = { answer: 0, gold: 0 };
  var active = "answer";
  var pairOfAnswer = {};  // answer index -> gold index
  var pairOfGold = {};    // gold index -> answer index
  var errors = { answer: {}, gold: {} };

  function clear(side, index) {
    if (side === "answer" && index in pairOfAnswer) { delete pairOfGold[pairOfAnswer[index]]; delete pairOfAnswer[index]; }
    if (side === "gold" && index in pairOfGold) { delete pairOfAnswer[pairOfGold[index]]; delete pairOfGold[index]; }
    delete errors[side][index];
  }

  function render() {
    ["answer", "gold"].forEach(function (side) {
      items[side].forEach(function (li, i) {
        li.classList.toggle("selected", i === cursor[side]);
        li.classList.toggle("active-list", side === active);
        var state = li.querySelector(".state");
        var text = "";
        if (side === "answer" && i in pairOfAnswer) { text = "aligned with gold " + (pairOfAnswer[i] + 1); }
        else if (side === "gold" && i in pairOfGold) { text = "aligned with answer " + (pairOfGold[i] + 1); }
        else if (errors[side][i]) { text = errors[side][i].replace("_", " "); }
        state.textContent = text;
        li.dataset.state = text ? (text.indexOf("aligned") === 0 ? "aligned" : errors[side][i]) : "";
      });
    });
    var left = remaining();
    statusLine.textContent = left === 0 ? "Every triplet is labelled: press Enter to submit." : left + " triplet(s) left to label.";
  }

  function remaining() {
    var left = 0;
    items.answer.forEach(function (_, i) { if (!(i in pairOfAnswer) && !errors.answer[i]) { left += 1; } });
    items.gold.forEach(function (_, i) { if (!(i in pairOfGold) && !errors.gold[i]) { left += 1; } });
    return left;
  }

  function label() {
    var aligned = Object.keys(pairOfAnswer).map(function (a) { return [Number(a), pairOfAnswer[a]]; });
    return JSON.stringify({ aligned: aligned, answer_errors: errors.answer, gold_errors: errors.gold });
  }

  function move(delta) {
    var n = items[active].length;
    if (n) { cursor[active] = (cursor[active] + delta + n) % n; }
  }

  document.addEventListener("keydown", function (event) {
    if (event.target && /^(TEXTAREA|INPUT|SELECT)$/.test(event.target.tagName)) { return; }
    var key = event.key;
    if (key === "j") { move(1); }
    else if (key === "k") { move(-1); }
    else if (key === "h" || key === "l" || key === "Tab") { active = active === "answer" ? "gold" : "answer"; }
    else if (key === "a") {
      if (!items.answer.length || !items.gold.length) { return; }
      var a = cursor.answer, g = cursor.gold;
      clear("answer", a); clear("gold", g);
      pairOfAnswer[a] = g; pairOfGold[g] = a;
    }
    else if (key === "u") { clear(active, cursor[active]); }
    else if (/^[1-4]$/.test(key)) {
      var kind = ERRORS[Number(key) - 1];
      if (ALLOWED[active].indexOf(kind) === -1) { statusLine.textContent = kind + " does not apply to a " + active + " triplet."; event.preventDefault(); return; }
      clear(active, cursor[active]);
      errors[active][cursor[active]] = kind;
    }
    else if (key === "Enter") {
      event.preventDefault();
      if (remaining() > 0) { statusLine.textContent = remaining() + " triplet(s) still need a label."; return; }
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
      li.addEventListener("click", function () { active = side; cursor[side] = i; render(); });
    });
  });
  form.addEventListener("submit", function () { document.getElementById("tau-label").value = label(); });
  render();
}());
