// masthead --dev only: reload this page when the site changes (Server-Sent Events).
(function () {
  "use strict";
  var meta = document.querySelector('meta[name="mh-dev-version"]');
  var loaded = meta ? meta.getAttribute("content") : null;
  var source = new EventSource("/_dev/reload");
  source.addEventListener("version", function (event) {
    if (loaded === null) loaded = event.data;
    else if (event.data !== loaded) window.location.reload();
  });
})();
