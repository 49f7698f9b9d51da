// masthead: the search page of an exported site with no masthead behind it (`masthead build`
// without api_url). It searches the export's own index (/search-index/, export/search_index.py)
// for ?q=, in every language of the site, and draws the hits as the live search page does:
// title, date, language and a snippet with the words marked. `lang:zh` and `tag:name` in the
// query, or the lang= and tag= parameters (the form's two lists), keep only those posts;
// `-word` leaves out the posts with it. A query fetches the index's small description, the shard
// of each of its words (and a word's own file when its list is long) and the posts it shows.
// Without script the page says that search on this copy needs JavaScript (a <noscript> note).
(function () {
  "use strict";
  var root = document.getElementById("mh-static-search");
  if (!root || !window.fetch || !window.URLSearchParams || !window.TextEncoder) return;
  var PER_PAGE = 10;
  var H = "\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff"; // search/segment.py's HAN
  var HAN = new RegExp("[" + H + "]+", "g");
  // what FTS5's unicode61 tokenizer keeps in a token: letters, numbers, private use
  var TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;
  var DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVabcdefghijklmnopqrstuvwxyz_-WXYZ";
  var form = root.querySelector("form");
  var input = form.elements.q;
  var prompt = root.querySelector(".search-prompt");
  var panel = root.querySelector(".search-results");
  var count = root.querySelector(".list__count");
  var list = root.querySelector(".search-hits");
  var base = root.getAttribute("data-index");
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

  // --- the index -------------------------------------------------------------------------------
  var meta = null;
  var shards = {};
  function get(path, json) {
    return fetch(base + path + "?v=" + meta.version).then(function (r) {
      if (!r.ok) throw new Error(path + ": " + r.status);
      return json ? r.json() : r.text();
    });
  }
  function fnv1a(text) { // export/search_index.py fnv1a: of the UTF-8 bytes
    var h = 0x811c9dc5;
    new TextEncoder().encode(text).forEach(function (b) {
      h = Math.imul(h ^ b, 0x01000193) >>> 0;
    });
    return h;
  }
  function decode(text) { // export/search_index.py decode
    var out = [], last = -1, gap = 0;
    for (var i = 0; i < text.length; i++) {
      var d = DIGITS.indexOf(text.charAt(i));
      gap = gap * 32 + (d & 31);
      if (d < 32) { last += gap; out.push(last); gap = 0; }
    }
    return out;
  }
  function shard(key) {
    var n = fnv1a(key) % meta.shards;
    if (!shards[n]) shards[n] = get("s/" + n + ".json", true);
    return shards[n];
  }
  // the posts holding the term `key` (sorted numbers); a word as typed leads to its stem
  async function posts(key, hops) {
    var entry = (await shard(key))[key];
    if (entry === undefined) return [];
    if (Array.isArray(entry)) return hops ? [] : posts(entry[0], 1);
    if (typeof entry === "number") entry = await get("t/" + entry + ".txt", false);
    return decode(entry);
  }
  function both(a, b) {
    var out = [], i = 0, j = 0;
    while (i < a.length && j < b.length) {
      if (a[i] === b[j]) { out.push(a[i]); i++; j++; } else if (a[i] < b[j]) i++; else j++;
    }
    return out;
  }
  function either(a, b) {
    var seen = {};
    a.concat(b).forEach(function (n) { seen[n] = true; });
    return Object.keys(seen).map(Number).sort(function (x, y) { return x - y; });
  }
  async function all(lists) {
    lists = await Promise.all(lists);
    return lists.reduce(both);
  }
  // a Han run: the run as one term (a word jieba kept whole), or every bigram of it (each Han
  // string of two characters or more that a post holds is the phrase of its bigrams there)
  async function han(run) {
    if (run.length < 2) return posts(run);
    var grams = [];
    for (var i = 0; i + 1 < run.length; i++) grams.push(posts(run.substr(i, 2)));
    var whole = await posts(run);
    return either(whole, await all(grams));
  }
  function folded(text) { // unicode61 with remove_diacritics: lower case, no combining marks
    return text.normalize("NFKC").normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
  }
  // what one typed word needs: its Han runs and its other tokens, all of them
  function needs(word) {
    var text = folded(word);
    var parts = (text.match(HAN) || []).map(han);
    (text.replace(HAN, " ").match(TOKEN) || []).forEach(function (token) {
      parts.push(posts(token));
    });
    return parts;
  }
  // the site's code of a language named by its code or its BCP 47 tag (`zh-Hans`: `zh`)
  function language(name) {
    var lower = name.toLowerCase();
    return Object.keys(languages).filter(function (code) {
      return code.toLowerCase() === lower || (languages[code].hreflang || "").toLowerCase() === lower;
    })[0] || name;
  }
  // the posts matching `text` and `filters`, newest first; null when there is nothing to match
  async function find(text, filters) {
    var wanted = [], unwanted = [];
    (text.match(/-?"[^"]*"|\S+/g) || []).forEach(function (word) {
      var minus = word.charAt(0) === "-" && word.length > 1;
      var parts = needs(minus ? word.slice(1) : word);
      if (minus) unwanted.push(all(parts));
      else wanted = wanted.concat(parts);
    });
    if (filters.lang) wanted.push(posts("lang:" + language(filters.lang)));
    if (filters.tag) wanted.push(posts("tag:" + filters.tag.toLowerCase()));
    if (!wanted.length) return null;
    var found = await all(wanted);
    var gone = {};
    (await Promise.all(unwanted)).forEach(function (l) { l.forEach(function (n) { gone[n] = 1; }); });
    return found.filter(function (n) { return !gone[n]; }).reverse();
  }

  // --- the page --------------------------------------------------------------------------------
  function element(name, className, parent) {
    var el = document.createElement(name);
    if (className) el.className = className;
    parent.appendChild(el);
    return el;
  }
  function say(message) {
    panel.hidden = false;
    count.textContent = message;
  }
  function local(url) {
    return typeof url === "string" && url.charAt(0) === "/" && url.charAt(1) !== "/";
  }
  // where the query's words are in `text`: Han runs as they are (else their pairs of characters),
  // other words at a word's start
  function marker(text) {
    var han = (folded(text).match(HAN) || []);
    var latin = (folded(text.replace(HAN, " ")).match(TOKEN) || []).map(function (w) {
      return w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    });
    var parts = han.slice();
    han.forEach(function (run) { // the run's pairs, where the post has them apart (a superset)
      for (var i = 0; run.length > 2 && i + 1 < run.length; i++) parts.push(run.substr(i, 2));
    });
    if (latin.length) parts.push("(?<![\\p{L}\\p{N}])(?:" + latin.join("|") + ")[\\p{L}\\p{N}]*");
    return parts.length ? new RegExp(parts.join("|"), "giu") : null;
  }
  // a snippet of `text` around the first of the query's words, those marked
  function snippet(text, find, into) {
    text = text.replace(/\s+/g, " ");
    var first = find ? text.search(find) : -1;
    var start = Math.max(0, first - 60);
    if (first < 0) start = 0;
    var end = Math.min(text.length, start + 220);
    while (start > 0 && /\S/.test(text.charAt(start - 1)) && first - start < 90) start--;
    var piece = (start > 0 ? "…" : "") + text.slice(start, end) + (end < text.length ? "…" : "");
    var at = 0;
    if (find) {
      piece.replace(find, function (match, offset) {
        into.appendChild(document.createTextNode(piece.slice(at, offset)));
        element("mark", "", into).textContent = match;
        at = offset + match.length;
        return match;
      });
    }
    into.appendChild(document.createTextNode(piece.slice(at)));
  }
  // a list of the form: "all", then `keys` (the site's languages, or the tags of the posts
  // shown and the one chosen: what the page has already fetched, so it costs no request)
  function fill(select, name, keys, allOf) {
    if (!keys.length) return;
    select.textContent = "";
    element("option", "", select).value = "";
    select.firstChild.textContent = allOf;
    keys.forEach(function (key) {
      var option = element("option", "", select);
      option.value = key;
      option.textContent = name === "lang" && languages[key] ? languages[key].name : key;
      option.selected = key === chosen[name];
    });
    select.hidden = false;
  }
  function hit(data, find) {
    if (!local(data.url)) return;
    var language = languages[data.lang] || { name: data.lang || "", hreflang: "" };
    var other = language.hreflang && language.hreflang.toLowerCase() !== here;
    var article = element("article", "hit", list);
    var link = element("a", "", element("h2", "hit__title", article));
    link.href = data.url;
    if (language.hreflang) link.setAttribute("hreflang", language.hreflang);
    if (other) link.setAttribute("lang", language.hreflang);
    link.textContent = data.title || data.url;
    var meta = element("p", "hit__meta", article);
    element("time", "", meta).textContent = data.date || "";
    meta.appendChild(document.createTextNode(" · "));
    var name = element("span", "", meta);
    name.textContent = language.name;
    if (language.hreflang) name.setAttribute("lang", language.hreflang);
    var text = element("p", "hit__snippet", article);
    if (other) text.setAttribute("lang", language.hreflang);
    snippet(data.text || "", find, text);
  }

  async function start() {
    var r = await fetch(base + "index.json", { cache: "no-cache" });
    if (!r.ok) throw new Error("index.json: " + r.status);
    meta = await r.json();
    // what bench/bench_static_search.py measures: every result of a query (post numbers)
    window.mastheadStaticSearch = function (text, filters) {
      return find(text, filters || {}).then(function (found) { return found || []; });
    };
  }

  if (!q && !chosen.lang && !chosen.tag) prompt.hidden = false;
  start()
    .then(async function () {
      fill(form.elements.lang, "lang", Object.keys(languages), root.getAttribute("data-all-languages"));
      var text = words.join(" ");
      var results = await find(text, chosen);
      if (results === null) return;
      var n = results.length;
      if (!n) return say(root.getAttribute("data-no-results"));
      say(n === 1 ? root.getAttribute("data-n-results-one") : root.getAttribute("data-n-results").replace("{n}", n));
      var marks = marker(text.replace(/(^|\s)-\S+/g, " "));
      var shown = 0;
      var tags = chosen.tag ? [chosen.tag] : [];
      async function more() {
        var next = results.slice(shown, shown + PER_PAGE);
        shown += next.length;
        var pages = await Promise.all(next.map(function (p) { return get("d/" + p + ".json", true); }));
        pages.forEach(function (data) {
          hit(data, marks);
          (data.tags || []).forEach(function (tag) { // for the tag list
            if (tags.indexOf(tag) < 0) tags.push(tag);
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
