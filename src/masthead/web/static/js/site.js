// masthead: progressive enhancement for post pages (no framework, no inline scripts).
// - the bottom-sheet TOC on narrow screens: a modal <dialog>, focus moved in and back,
//   closed by Esc (native), by a link, by the close button, or by a tap outside the panel;
// - the TOC button moves out of the way while the reader scrolls down, back on scrolling up;
// - the current section highlighted in both TOCs while reading;
// - a copy button on each code block, announcing "Copied" in a live region;
// - on an exported page (the `api_url` setting: the form has data-api), search results are
//   fetched from that masthead's /api/search (CORS) and shown here; without script, with no
//   hit, or when the fetch fails, the form goes to that masthead's search page instead.
(function () {
  "use strict";
  var form = document.querySelector("form.search-form[data-api]");
  var main = document.getElementById("mh-main");
  if (!form || !main || !window.fetch || !window.DOMParser) return;
  var api = form.getAttribute("data-api");
  var button = form.querySelector("button");
  var label = (button && button.getAttribute("aria-label")) || "Search";

  // escaped text with <mark> (the API's *_html fields): rebuilt from text nodes and <mark>s only
  function marked(html) {
    var out = document.createDocumentFragment();
    var doc = new DOMParser().parseFromString("<p>" + html + "</p>", "text/html");
    doc.body.firstChild.childNodes.forEach(function (node) {
      var piece = node.nodeName === "MARK" ? document.createElement("mark") : null;
      if (piece) piece.textContent = node.textContent;
      out.appendChild(piece || document.createTextNode(node.textContent));
    });
    return out;
  }
  function element(name, className, parent) {
    var el = document.createElement(name);
    if (className) el.className = className;
    parent.appendChild(el);
    return el;
  }
  function show(q, data) {
    var old = document.getElementById("mh-search-inline");
    if (old) old.remove();
    var box = document.createElement("section");
    box.id = "mh-search-inline";
    box.className = "search-results search-inline";
    var heading = element("h2", "list__title", box);
    heading.textContent = label + ": " + q;
    heading.tabIndex = -1;
    data.hits.forEach(function (hit) {
      if (typeof hit.url !== "string" || hit.url.charAt(0) !== "/" || hit.url.charAt(1) === "/") return;
      var article = element("article", "hit", box);
      var link = element("a", "", element("h3", "hit__title", article));
      link.href = hit.url; // this site's own path: the exported copy of the page
      link.appendChild(marked(hit.title_html));
      element("p", "hit__snippet", article).appendChild(marked(hit.snippet_html));
    });
    var more = element("a", "search-inline__more", element("p", "", box));
    more.href = form.action + "?q=" + encodeURIComponent(q);
    more.textContent = label + " →";
    main.insertBefore(box, main.firstChild);
    heading.focus();
  }
  form.addEventListener("submit", function (event) {
    var q = form.elements.q.value.trim();
    if (!q) return;
    event.preventDefault();
    fetch(api + "/api/search?q=" + encodeURIComponent(q), { credentials: "omit" })
      .then(function (r) {
        if (!r.ok) throw new Error("search answered " + r.status);
        return r.json();
      })
      .then(function (data) {
        if (!data.hits || !data.hits.length) throw new Error("no hit");
        show(q, data);
      })
      .catch(function () { form.submit(); }); // that masthead's search page says why
  });
})();

