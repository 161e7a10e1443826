// The launch page: the authoring forms post to their dataset's own URL (the chosen dataset fills the action).
(function () {
  "use strict";
  document.querySelectorAll("form[data-action-template]").forEach(function (form) {
    form.addEventListener("submit", function () {
      var name = form.querySelector(".action-dataset").value;
      form.action = form.dataset.actionTemplate.replace("DATASET", encodeURIComponent(name));
    });
  });
}());
