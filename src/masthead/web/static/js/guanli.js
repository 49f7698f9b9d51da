// The /guanli comments screen: keyboard moderation and the ticked count. Everything here also
// works without it through the plain forms.
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll(".g-row"));
  var count = document.getElementById("g-count");
  var all = document.getElementById("g-all");
  var help = document.getElementById("g-help");
  var current = -1;
  // phones: the filter bar folds behind its "Filter" summary, so the first comment is on the
  // first screen (open when a filter is in use); without script it stays open
  var fold = document.querySelector(".guanli-fold");
  if (fold && window.matchMedia("(max-width: 700px)").matches) {
    var used = Array.prototype.some.call(
      fold.querySelectorAll("input[name=q], input[name=post], input[name=day], select[name=lang]"),
      function (field) { return field.value !== ""; }
    );
    fold.open = used;
  }

  // a long comment is clamped to a few lines (guanli.css), with "Show all" right under it: a
  // button that says whether the text is open (aria-expanded); short ones are left alone
  function clamp(text) {
    var button = text.parentNode.querySelector(".guanli-expand");
    if (!button || button.getAttribute("aria-expanded") === "true") return;
    text.classList.add("is-clamped");
    var over = text.scrollHeight > text.clientHeight + 1;
    if (!over) text.classList.remove("is-clamped");
    button.hidden = !over;
  }
  var texts = Array.prototype.slice.call(document.querySelectorAll(".g-row .guanli-text"));
  texts.forEach(clamp);
  var resized = null;
  window.addEventListener("resize", function () {
    window.clearTimeout(resized);
    resized = window.setTimeout(function () { texts.forEach(clamp); }, 100);
  });
  document.addEventListener("click", function (e) {
    var button = e.target && e.target.closest && e.target.closest(".guanli-expand");
    if (!button) return;
    var text = document.getElementById(button.getAttribute("aria-controls"));
    var open = button.getAttribute("aria-expanded") !== "true";
    if (!button.dataset.more) button.dataset.more = button.textContent;
    button.setAttribute("aria-expanded", open ? "true" : "false");
    button.textContent = open ? button.dataset.less : button.dataset.more;
    text.classList.toggle("is-clamped", !open);
  });

  function ticked() {
    return document.querySelectorAll('.g-row input[name="ids"]:checked').length;
  }
  function showCount() {
    if (count) count.textContent = "(" + ticked() + ")";
    if (all) all.checked = rows.length > 0 && ticked() === rows.length;
  }
  function focusRow(i) {
    if (!rows.length) return;
    current = Math.max(0, Math.min(rows.length - 1, i));
    rows.forEach(function (r, n) { r.classList.toggle("is-current", n === current); });
    rows[current].focus();
    rows[current].scrollIntoView({ block: "nearest" });
  }
  function act(key) {
    if (current < 0) return;
    var button = rows[current].querySelector('.guanli-act[data-key="' + key + '"]');
    if (button) button.click();
  }

  if (all) all.addEventListener("change", function () {
    rows.forEach(function (r) { r.querySelector('input[name="ids"]').checked = all.checked; });
    showCount();
  });
  document.addEventListener("change", function (e) {
    if (e.target && e.target.name === "ids") showCount();
  });
  rows.forEach(function (r, n) { r.addEventListener("focusin", function () { current = n; }); });

  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (t && (t.tagName === "INPUT" && t.type !== "checkbox" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
    switch (e.key) {
      case "j": focusRow(current + 1); break;
      case "k": focusRow(current - 1); break;
      case "x":
        if (current >= 0) {
          var box = rows[current].querySelector('input[name="ids"]');
          box.checked = !box.checked; showCount();
        }
        break;
      case "a": act("approve"); break;
      case "s": act("spam"); break;
      case "d": act("trash"); break;
      case "?": if (help && help.showModal) { help.showModal(); } break;
      default: return;
    }
    e.preventDefault();
  });
  showCount();
})();
