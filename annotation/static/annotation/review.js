// Review by keyboard: 1 / 2 context coherent yes / no, 3 / 4 question valid yes / no, g to the ground truth,
// Ctrl+Enter (or Cmd+Enter) submits from anywhere. Keys typed into a text field stay text, except Ctrl+Enter.
(function () {
  "use strict";
  var form = document.getElementById("review-form");
  if (!form) { return; }
  var keys = {
    "1": ["context_coherent", "yes"], "2": ["context_coherent", "no"],
    "3": ["question_valid", "yes"], "4": ["question_valid", "no"]
  };
  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      if (form.reportValidity()) { form.submit(); }
      return;
    }
    var typing = event.target && /^(TEXTAREA|INPUT|SELECT)$/.test(event.target.tagName) && event.target.type !== "radio";
    if (typing || event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (keys[event.key]) {
      var input = form.querySelector("input[name=" + keys[event.key][0] + "][value=" + keys[event.key][1] + "]");
      input.checked = true;
      input.focus();
      event.preventDefault();
    } else if (event.key === "g") {
      document.getElementById("ground_truth").focus();
      event.preventDefault();
    }
  });
}());
