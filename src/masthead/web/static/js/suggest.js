// masthead: search suggestions as the reader types, in every search form (the header's and the
// search page's). The box becomes a WAI-ARIA 1.2 combobox with a listbox popup
// (https://www.w3.org/WAI/ARIA/apg/patterns/combobox/): Down/Up move through the posts found,
// Enter opens the one selected (or submits the form when none is), Escape closes the list, a
// click opens a post. Requests wait until typing pauses (DELAY ms), the last one only counts,
// and they ask /api/search with suggest=1: not recorded in the search log. The query the reader
// settles on is recorded once: by the search page when the form is sent, or by one plain
// /api/search request when a suggestion is opened. Without script the form works as before. An
// export with no masthead behind it (the form has data-static) has no suggestions.
(function () {
  "use strict";
  if (!window.fetch || !window.AbortController) return;
  var DELAY = 200; // ms of quiet typing before asking
  var MIN = 2; // characters before asking
  var LIMIT = 6; // suggestions shown
  var PREFIX = 3; // letters a prefix needs (the server reads a shorter one as a plain word)

  function local(url) {
    // this site's own path (exported pages: the exported copy), never another host
    return typeof url === "string" && url.charAt(0) === "/" && url.charAt(1) !== "/";
  }

  // the query asked for: the word being typed as a prefix (`kube` finds Kubelet) unless it is
  // a filter, a phrase, an operator or Chinese (searched as typed: see the search help); a
  // word still too short for a prefix is left out while others come before it
  function typed(q) {
    var words = q.split(/\s+/);
    var last = words.pop();
    if (/[:"*()]/.test(last) || last === "OR" || /\p{Script=Han}/u.test(last)) return q;
    if (!/[\p{L}\p{N}]$/u.test(last)) return q;
    if ((last.match(/[\p{L}\p{N}]/gu) || []).length >= PREFIX) return q + "*";
    return words.length ? words.join(" ") : q;
  }

  function setup(form, index) {
    var input = form.querySelector("input[name=q]");
    if (!input) return;
    var api = (form.getAttribute("data-api") || "") + "/api/search";
    var listId = (input.id || "mh-search-" + index) + "-suggestions";
    var list = document.createElement("ul");
    list.id = listId;
    list.className = "search-suggest";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", form.getAttribute("data-suggest") || "Suggestions");
    list.hidden = true;
    var status = document.createElement("p");
    status.className = "visually-hidden";
    status.setAttribute("role", "status");
    form.appendChild(list);
    form.appendChild(status);
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", listId);
    input.setAttribute("autocomplete", "off");

    var timer = 0;
    var pending = null; // the AbortController of the request in flight
    var shown = []; // the hits listed: {url, title}
    var active = -1;
    var counted = form.getAttribute("data-suggest-count") || "{n}";

    function close() {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      active = -1;
    }
    function place() {
      // under the box, moved left or right just enough to stay inside the viewport
      // (CSSOM, which the CSP allows: no style attribute in the markup)
      list.style.left = "0px";
      var margin = 8;
      var from = form.getBoundingClientRect().left;
      var width = list.getBoundingClientRect().width;
      var left = Math.max(margin, Math.min(from, window.innerWidth - margin - width));
      list.style.left = Math.round(left - from) + "px";
    }
    function open() {
      if (!shown.length) return;
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
      place();
    }
    function select(i) {
      var options = list.children;
      if (!options.length) return;
      active = (i + options.length) % options.length;
      for (var k = 0; k < options.length; k++) {
        options[k].setAttribute("aria-selected", k === active ? "true" : "false");
      }
      input.setAttribute("aria-activedescendant", options[active].id);
      options[active].scrollIntoView({ block: "nearest" });
    }
    function render(hits) {
      shown = hits.filter(function (h) { return local(h.url) && typeof h.title === "string"; });
      list.textContent = "";
      shown.forEach(function (hit, i) {
        var option = document.createElement("li");
        option.id = listId + "-" + i;
        option.setAttribute("role", "option");
        option.setAttribute("aria-selected", "false");
        option.textContent = hit.title;
        if (typeof hit.lang === "string" && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(hit.lang)) {
          option.setAttribute("lang", hit.lang); // its font stack (a Chinese title on an English page)
        }
        option.addEventListener("mousedown", function (e) { e.preventDefault(); }); // keep focus
        option.addEventListener("click", function () { go(i); });
        list.appendChild(option);
      });
      active = -1;
      input.removeAttribute("aria-activedescendant");
      status.textContent = shown.length ? counted.replace("{n}", String(shown.length)) : "";
      if (shown.length) open();
      else close();
    }
    function ask(q) {
      if (pending) pending.abort();
      pending = new AbortController();
      var url = api + "?q=" + encodeURIComponent(typed(q)) + "&per_page=" + LIMIT + "&suggest=1";
      fetch(url, { credentials: "omit", signal: pending.signal })
        .then(function (r) {
          if (!r.ok) throw new Error("search answered " + r.status);
          return r.json();
        })
        .then(function (data) {
          if (input.value.trim() !== q || document.activeElement !== input) return; // stale
          render(Array.isArray(data.hits) ? data.hits : []);
        })
        .catch(function () {}); // aborted, offline: the form still works
    }
    function go(i) {
      var hit = shown[i];
      if (!hit) return;
      var q = input.value.trim();
      // the query the reader settled on, recorded once (the suggestion requests were not)
      fetch(api + "?q=" + encodeURIComponent(q) + "&per_page=1", { credentials: "omit", keepalive: true })
        .catch(function () {});
      close();
      window.location.assign(hit.url);
    }

    function changed(e) {
      if (e.isComposing) return; // an input method is still composing (pinyin): wait for it
      window.clearTimeout(timer);
      var q = input.value.trim();
      if (q.length < MIN) {
        if (pending) pending.abort();
        shown = [];
        list.textContent = "";
        status.textContent = "";
        close();
        return;
      }
      timer = window.setTimeout(function () { ask(q); }, DELAY);
    }
    input.addEventListener("input", changed);
    input.addEventListener("compositionend", changed);
    input.addEventListener("keydown", function (e) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        if (!shown.length) return;
        e.preventDefault();
        if (list.hidden) open();
        select(e.key === "ArrowDown" ? active + 1 : (active < 0 ? -1 : active - 1));
      } else if (e.key === "Enter") {
        if (!list.hidden && active >= 0) {
          e.preventDefault();
          go(active);
        } else close();
      } else if (e.key === "Escape") {
        if (!list.hidden) {
          e.preventDefault(); // the first Escape closes the list, the next clears the box
          close();
        }
      }
    });
    input.addEventListener("blur", close);
    window.addEventListener("resize", function () { if (!list.hidden) place(); });
    form.addEventListener("submit", function () {
      window.clearTimeout(timer);
      if (pending) pending.abort();
      close();
    });
  }

  // not on an export with no masthead behind it (data-static): no /api/search to ask
  document.querySelectorAll("form.search-form:not([data-static])").forEach(setup);
})();
