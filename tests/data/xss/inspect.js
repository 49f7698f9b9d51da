// masthead tests/test_xss.py: the DOM rules of html_problems on the browser's own parse of a
// document (mutation XSS), and a poke: every inline handler gets its own event (inline handlers
// run for synthetic events) and every javascript: link is clicked; other clicks are cancelled, so
// the page stays. `inspectTop()` runs on the top page; `inspectFrames()` on each same-origin
// iframe of a harness page. URLS and SEARCH are defined before this file by the test.
const SCHEME = /^(?:javascript|vbscript|livescript|data):/i;
const HTML_NS = "http://www.w3.org/1999/xhtml";
const FOREIGN = ["http://www.w3.org/2000/svg", "http://www.w3.org/1998/Math/MathML"];
// a formula as content/math.py writes it: <math alttext display> holding MathML elements only,
// none with an event handler or a link (MATHML_TAGS is set by support/xss.py from math.TAGS)
function formula(el) {
  const math = el.closest("math");
  if (!math || el.namespaceURI !== FOREIGN[1] || !MATHML_TAGS.includes(el.localName)) return false;
  if (!math.hasAttribute("alttext") || !["inline", "block"].includes(math.getAttribute("display"))) return false;
  for (const node of [math, ...math.querySelectorAll("*")]) {
    if (node.namespaceURI !== FOREIGN[1] || !MATHML_TAGS.includes(node.localName)) return false;
    for (const a of node.attributes) if (/^on|href|src/i.test(a.name)) return false;
  }
  return true;
}
const BANNED = ["iframe", "frame", "frameset", "object", "embed", "applet", "base", "style",
  "noscript", "xmp", "noembed", "template", "isindex", "portal", "textarea", "select", "keygen"];
const clean = v => v.replace(/[\t\n\r]/g, "").replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, "");
const badUrl = (v, tag, attr) => {
  const u = clean(v);
  return SCHEME.test(u) && !(tag === "img" && attr === "src" && /^data:image\//i.test(u));
};
const snip = el => (el.outerHTML || String(el)).slice(0, 160);
function check(doc) {
  const bad = [];
  for (const el of doc.querySelectorAll("*")) {
    const tag = el.localName.toLowerCase();
    const html = el.namespaceURI === HTML_NS;
    for (const a of Array.from(el.attributes)) {
      const n = a.name.toLowerCase();
      if (n.startsWith("on")) bad.push("event attribute " + n + ": " + snip(el));
      if (n === "srcdoc" || n === "formaction" || n.endsWith(":href")) bad.push("attribute " + n + ": " + snip(el));
      if (URLS.has(n) && badUrl(a.value, tag, n)) bad.push(n + " is a script/data URL: " + snip(el));
      if (n === "srcset" && a.value.split(",").some(c => c.trim() && badUrl(c.trim().split(/\s+/)[0], tag, "srcset")))
        bad.push("srcset has a script/data URL: " + snip(el));
      if (n === "style" && /javascript|expression|url\s*\(|@import|binding/i.test(a.value))
        bad.push("style with a URL or expression: " + snip(el));
    }
    // the comment form (issue 11) and the <template> its script clones, in their own shapes
    // (its action may name the page's own post: /comments?post=/posts/slug/)
    const formOf = el.closest("form.comment-form[method='post']");
    const commentForm = formOf && /^\/comments(\?post=\/[A-Za-z0-9\/%._~-]*)?$/.test(formOf.getAttribute("action") || "") ? formOf : null;
    const themeOwn = (tag === "textarea" && commentForm) ||
      (tag === "template" && el.id === "mh-comment-template" && !el.content.querySelector("script, [src]"));
    if (html && BANNED.includes(tag) && !themeOwn) bad.push("<" + tag + "> element: " + snip(el));
    if (html && tag === "meta" && el.hasAttribute("http-equiv")) bad.push("<meta http-equiv>: " + snip(el));
    if (tag === "script") {
      const src = el.getAttribute("src") || el.getAttribute("href") || "";
      const ok = html && ((el.type === "application/ld+json" && !src) || (src.startsWith("/static/") && !el.textContent.trim()));
      if (!ok) bad.push("<script>: " + snip(el));
    }
    if (html && tag === "form" && !(el.classList.contains("search-form") && SEARCH.includes(el.getAttribute("action"))) && el !== commentForm)
      bad.push("<form>: " + snip(el));
    const onlyMine = el.id === "mh-lang-only" && el.type === "checkbox" && el.attributes.length === 3;
    if (html && tag === "input" && !el.closest("form.search-form") && !commentForm && !(el.type === "checkbox" && el.disabled) && !onlyMine)
      bad.push("<input>: " + snip(el));
    if (html && tag === "link") {
      const rels = (el.getAttribute("rel") || "").toLowerCase().split(/\s+/).filter(Boolean);
      const ok = rels.length && rels.every(r => ["canonical", "alternate", "icon", "stylesheet"].includes(r))
        && (!rels.includes("stylesheet") || (el.getAttribute("href") || "").startsWith("/static/"));
      if (!ok) bad.push("<link>: " + snip(el));
    }
    if (FOREIGN.includes(el.namespaceURI)) {
      const svg = el.closest("svg");
      const icon = svg && svg.getAttribute("aria-hidden") === "true" && ["svg", "circle", "path"].includes(tag);
      if (!icon && !formula(el)) bad.push("svg/math element <" + tag + ">: " + snip(el));
    }
  }
  return bad;
}
let clicked = 0;
// a javascript: URL runs in a task after its click: time for it only when one was clicked
const settle = () => new Promise(r => setTimeout(r, clicked ? 300 : 10));
function poke(doc) {
  const followed = [];
  const cancel = e => {
    const a = e.target.closest && e.target.closest("a[href], area[href]");
    if (!(a && a.protocol === "javascript:")) e.preventDefault();
  };
  doc.addEventListener("click", cancel, true);
  doc.addEventListener("submit", e => e.preventDefault(), true);
  for (const el of Array.from(doc.querySelectorAll("*"))) {
    for (const a of Array.from(el.attributes)) {
      const n = a.name.toLowerCase();
      if (n.startsWith("on")) {
        try { el.dispatchEvent(new Event(n.slice(2), { bubbles: false, cancelable: true })); } catch (e) {}
      }
    }
    if (el.matches && el.matches("a[href], area[href]") && el.protocol === "javascript:") {
      followed.push("javascript: link " + el.href);
      clicked += 1;
      try { el.click(); } catch (e) {}
    }
  }
  if (doc.defaultView) doc.defaultView.scrollTo(0, doc.documentElement.scrollHeight);
  return followed;
}
async function inspectTop() {
  const found = check(document).concat(poke(document));
  await settle();
  return found;
}

// rules false: only poke (a page whose own forms and inputs are not content, the dashboard)
async function inspectFrames(rules) {
  const out = {};
  for (const frame of document.querySelectorAll("iframe")) {
    let doc = null;
    try { doc = frame.contentDocument; } catch (e) {}
    if (!doc) { out[frame.name] = ["not a same-origin document any more (navigated away?)"]; continue; }
    out[frame.name] = (rules ? check(doc) : []).concat(poke(doc));
  }
  await settle();
  const result = {};
  for (const frame of document.querySelectorAll("iframe")) {
    let url = null;
    try { url = frame.contentWindow.location.href; } catch (e) {}
    result[frame.name] = [out[frame.name] || [], url];
  }
  return result;
}
