// masthead: comments, better with script (the form works without it: POST /comments, 303).
// - the notice after a form post, read from the ?c=<status>-<id> parameter (never in the page);
// - this browser's own pending comments, from the uncached /api/comments/mine (signed cookie);
// - the form posts to the JSON API and shows the result in place; sending is disabled on the
//   first submit, whether by click or by Ctrl/Cmd+Enter (C37); the text is kept on an error;
// - the fill time (comments_min_seconds) is measured from when the form was first shown;
// - reply links move the form under the comment; the "only my language" choice is remembered;
// - name, email and website come back from the "remember me" cookie the server set.
(function () {
  "use strict";
  // the post page only: the small comment pages (reply, error) post the plain form
  var section = document.getElementById("mh-comments");
  var form = section && section.querySelector("form.comment-form");
  if (!form || !window.fetch || !window.DOMParser || !window.URLSearchParams) return;
  section.classList.add("is-scripted");
  var api = form.getAttribute("data-api") || "/api/comments";
  var postUrl = form.elements.post.value;
  var button = form.querySelector(".comment-form__submit");
  var status = form.querySelector(".comment-form__status");
  var notice = document.getElementById("mh-comment-notice");
  var pendingText = (document.querySelector(".comment-notice--pending") || {}).firstChild;
  var pendingLabel = document.querySelector("#mh-comment-template .comment__pending");
  var formHome = document.getElementById("c-form");
  var formParent = formHome && formHome.parentNode;
  var formNext = formHome && formHome.nextSibling;
  var texts = {
    pending: pendingText ? pendingText.textContent.trim() : "",
    approved: section.getAttribute("data-notice-approved") || "",
    failed: section.getAttribute("data-failed") || "",
    network: section.getAttribute("data-network") || "",
    tooLarge: section.getAttribute("data-too-large") || "",
    send: button ? button.textContent : "",
    sending: button ? button.getAttribute("data-sending") || "" : ""
  };
  var shownAt = null;
  var sending = false;

  function cookie(name) {
    var parts = document.cookie ? document.cookie.split("; ") : [];
    for (var i = 0; i < parts.length; i++) {
      var eq = parts[i].indexOf("=");
      if (parts[i].slice(0, eq) === name) return parts[i].slice(eq + 1);
    }
    return null;
  }
  // the double-submit value: made here, never by the page (which is cached for everyone)
  function csrfToken() {
    var value = cookie("masthead_csrf");
    if (value) return value;
    var bytes = new Uint8Array(18);
    window.crypto.getRandomValues(bytes);
    value = Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
    document.cookie = "masthead_csrf=" + value + "; path=/; SameSite=Strict" +
      (location.protocol === "https:" ? "; Secure" : "");
    return value;
  }

  function say(el, text) {
    if (!el) return;
    el.textContent = text;
    el.hidden = !text;
  }

  // --- the notice after a no-script post, then the URL without ?c= -------------------------
  var params = new URLSearchParams(location.search);
  var c = params.get("c");
  var m = c && /^(approved|pending)-([0-9]{1,18})$/.exec(c);
  if (m) {
    say(notice, m[1] === "approved" ? texts.approved : texts.pending);
    params.delete("c");
    var rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
  }

  // --- own comments: built from the page's <template>, never from HTML strings ------------
  var template = document.getElementById("mh-comment-template");
  function bodyNodes(html) {
    // the server's sanitized HTML (nh3), parsed inertly; scripts never run (CSP, DOMParser)
    var doc = new DOMParser().parseFromString("<div>" + html + "</div>", "text/html");
    return Array.prototype.slice.call(doc.body.firstChild.childNodes);
  }
  function build(item) {
    if (!template) return null;
    var li = template.content.firstElementChild.cloneNode(true);
    li.id = "c-" + item.id;
    li.setAttribute("data-id", item.id);
    if (item.hreflang) li.lang = item.hreflang;
    if (item.lang) li.setAttribute("data-lang", item.lang);
    var avatar = li.querySelector(".avatar");
    avatar.textContent = item.initials || "";
    avatar.classList.add("avatar--" + (item.tone || 0));
    if (!item.initials) avatar.classList.add("avatar--blank");
    li.querySelector(".comment__author").textContent = item.name || "";
    if (!item.staff) li.querySelector(".comment__staff").remove();
    var label = li.querySelector(".comment__lang");
    label.textContent = item.lang_name || item.lang || "";
    if (item.hreflang) label.lang = item.hreflang;
    var date = li.querySelector(".comment__date");
    date.href = "#c-" + item.id;
    if (item.when) { // made here: an empty <time> in the template is not valid HTML
      var time = document.createElement("time");
      time.dateTime = item.when.iso;
      time.textContent = item.when.text;
      date.appendChild(time);
    }
    var badge = li.querySelector(".comment__pending");
    if (item.status !== "pending") badge.remove();
    var body = li.querySelector(".comment__body");
    bodyNodes(item.html || "").forEach(function (n) { body.appendChild(n); });
    if (item.status !== "pending") li.classList.remove("comment--mine");
    ownActions(li, item);
    return li;
  }

  // --- editing and deleting one's own comment, with the token its POST answered ------------
  var editMinutes = Number(section.getAttribute("data-edit-minutes")) || 0;
  function tokens() {
    try { return JSON.parse(localStorage.getItem("mh-comment-tokens") || "{}"); } catch (e) { return {}; }
  }
  function tokenFor(id) {
    var own = tokens()[id];
    return own && Date.now() - own.at < editMinutes * 60000 ? own.token : null;
  }
  function call(method, id, body) {
    return fetch(api + "/" + id, {
      method: method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", Authorization: "Bearer " + tokenFor(id) },
      body: body ? JSON.stringify(body) : undefined
    }).then(function (r) {
      return r.json().then(function (data) { return { ok: r.ok, status: r.status, data: data }; }, function () {
        return { ok: false, status: r.status, data: { error: { message: texts.failed } } };
      });
    });
  }
  function ownActions(li, item) {
    var actions = li.querySelector(".comment__own");
    if (!actions || !editMinutes || !tokenFor(item.id)) return;
    actions.hidden = false;
    var edit = actions.querySelector(".comment__edit");
    var del = actions.querySelector(".comment__delete");
    var body = li.querySelector(".comment__body");
    var source = item.body || "";
    edit.addEventListener("click", function () {
      if (li.querySelector(".comment__editor")) return;
      var editor = document.createElement("div");
      editor.className = "comment__editor";
      var area = document.createElement("textarea");
      area.value = source;
      area.maxLength = form.elements.body.maxLength;
      var save = document.createElement("button");
      save.type = "button";
      save.textContent = edit.getAttribute("data-save");
      var cancel = document.createElement("button");
      cancel.type = "button";
      cancel.textContent = edit.getAttribute("data-cancel");
      var row = document.createElement("p");
      row.className = "comment__actions comment__own";
      row.append(save, " ", cancel);
      editor.append(area, row);
      body.hidden = true;
      body.parentNode.insertBefore(editor, body.nextSibling);
      area.focus();
      cancel.addEventListener("click", function () { editor.remove(); body.hidden = false; });
      save.addEventListener("click", function () {
        if (save.disabled) return;
        save.disabled = true;
        call("PATCH", item.id, { body: area.value }).then(function (res) {
          save.disabled = false;
          if (!res.ok) { say(notice, failure(res)); return; }  // the edited text stays in its box
          source = res.data.comment.body;
          body.replaceChildren.apply(body, bodyNodes(res.data.comment.html || ""));
          editor.remove();
          body.hidden = false;
        }, function () { save.disabled = false; say(notice, texts.network); });
      });
    });
    del.addEventListener("click", function () {
      if (!window.confirm(del.getAttribute("data-confirm"))) return;
      call("DELETE", item.id).then(function (res) {
        if (!res.ok) { say(notice, ((res.data || {}).error || {}).message || texts.failed); return; }
        li.remove();
        say(notice, del.getAttribute("data-done"));
      }, function () { say(notice, texts.network); });
    });
  }
  function place(li, parentId) {
    if (document.getElementById(li.id)) return;
    var list;
    var parent = parentId ? document.getElementById("c-" + parentId) : null;
    if (parent) {
      list = parent.querySelector(":scope > .comment-list--replies");
      if (!list) {
        list = document.createElement("ol");
        list.className = "comment-list comment-list--replies";
        parent.appendChild(list);
      }
    } else {
      list = section.querySelector(":scope > .comment-list");
      if (!list) {
        list = document.createElement("ol");
        list.className = "comment-list";
        var empty = section.querySelector(".comments__empty");
        if (empty) empty.remove();
        section.insertBefore(list, formHome && formHome.parentNode === section ? formHome : null);
      }
    }
    if (list) list.appendChild(li);
  }
  if (cookie("masthead_commented")) {
    fetch(api + "/mine?post=" + encodeURIComponent(postUrl), { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : { comments: [] }; })
      .then(function (data) {
        (data.comments || []).forEach(function (item) {
          var li = build(item);
          if (li) place(li, item.parent);
        });
        if (location.hash && location.hash.length > 3) {
          var target = document.getElementById(location.hash.slice(1));
          if (target) target.scrollIntoView();
        }
      })
      .catch(function () { /* the page works without them */ });
  }

  // --- remembered author fields -------------------------------------------------------------
  try {
    var saved = cookie("masthead_author");
    if (saved) {
      var who = JSON.parse(decodeURIComponent(saved));
      ["name", "email", "url"].forEach(function (k) {
        if (typeof who[k] === "string" && !form.elements[k].value) form.elements[k].value = who[k];
      });
      form.elements.remember.checked = true;
    }
  } catch (e) { /* a bad cookie: start empty */ }

  // --- the fill time, from when the form was first on screen --------------------------------
  if ("IntersectionObserver" in window) {
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (e) {
        if (e.isIntersecting && shownAt === null) {
          shownAt = Date.now();
          seen.disconnect();
        }
      });
    });
    seen.observe(form);
  } else {
    shownAt = Date.now();
  }
  form.addEventListener("focusin", function () { if (shownAt === null) shownAt = Date.now(); });

  // --- replies: the form moves under the comment --------------------------------------------
  var replying = form.querySelector(".comment-form__replying");
  function replyTo(id, name, article) {
    form.elements.parent.value = id;
    if (replying) {
      replying.querySelector(".comment-form__replying-text").textContent = replying.getAttribute("data-text").replace("{name}", name);
      replying.hidden = false;
    }
    article.parentNode.insertBefore(formHome, article.nextSibling);
    form.elements.body.focus();
  }
  function cancelReply() {
    form.elements.parent.value = "";
    if (replying) replying.hidden = true;
    if (formParent) formParent.insertBefore(formHome, formNext);
  }
  if (formHome) {
    section.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("a.comment__reply");
      if (!link) return;
      event.preventDefault();
      replyTo(link.getAttribute("data-reply"), link.getAttribute("data-name") || "", link.closest(".comment__main"));
    });
    var cancel = form.querySelector(".comment-form__cancel");
    if (cancel) cancel.addEventListener("click", cancelReply);
  }

  // --- the language filter, remembered --------------------------------------------------------
  var only = document.getElementById("mh-lang-only");
  if (only) {
    try {
      only.checked = localStorage.getItem("mh-lang-only") === "1";
      only.addEventListener("change", function () { localStorage.setItem("mh-lang-only", only.checked ? "1" : "0"); });
    } catch (e) { /* no storage: the box still works for this page */ }
  }

  // --- sending: one path for the button and the keyboard (C37) -----------------------------
  function busy(on) {
    sending = on;
    if (!button) return;
    button.disabled = on;
    button.textContent = on ? texts.sending || texts.send : texts.send;
    form.setAttribute("aria-busy", on ? "true" : "false");
  }
  function fieldError(name) {
    Array.prototype.forEach.call(form.querySelectorAll("[aria-invalid]"), function (el) { el.removeAttribute("aria-invalid"); });
    var el = name && form.elements[name];
    if (el && el.setAttribute) {
      el.setAttribute("aria-invalid", "true");
      el.focus();
    }
  }
  function payload() {
    var f = form.elements;
    var data = {
      post: f.post.value,
      parent: f.parent.value ? Number(f.parent.value) : null,
      name: f.name.value,
      email: f.email.value,
      url: f.url.value,
      body: f.body.value,
      lang: f.lang.value,
      notify: Boolean(f.notify && f.notify.checked),
      remember: f.remember.checked
    };
    var trap = form.querySelector(".comment-form__trap input");
    if (trap) data[trap.name] = trap.value;
    data.elapsed = shownAt === null ? 0 : (Date.now() - shownAt) / 1000;
    return data;
  }
  function failure(res) {
    if (res.status === 413 && texts.tooLarge) return texts.tooLarge;
    return ((res.data || {}).error || {}).message || texts.failed;
  }
  function remember(id, token) {
    try {
      var own = JSON.parse(localStorage.getItem("mh-comment-tokens") || "{}");
      own[id] = { token: token, at: Date.now() };
      localStorage.setItem("mh-comment-tokens", JSON.stringify(own));
    } catch (e) { /* edits then need the token from the API answer */ }
  }
  function send() {
    if (sending) return;
    if (!form.reportValidity()) return;
    busy(true);
    say(status, "");
    var parentId = form.elements.parent.value;
    fetch(api, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrfToken() },
      body: JSON.stringify(payload())
    }).then(function (r) {
      return r.json().then(function (data) { return { ok: r.ok, status: r.status, data: data }; }, function () {
        return { ok: false, status: r.status, data: { error: { message: "" } } };
      });
    }).then(function (res) {
      busy(false);
      if (!res.ok) {
        var err = (res.data && res.data.error) || {};
        // 413 (the server's JSON, or a proxy's page): refused unread; the text stays in the form
        var why = res.status === 413 && texts.tooLarge ? texts.tooLarge : err.message || "";
        say(status, (texts.failed ? texts.failed + " " : "") + why);
        fieldError(err.field);
        return;
      }
      var data = res.data;
      if (data.token) remember(data.id, data.token);
      if (data.comment) {
        data.comment.status = data.status;
        var li = build(data.comment);
        if (li) place(li, parentId);
      }
      say(notice, data.status === "approved" ? texts.approved : texts.pending);
      form.elements.body.value = "";
      fieldError(null);
      cancelReply();
      // the new comment in view (marked pending when held); the notice is announced (aria-live)
      var shown = document.getElementById("c-" + data.id);
      if (shown) shown.scrollIntoView({ block: "nearest" });
      shownAt = Date.now();
    }).catch(function () {
      busy(false);
      say(status, texts.network);
    });
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    send();
  });
  form.elements.body.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
    }
  });
})();
