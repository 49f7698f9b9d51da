// masthead: Mermaid diagrams (content/diagrams.py). Loaded only by pages that have one.
// - Each <figure class="diagram-mermaid"> holds its source as a code block: that is what a
//   reader without JavaScript sees. Mermaid (the site's own copy, static/vendor/mermaid/, an ES
//   module loaded with import(): the CSP's script-src 'self' allows it) is fetched when the
//   first diagram comes near the screen; each diagram is then drawn in the page's theme
//   (data-theme on <html>, or the system's setting) and its code block hidden.
// - When the theme changes (the switch, or the system's setting) every drawn diagram is drawn
//   again in the new one.
// - The CSP has no 'unsafe-inline' for styles, and Mermaid writes a <style> element and style
//   attributes (a CSP violation each, even in a DOMParser's document). While Mermaid draws, a
//   style attribute is set through the CSSOM instead (element.style, which a CSP allows), its
//   <style> element is an inert <template> whose text becomes a constructed style sheet
//   (document.adoptedStyleSheets, also CSSOM), and markup it parses (DOMPurify's pass over the
//   SVG) has its style attributes renamed data-mh-style first; they are moved to the CSSOM
//   once the SVG is on the page.
(function () {
  "use strict";
  var figures = document.querySelectorAll("figure.diagram-mermaid");
  var script = document.currentScript;
  if (!figures.length || !script || !window.IntersectionObserver || !document.adoptedStyleSheets) return;
  var source = script.getAttribute("data-mermaid");
  var root = document.documentElement;
  var query = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var library = null; // the promise of Mermaid's module
  var queue = Promise.resolve(); // Mermaid draws one diagram at a time
  var drawn = []; // the figures drawn so far
  var counter = 0;

  function theme() {
    var chosen = root.getAttribute("data-theme");
    if (chosen === "dark" || chosen === "light") return chosen;
    return query && query.matches ? "dark" : "light";
  }

  function load() {
    if (!library) {
      library = import(source).then(function (module) {
        return module.default;
      });
    }
    return library;
  }

  // style="…" in a start tag (serialized markup: a tag's text holds no < or >) renamed
  var STYLE_ATTRIBUTE = /(<[^<>]*?\s)style=(["'])/g;
  function hideStyles(markup) {
    return String(markup).replace(STYLE_ATTRIBUTE, "$1data-mh-style=$2");
  }

  // Mermaid's own DOM writes, made acceptable to a CSP without 'unsafe-inline' (see above)
  function withoutInlineStyles(run, sheets) {
    var setAttribute = Element.prototype.setAttribute;
    var createElement = document.createElement;
    var parse = DOMParser.prototype.parseFromString;
    DOMParser.prototype.parseFromString = function (markup, type) {
      return parse.call(this, hideStyles(markup), type);
    };
    Element.prototype.setAttribute = function (name, value) {
      if (String(name).toLowerCase() === "style" && this.style) {
        this.style.cssText = value;
        return;
      }
      return setAttribute.call(this, name, value);
    };
    document.createElement = function (name) {
      if (String(name).toLowerCase() === "style") {
        var inert = createElement.call(document, "template");
        sheets.push(inert);
        return inert;
      }
      return createElement.apply(document, arguments);
    };
    function restore() {
      DOMParser.prototype.parseFromString = parse;
      Element.prototype.setAttribute = setAttribute;
      document.createElement = createElement;
    }
    return run().then(
      function (value) {
        restore();
        return value;
      },
      function (error) {
        restore();
        throw error;
      }
    );
  }

  function adopt(svgText, css, figure) {
    var parsed = new DOMParser().parseFromString(hideStyles(svgText), "image/svg+xml");
    var svg = parsed.documentElement;
    if (!svg || svg.nodeName.toLowerCase() !== "svg") return false;
    Array.prototype.forEach.call(svg.querySelectorAll("style, template"), function (el) {
      css += "\n" + el.textContent;
      el.remove();
    });
    var node = document.importNode(svg, true);
    var styled = Array.prototype.slice.call(node.querySelectorAll("[data-mh-style]"));
    if (node.hasAttribute("data-mh-style")) styled.push(node);
    styled.forEach(function (el) {
      el.style.cssText = el.getAttribute("data-mh-style");
      el.removeAttribute("data-mh-style");
    });
    var sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    var old = figure.mhSheet;
    document.adoptedStyleSheets = document.adoptedStyleSheets
      .filter(function (s) {
        return s !== old;
      })
      .concat([sheet]);
    figure.mhSheet = sheet;
    var drawing = figure.querySelector(".diagram__drawing");
    var before = figure.getBoundingClientRect();
    if (!drawing) {
      drawing = document.createElement("div");
      drawing.className = "diagram__drawing";
      figure.insertBefore(drawing, figure.firstChild);
    }
    drawing.replaceChildren(node);
    figure.classList.add("is-drawn");
    if (before.bottom > 0 && before.top < window.innerHeight) hold(figure, node, before.height);
    return true;
  }

  // A drawing is seldom as high as its source. While the figure is on the screen it keeps the
  // height the reader saw, so that the text below it does not jump (a layout shift): a shorter
  // drawing gets the space below it, a taller one is scaled down to fit. Once the figure is
  // off the screen it takes the drawing's own height (scroll anchoring keeps what is read in
  // place).
  var holding = new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) return;
      holding.unobserve(entry.target);
      entry.target.style.minHeight = "";
      var svg = entry.target.querySelector(".diagram__drawing svg");
      if (svg) svg.style.maxHeight = "";
    });
  });

  function hold(figure, svg, height) {
    var grew = figure.getBoundingClientRect().height - height;
    if (Math.abs(grew) < 0.5) return;
    if (grew < 0) {
      figure.style.minHeight = height + "px";
    } else {
      svg.style.maxHeight = Math.max(svg.getBoundingClientRect().height - grew, 0) + "px";
    }
    holding.observe(figure);
  }

  function draw(figure) {
    var code = figure.querySelector("pre code");
    if (!code) return Promise.resolve();
    var text = code.textContent;
    var wanted = theme();
    queue = queue
      .then(load)
      .then(function (mermaid) {
        mermaid.initialize({
          startOnLoad: false,
          securityLevel: "strict",
          theme: wanted === "dark" ? "dark" : "default",
          // labels as SVG text: HTML labels (foreignObject) would take the page's paragraph
          // styles and be measured without them
          htmlLabels: false,
          flowchart: { htmlLabels: false },
          fontFamily: getComputedStyle(figure).fontFamily
        });
        var sheets = [];
        var id = "mh-diagram-" + ++counter;
        return withoutInlineStyles(function () {
          return mermaid.render(id, text);
        }, sheets).then(function (out) {
          var css = sheets
            .map(function (s) {
              return s.innerHTML;
            })
            .join("\n");
          if (adopt(out.svg, css, figure)) {
            figure.setAttribute("data-theme-drawn", wanted);
            if (drawn.indexOf(figure) < 0) drawn.push(figure);
          }
        });
      })
      .catch(function () {
        // a diagram Mermaid cannot draw keeps showing its source
        var stray = document.querySelectorAll("body > [id^='dmh-diagram-']");
        Array.prototype.forEach.call(stray, function (el) {
          el.remove();
        });
      });
    return queue;
  }

  function redraw() {
    var wanted = theme();
    drawn.forEach(function (figure) {
      if (figure.getAttribute("data-theme-drawn") !== wanted) draw(figure);
    });
  }

  var observer = new IntersectionObserver(
    function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) return;
        observer.unobserve(entry.target);
        draw(entry.target);
      });
    },
    { rootMargin: "200px 0px" }
  );
  Array.prototype.forEach.call(figures, function (figure) {
    observer.observe(figure);
  });
  new MutationObserver(redraw).observe(root, { attributes: true, attributeFilter: ["data-theme"] });
  if (query && query.addEventListener) query.addEventListener("change", redraw);
})();
