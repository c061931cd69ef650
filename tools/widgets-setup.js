// Runs on every page with ipywidgets, after require.js and before embed-amd.js (nb_ipywidgets_js in
// _config.yml). tools/vendor_js.sh copies it into book/_vendor/widgets/.
(function () {
  "use strict";
  var here = new URL(".", document.currentScript.src).href.replace(/\/$/, "");

  // 1. Fonts. embed-amd.js defines AMD modules named "@jupyter-widgets/html-manager/dist/...", and its
  //    FontAwesome URLs resolve against the folder RequireJS derives from that name, by default
  //    <page folder>/@jupyter-widgets/html-manager/dist/ (404). The font files sit next to this script.
  window.require.config({ paths: { "@jupyter-widgets/html-manager/dist": here } });

  // 2. Math in widget labels. @jupyter-widgets/controls 2 typesets labels through the MathJax 2 API
  //    (MathJax.Hub.Queue) whenever window.MathJax exists; the book loads MathJax 3, which has no Hub,
  //    so every label raised a TypeError. Forward those calls to MathJax 3 once it is ready.
  //    window.MathJax is only MathJax 3's configuration here (set by Sphinx on pages with math).
  //    Write math in widget descriptions as r"\(f\)", not "$f$": like the rest of the page, MathJax 3
  //    runs without $ delimiters, so dollar amounts in labels stay plain text.
  if (!window.MathJax) return;
  var waiting = [];
  window.MathJax.Hub = { Queue: function (command) { waiting.push(command[2]); } };
  var startup = (window.MathJax.startup = window.MathJax.startup || {});
  var ready = startup.ready;
  startup.ready = function () {
    if (ready) ready(); else window.MathJax.startup.defaultReady();
    var typeset = function (element) {
      if (element) window.MathJax.typesetPromise([element]);
    };
    window.MathJax.Hub = { Queue: function (command) { typeset(command[2]); } };
    window.MathJax.startup.promise.then(function () { waiting.forEach(typeset); });
  };
})();
