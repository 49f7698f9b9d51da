// masthead: the light/dark switch. Loaded in <head> without defer (a blocking file, not inline:
// the CSP forbids inline script), so data-theme is on <html> before the first paint: no flash.
// - data-theme="light" | "dark": the reader's choice (localStorage "masthead-theme");
//   data-theme="system": no choice, the system setting (prefers-color-scheme) rules. Either way
//   the attribute says the script runs, and the CSS shows the switch (hidden without script).
// - The switch is one toggle button (aria-pressed: "dark theme on"). A choice equal to the
//   system setting is forgotten, so choosing what the system shows returns to following it.
(function () {
  "use strict";
  var KEY = "masthead-theme";
  var root = document.documentElement;
  var query = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var unsaved = null; // the choice on this page when storage is disabled

  function stored() {
    try {
      var value = window.localStorage.getItem(KEY);
      return value === "light" || value === "dark" ? value : null;
    } catch (e) {
      return unsaved; // storage disabled: the system setting rules, or this page's choice
    }
  }
  function system() {
    return query && query.matches ? "dark" : "light";
  }
  function current() {
    return stored() || system();
  }
  function apply() {
    root.setAttribute("data-theme", stored() || "system");
    var button = document.querySelector(".theme-switch");
    if (button) button.setAttribute("aria-pressed", current() === "dark" ? "true" : "false");
  }
  function choose(theme) {
    try {
      if (theme === system()) window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, theme);
    } catch (e) {
      unsaved = theme === system() ? null : theme; // not remembered, but this page follows
    }
    apply();
  }

  apply();
  if (query && query.addEventListener) query.addEventListener("change", apply);
  window.addEventListener("pageshow", apply); // back from the page cache: the choice may be newer
  window.addEventListener("storage", function (event) {
    if (event.key === KEY || event.key === null) apply(); // another tab chose
  });
  document.addEventListener("DOMContentLoaded", function () {
    var button = document.querySelector(".theme-switch");
    if (!button) return;
    apply();
    button.addEventListener("click", function () {
      choose(current() === "dark" ? "light" : "dark");
    });
  });
})();