(function () {
  "use strict";
  var sheet = document.getElementById("mh-toc-sheet");
  var button = document.querySelector(".toc-button");

  if (sheet && button && typeof sheet.showModal === "function") {
    var opener = null;
    var sheetToc = sheet.querySelector("nav.toc");
    var railList = document.querySelector("#mh-toc > ol");
    button.addEventListener("click", function () {
      opener = document.activeElement;
      // the sheet's TOC is the rail's, copied on first use (with its current section marked)
      if (sheetToc && railList && !sheetToc.firstElementChild) sheetToc.appendChild(railList.cloneNode(true));
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

  if (button) {
    // reading down: the button would cover the text, so it tucks away; scrolling up (looking
    // for something) brings it back. site.css keeps it shown while it has keyboard focus.
    // the start is read at the first scroll, not here: reading scrollY while the page loads
    // lays out the whole page inside this script (LH2: Lighthouse's longest task)
    var lastY = null;
    window.addEventListener("scroll", function () {
      var y = window.scrollY;
      if (lastY === null) lastY = y;
      if (Math.abs(y - lastY) < 8) return;
      button.classList.toggle("is-tucked", y > lastY && y > 64);
      lastY = y;
    }, { passive: true });
    // past the article (the comments, their headings and form, the footer) the contents are
    // behind the reader and the button would sit on a heading or a form control: it steps
    // away while any of them is on screen (site.css; it still comes back on keyboard focus)
    var after = document.querySelectorAll("#mh-comments, .site-footer");
    if (after.length && "IntersectionObserver" in window) {
      var onScreen = [];
      var away = new IntersectionObserver(function (entries) {
        entries.forEach(function (e) {
          var at = onScreen.indexOf(e.target);
          if (e.isIntersecting && at < 0) onScreen.push(e.target);
          if (!e.isIntersecting && at >= 0) onScreen.splice(at, 1);
        });
        button.classList.toggle("is-away", onScreen.length > 0);
      });
      after.forEach(function (el) { away.observe(el); });
    }
  }

  var links = document.querySelectorAll(".toc a[href^='#']");
  if (!links.length || !("IntersectionObserver" in window)) return;
  function target(a) { return decodeURIComponent(a.getAttribute("href").slice(1)); }
  var seen = {};
  var headings = [];
  links.forEach(function (a) {
    var id = target(a);
    var heading = !seen[id] && document.getElementById(id);
    seen[id] = true;
    if (heading) headings.push(heading);
  });
  var visible = new Set();
  var marked = null;
  function mark(id) {
    if (id === marked) return;
    marked = id;
    // both TOCs, the sheet's once it is copied
    document.querySelectorAll(".toc a[href^='#']").forEach(function (a) {
      if (target(a) === id) {
        a.classList.add("is-current");
        a.setAttribute("aria-current", "location");
      } else {
        a.classList.remove("is-current");
        a.removeAttribute("aria-current");
      }
    });
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
  // the observer's first callback, after the first layout, marks the first section: a call
  // here would read the layout of a page still being laid out and force it (LH: the longest
  // task of a post's load)
  headings.forEach(function (h) { observer.observe(h); });
  window.addEventListener("scroll", function () { window.requestAnimationFrame(update); }, { passive: true });
})();

(function () {
  "use strict";
  // copy buttons on code blocks: added here, so their words are never part of the page's HTML
  // (nor its search text); the post gives them in its language (data-copy, data-copied).
  var blocks = document.querySelectorAll(".code-block");
  var article = document.querySelector("article[data-copy]");
  if (!blocks.length || !article) return;
  var copyText = article.getAttribute("data-copy");
  var copiedText = article.getAttribute("data-copied");
  var status = document.createElement("p");
  status.className = "code-copy-status visually-hidden";
  status.setAttribute("role", "status");
  article.appendChild(status);

  function write(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) { // plain http: the older selection copy
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "visually-hidden";
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand("copy");
      area.remove();
      if (ok) resolve(); else reject(new Error("copy refused"));
    });
  }
  blocks.forEach(function (block) {
    var pre = block.querySelector("pre");
    if (!pre) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "code-copy";
    button.textContent = copyText;
    var timer = null;
    button.addEventListener("click", function () {
      var code = pre.cloneNode(true); // without the line numbers (content/highlight.py)
      code.querySelectorAll(".ln").forEach(function (n) { n.remove(); });
      write(code.textContent).then(function () {
        button.textContent = copiedText;
        status.textContent = copiedText;
        clearTimeout(timer);
        timer = setTimeout(function () {
          button.textContent = copyText;
          status.textContent = "";
        }, 2500);
      });
    });
    block.appendChild(button);
  });
})();
