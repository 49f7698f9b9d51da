// masthead: the search page of an exported site with no masthead behind it (`masthead build`
// without api_url). It searches the export's Pagefind index (/pagefind/, export/search_index.py)
// for ?q=, in every language of the site, and draws the hits as the live search page does:
// title, date, language and a snippet with the words marked. `lang:zh` and `tag:name` in the
// query, or the lang= and tag= parameters (the form's two lists), keep only those posts.
// Pagefind runs as WebAssembly (the CSP allows 'wasm-unsafe-eval' on such an export). Without
// script the page says that search on this copy needs JavaScript (a <noscript> note).
(function () {
  "use strict";
  var root = document.getElementById("mh-static-search");
  if (!root || !window.fetch || !window.DOMParser || !window.URLSearchParams) return;
  var PER_PAGE = 10;
  // the index has each Han character as a word (a space between them: export/search_index.py);
  // a Han run of the query is found as the phrase of its characters, wherever a post holds it
  var H = "\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff";
  var HAN = new RegExp("[" + H + "]+", "g");
  var P = "\\u2010-\\u2027\\u3000-\\u303f\\uff00-\\uffef"; // CJK and general punctuation
  var MARKS = "((?:</?mark>)*) ((?:</?mark>)*)";
  // a space the index added: between Han characters, and from punctuation and digits beside one
  var AFTER_HAN = new RegExp("([" + H + "])" + MARKS + "(?=[" + H + P + "0-9])", "g");
  var BEFORE_HAN = new RegExp("([" + P + "0-9])" + MARKS + "(?=[" + H + "])", "g");
  var PAIR = new RegExp("([" + H + "])(?=[" + H + "])", "g");
  function joined(text) { // the indexed text as the page has it (but for spaces beside letters)
    return text.replace(AFTER_HAN, "$1$2$3").replace(BEFORE_HAN, "$1$2$3").trim();
  }
  var form = root.querySelector("form");
  var input = form.elements.q;
  var prompt = root.querySelector(".search-prompt");
  var panel = root.querySelector(".search-results");
  var count = root.querySelector(".list__count");
  var list = root.querySelector(".search-hits");
  var bundle = root.getAttribute("data-bundle");
  var languages = JSON.parse(root.getAttribute("data-languages") || "{}");
  var here = (document.documentElement.getAttribute("lang") || "").toLowerCase();

  var params = new URLSearchParams(location.search);
  var q = (params.get("q") || "").trim();
  var chosen = { lang: params.get("lang") || "", tag: params.get("tag") || "" };
  input.value = q;
  // the live search's filter words: lang:CODE and tag:NAME (tag:"two words")
  var words = [];
  (q.match(/\S+:"[^"]*"|"[^"]*"|\S+/g) || []).forEach(function (word) {
    var m = /^(lang|tag):(.+)$/i.exec(word);
    if (m) chosen[m[1].toLowerCase()] = m[2].replace(/^"|"$/g, "");
    else words.push(word);
  });
  var text = words.join(" ");

  function element(name, className, parent) {
    var el = document.createElement(name);
    if (className) el.className = className;
    parent.appendChild(el);
    return el;
  }
  // Pagefind's excerpt: escaped text with <mark>; rebuilt from text nodes and <mark>s only
  function marked(html) {
    var out = document.createDocumentFragment();
    var doc = new DOMParser().parseFromString("<p>" + joined(html) + "</p>", "text/html");
    doc.body.firstChild.childNodes.forEach(function (node) {
      var piece = node.nodeName === "MARK" ? document.createElement("mark") : null;
      if (piece) piece.textContent = node.textContent;
      out.appendChild(piece || document.createTextNode(node.textContent));
    });
    return out;
  }
  function local(url) {
    return typeof url === "string" && url.charAt(0) === "/" && url.charAt(1) !== "/";
  }
  function say(message) {
    panel.hidden = false;
    count.textContent = message;
  }
  // a list of the form: "all", then `keys` (the site's languages, or the tags of the posts
  // shown and the one chosen: what the page has already fetched, so it costs no request)
  function fill(select, name, keys, all) {
    if (!keys.length) return;
    select.textContent = "";
    element("option", "", select).value = "";
    select.firstChild.textContent = all;
    keys.forEach(function (key) {
      var option = element("option", "", select);
      option.value = key;
      option.textContent = name === "lang" && languages[key] ? languages[key].name : key;
      option.selected = key === chosen[name];
    });
    select.hidden = false;
  }
  function hit(data) {
    if (!local(data.url)) return;
    var filters = data.filters || {};
    var code = (filters.lang || [])[0];
    var language = languages[code] || { name: code || "", hreflang: "" };
    var article = element("article", "hit", list);
    var link = element("a", "", element("h2", "hit__title", article));
    link.href = data.url;
    if (language.hreflang) {
      link.setAttribute("hreflang", language.hreflang);
      if (language.hreflang.toLowerCase() !== here) link.setAttribute("lang", language.hreflang);
    }
    link.textContent = joined((data.meta && data.meta.title) || data.url);
    var meta = element("p", "hit__meta", article);
    element("time", "", meta).textContent = joined((data.meta && data.meta.date) || "");
    meta.appendChild(document.createTextNode(" · "));
    var name = element("span", "", meta);
    name.textContent = language.name;
    if (language.hreflang) name.setAttribute("lang", language.hreflang);
    var snippet = element("p", "hit__snippet", article);
    if (language.hreflang && language.hreflang.toLowerCase() !== here) {
      snippet.setAttribute("lang", language.hreflang);
    }
    snippet.appendChild(marked(data.excerpt || ""));
  }

  function spaced(run) {
    return Array.from(run).join(" ");
  }
  function searches(query) {
    var phrases = (query.match(HAN) || []).map(function (run) {
      return run.length > 1 ? '"' + spaced(run) + '"' : run;
    });
    var rest = query.replace(HAN, " ").replace(/"/g, " ").replace(/\s+/g, " ").trim();
    return (rest ? [rest] : []).concat(phrases);
  }
  // every search's results, in the first one's order, that all the others found too
  async function find(pagefind, query, filters) {
    var parts = query ? searches(query) : [null];
    var all = await Promise.all(parts.map(function (part) {
      return pagefind.search(part, { filters: filters });
    }));
    var results = all[0].results;
    all.slice(1).forEach(function (other) {
      var ids = {};
      other.results.forEach(function (r) { ids[r.id] = true; });
      results = results.filter(function (r) { return ids[r.id]; });
    });
    return results;
  }

  async function start() {
    var pagefind = await import(bundle + "pagefind.js");
    // in this thread: no worker script to fetch besides pagefind.js
    await pagefind.options({ basePath: bundle, excerptLength: 30, noWorker: true });
    // what bench/bench_static_search.py measures: every result (Pagefind's) of a query
    window.mastheadStaticSearch = function (query, filters) {
      return find(pagefind, query, filters || {});
    };
    return pagefind;
  }

  if (!q && !chosen.lang && !chosen.tag) {
    prompt.hidden = false;
  }
  start()
    .then(async function (pagefind) {
      var allLanguages = root.getAttribute("data-all-languages");
      fill(form.elements.lang, "lang", Object.keys(languages), allLanguages);
      if (!q && !chosen.lang && !chosen.tag) return;
      var filters = {};
      if (chosen.lang) filters.lang = chosen.lang;
      if (chosen.tag) filters.tag = chosen.tag.replace(PAIR, "$1 ");
      var results = await find(pagefind, text, filters);
      var n = results.length;
      if (!n) return say(root.getAttribute("data-no-results"));
      say(n === 1 ? root.getAttribute("data-n-results-one") : root.getAttribute("data-n-results").replace("{n}", n));
      var shown = 0;
      var tags = chosen.tag ? [chosen.tag] : [];
      async function more() {
        var next = results.slice(shown, shown + PER_PAGE);
        shown += next.length;
        var pages = await Promise.all(next.map(function (r) { return r.data(); }));
        pages.forEach(hit);
        pages.forEach(function (data) { // their tags, for the tag list
          ((data.filters || {}).tag || []).forEach(function (tag) {
            if (tags.indexOf(joined(tag)) < 0) tags.push(joined(tag));
          });
        });
        fill(form.elements.tag, "tag", tags.sort(), root.getAttribute("data-all-tags"));
        var old = root.querySelector(".search-more");
        if (old) old.parentNode.remove();
        if (shown < n) {
          var button = element("button", "search-more", element("p", "", panel));
          button.type = "button";
          button.textContent = root.getAttribute("data-more") + " →";
          button.addEventListener("click", more);
        }
      }
      await more();
    })
    .catch(function () {
      say(root.getAttribute("data-failed"));
    });
})();
