// masthead: progressive enhancement for post pages (no framework, no inline scripts).
// - the bottom-sheet TOC on narrow screens: a modal <dialog>, focus moved in and back,
//   closed by Esc (native), by a link, by the close button, or by a tap outside the panel;
// - the current section highlighted in both TOCs while reading.
(function () {
  "use strict";
  var sheet = document.getElementById("mh-toc-sheet");
  var button = document.querySelector(".toc-button");

  if (sheet && button && typeof sheet.showModal === "function") {
    var opener = null;
    button.addEventListener("click", function () {
      opener = document.activeElement;
      sheet.showModal();
      button.setAttribute("aria-expanded", "true");
      var current = sheet.querySelector("a.is-current") || sheet.querySelector("a");
      if (current) current.focus();
    });
    sheet.addEventListener("close", function () {
      button.setAttribute("aria-expanded", "false");
      (opener || button).focus({ preventScroll: true });
    });
    sheet.querySelector(".toc-sheet__close").addEventListener("click", function () {
      sheet.close();
    });
    sheet.addEventListener("click", function (event) {
      if (event.target === sheet) sheet.close(); // the backdrop: outside the panel
      var link = event.target.closest && event.target.closest("a[href^='#']");
      if (link) {
        event.preventDefault();
        sheet.close();
        var id = decodeURIComponent(link.getAttribute("href").slice(1));
        var target = document.getElementById(id);
        if (target) {
          target.scrollIntoView();
          history.pushState(null, "", "#" + encodeURIComponent(id));
          target.setAttribute("tabindex", "-1");
          target.focus({ preventScroll: true });
        }
      }
    });
  }

  var links = document.querySelectorAll(".toc a[href^='#']");
  if (!links.length || !("IntersectionObserver" in window)) return;
  var byId = {};
  links.forEach(function (a) {
    var id = decodeURIComponent(a.getAttribute("href").slice(1));
    (byId[id] = byId[id] || []).push(a);
  });
  var headings = Object.keys(byId)
    .map(function (id) { return document.getElementById(id); })
    .filter(Boolean);
  var visible = new Set();
  function mark(id) {
    links.forEach(function (a) { a.classList.remove("is-current"); a.removeAttribute("aria-current"); });
    (byId[id] || []).forEach(function (a) { a.classList.add("is-current"); a.setAttribute("aria-current", "location"); });
  }
  function update() {
    // the last heading above the reading line is the current section
    var line = window.innerHeight * 0.25;
    var current = headings[0];
    for (var i = 0; i < headings.length; i++) {
      if (headings[i].getBoundingClientRect().top - line <= 0) current = headings[i];
      else break;
    }
    if (current) mark(current.id);
  }
  var observer = new IntersectionObserver(function (entries) {
    entries.forEach(function (e) { if (e.isIntersecting) visible.add(e.target); else visible.delete(e.target); });
    update();
  }, { rootMargin: "0px 0px -60% 0px" });
  headings.forEach(function (h) { observer.observe(h); });
  window.addEventListener("scroll", function () { window.requestAnimationFrame(update); }, { passive: true });
  update();
})();
