/* tinker-nomics explorers for the static book (tinker_nomics/explorer.py embeds this file).
 *
 * Looks up numbers the Python package precomputed (the JSON block inside each .tn-explorer) and draws them
 * as SVG. No cost is computed here: the only arithmetic is layout (bar widths, cell positions) and the ratio
 * printed beside two looked-up totals.
 * One IIFE, one global (window.tinkerNomicsExplorer, the draw function): Sphinx pages define a global `_` (doctools.js).
 */
(function () {
  "use strict";
  // The script is embedded once per explorer; the first copy defines everything, later copies only ask it
  // to draw any explorer not drawn yet (in a live notebook they arrive after the page has loaded).
  if (window.tinkerNomicsExplorer) {
    if (document.readyState !== "loading") window.tinkerNomicsExplorer();
    return;
  }

  var SVG = "http://www.w3.org/2000/svg";
  var TINKER = "#4C72B0", HOSTED = "#C44E52", INK = "#222", MUTED = "#666";

  function el(tag, attrs, parent, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function html(tag, attrs, parent, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  // Money as the book's tables print a run's bill (tinker_nomics.fmt.usd with cents=False): whole dollars with
  // thousands separators, so the explorer and the table beside it read the same.
  function usd(x) {
    if (x === null || x === undefined || isNaN(x)) return "n/a";
    var whole = Math.round(Math.abs(x)).toLocaleString("en-US");
    return (x < 0 ? "-$" : "$") + whole;
  }
  function days(x) {
    if (x === null || x === undefined || isNaN(x)) return "n/a";
    var text = x < 1 ? x.toFixed(2) : (x < 100 ? x.toFixed(1) : Math.round(x).toLocaleString("en-US"));
    return text + (text === "1.0" || text === "1.00" ? " day" : " days");
  }
  function short(model) { return model.split("/").pop(); }
  function select(parent, label, control, options, value) {
    var wrap = html("label", { "class": "tn-control" }, parent);
    html("span", {}, wrap, label);
    var s = html("select", { "data-control": control }, wrap);
    options.forEach(function (o) {
      var opt = html("option", { value: o.value }, s, o.label);
      if (String(o.value) === String(value)) opt.selected = true;
    });
    return s;
  }
  function slider(parent, label, control, count, index) {
    var wrap = html("label", { "class": "tn-control" }, parent);
    html("span", {}, wrap, label);
    var r = html("input", { type: "range", min: 0, max: count - 1, step: 1, value: index, "data-control": control }, wrap);
    var out = html("output", { "data-readout": control }, wrap);
    var why = html("span", { "class": "tn-why", "data-reason": control }, wrap);
    return { input: r, output: out, why: why };
  }
  // A slider that cannot move the result here is disabled, and says why.
  function enable(control, on, reason) {
    control.input.disabled = !on;
    control.why.textContent = on ? "" : "(fixed: " + reason + ")";
  }
  // The drawing width: the explorer's own width, so its text keeps its size on a phone.
  function widthOf(root) {
    return Math.max(300, Math.min(720, Math.floor(root.clientWidth || 720) - 26));
  }
  function style() {
    if (document.getElementById("tn-explorer-style")) return;
    var css = ".tn-explorer{border:1px solid #ddd;border-radius:6px;padding:10px 12px;margin:1em 0;font-size:14px}" +
      ".tn-controls{display:flex;flex-wrap:wrap;gap:6px 18px;margin-bottom:6px}" +
      ".tn-control{display:flex;align-items:center;gap:6px}.tn-control span{color:#444}" +
      ".tn-control output{min-width:9em;font-variant-numeric:tabular-nums}" +
      ".tn-control input:disabled{opacity:.45}.tn-why{color:#7a4b00;font-size:12.5px}" +
      ".tn-explorer svg{max-width:100%;height:auto;display:block}" +
      ".tn-verdict{margin:4px 0 2px 0}.tn-note{color:#555;font-size:12.5px;margin:2px 0}";
    var s = document.createElement("style");
    s.id = "tn-explorer-style";
    s.textContent = css;
    document.head.appendChild(s);
  }

  /* ---------------------------------------------------------------- takeaway comparison */
  function takeaway(root, data) {
    var controls = html("div", { "class": "tn-controls" }, root);
    var first = data.start;
    var wl = select(controls, "Workload", "workload", data.workloads.map(function (w) { return { value: w, label: w }; }), first);
    var snap = select(controls, "Tinker prices", "snapshot", data.snapshots.map(function (s) {
      return { value: s.id, label: s.id }; }), data.snapshots[0].id);
    var offer = slider(controls, data.labels.offer, "offer", data.offers.length, data.meta[first].start.offer);
    var eff = slider(controls, data.labels.efficiency, "efficiency", data.efficiencies.length, data.meta[first].start.efficiency);
    var mfu = slider(controls, data.labels.mfu, "mfu", data.mfus.length, data.meta[first].start.mfu);
    var svg = el("svg", { role: "img" }, root);
    var verdict = html("p", { "class": "tn-verdict", "data-role": "verdict" }, root);
    var clock = html("p", { "class": "tn-note", "data-role": "wallclock" }, root);
    var note = html("p", { "class": "tn-note", "data-role": "note" }, root);
    var description = html("p", { "class": "tn-note" }, root);

    // A new workload starts from its own values: its GPU offer and the efficiencies its method uses.
    function reset() {
      var start = data.meta[wl.value].start;
      offer.input.value = start.offer;
      eff.input.value = start.efficiency;
      mfu.input.value = start.mfu;
    }
    function draw() {
      var w = wl.value, s = snap.value;
      var t = data.tinker[w + "|" + s];
      var h = data.hosted[w];
      var start = data.meta[w].start;
      var i = +offer.input.value, j = +eff.input.value, k = +mfu.input.value;
      enable(eff, h.efficiency_matters[k], data.reasons.efficiency);
      enable(mfu, h.mfu_matters[j], data.reasons.mfu);
      var o = data.offers[i];
      offer.output.textContent = "$" + o.usd.toFixed(2) + "/h · " + o.label;
      eff.output.textContent = Math.round(100 * data.efficiencies[j]) + "%";
      mfu.output.textContent = (100 * data.mfus[k]).toFixed(1) + "%";
      var hostedParts = [["GPU time", h.gpu[i][j][k], data.colors.gpu], ["sandbox", h.sandbox[i][j][k], data.colors.sandbox]];
      var tinkerParts = ["sample", "train", "prefill", "sandbox", "storage"].map(function (p) {
        return [p, t.parts[p], data.colors[p]]; });
      var hostedTotal = h.total[i][j][k], tinkerTotal = t.total;
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      var W = widthOf(root), left = 84, right = 64, width = W - left - right;
      var scale = width / Math.max(hostedTotal, tinkerTotal);
      [["Tinker", tinkerParts, tinkerTotal, 8, "tinker-total"], ["Self-hosted", hostedParts, hostedTotal, 52, "hosted-total"]]
        .forEach(function (row) {
          el("text", { x: left - 8, y: row[3] + 19, "text-anchor": "end", fill: INK, "font-size": 13 }, svg, row[0]);
          var x = left;
          row[1].forEach(function (part) {
            if (!(part[1] > 0)) return;
            var wpx = part[1] * scale;
            var r = el("rect", { x: x.toFixed(2), y: row[3], width: Math.max(wpx, 0.5).toFixed(2), height: 28,
              fill: part[2], "data-part": part[0] }, svg);
            el("title", {}, r, part[0] + ": " + usd(part[1]));
            x += wpx;
          });
          el("text", { x: (x + 6).toFixed(2), y: row[3] + 19, fill: INK, "font-size": 13, "data-role": row[4] }, svg, usd(row[2]));
        });
      // The legend wraps onto a second line when the explorer is narrow.
      var lx = left, ly = 98;
      tinkerParts.concat([hostedParts[0]]).forEach(function (part) {
        var step = 24 + 7 * part[0].length;
        if (lx + step > W && lx > left) { lx = left; ly += 18; }
        el("rect", { x: lx, y: ly, width: 10, height: 10, fill: part[2] }, svg);
        el("text", { x: lx + 14, y: ly + 9.5, fill: MUTED, "font-size": 11 }, svg, part[0]);
        lx += step;
      });
      var height = ly + 16;
      svg.setAttribute("viewBox", "0 0 " + W + " " + height);
      svg.setAttribute("width", W);
      svg.setAttribute("height", height);
      svg.setAttribute("aria-label", w + ": Tinker " + usd(tinkerTotal) + ", self-hosted " + usd(hostedTotal));
      var atStart = i === start.offer && j === start.efficiency && k === start.mfu;
      var cheaper = tinkerTotal <= hostedTotal ? "Tinker" : "Self-hosting";
      var factor = tinkerTotal <= hostedTotal ? hostedTotal / tinkerTotal : tinkerTotal / hostedTotal;
      var page = atStart ? data.meta[w].answers[s] : undefined;
      verdict.textContent = "";
      var said = page || (cheaper + " is " + factor.toFixed(1) + "× cheaper");
      var color = /^Tinker/.test(said) ? TINKER : (/^Self-hosting/.test(said) ? HOSTED : INK);
      html("b", { style: "color:" + color }, verdict, said);
      verdict.appendChild(document.createTextNode(": Tinker " + usd(tinkerTotal) + " against " + usd(hostedTotal) +
        " on " + h.num_gpus + " × " + data.gpu + "." + (atStart ? "" :
          " (A point estimate: the draws were made at this workload's own values.)")));
      clock.textContent = "Self-hosted wall-clock: " + days(h.days[j][k]) + " on " + h.num_gpus + " × " + data.gpu +
        ", running " + short(h.model) + ".";
      var notes = ["Tinker bills " + short(t.model) + (t.successor ? " (the successor: the list no longer prices " + short(h.model) + ")" : "") + "."];
      var dated = data.snapshots.filter(function (x) { return x.id === s; })[0];
      notes.push("Tinker rates on the price list of " + dated.date + ", $/M tokens: prefill " + t.prices.prefill + ", sample " + t.prices.sample + ", train " + t.prices.train +
        (t.cached ? "; cached prefill " + t.prices.cached_prefill + " for " + Math.round(100 * t.cache_hit_rate) + "% of prompt tokens" :
          "; no cached-prefill rate in this price list") + ".");
      note.textContent = notes.join(" ");
      description.textContent = data.meta[w].description;
    }
    wl.addEventListener("change", function () { reset(); draw(); });
    [snap, offer.input, eff.input, mfu.input].forEach(function (c) { c.addEventListener("input", draw); c.addEventListener("change", draw); });
    draw();
  }

  /* ---------------------------------------------------------------- break-even maps */
  function breakeven(root, data) {
    var controls = html("div", { "class": "tn-controls" }, root);
    var wl = select(controls, "Workload", "workload", data.workloads.map(function (w) { return { value: w, label: w }; }), data.start.workload);
    var snap = select(controls, "Tinker prices", "snapshot", data.snapshots.map(function (s) { return { value: s, label: s }; }),
      data.start.snapshot);
    var kindWrap = html("span", {}, controls);
    var kind = null;
    var svg = el("svg", { role: "img" }, root);
    var readout = html("p", { "class": "tn-verdict", "data-role": "readout" }, root);
    var summary = html("p", { "class": "tn-note", "data-role": "summary" }, root);

    function kinds() {
      var entry = data.maps[snap.value][wl.value];
      var current = kind ? kind.value : data.start.map;
      kindWrap.textContent = "";
      kind = select(kindWrap, "Map", "map", Object.keys(data.kinds).filter(function (k) { return entry[k]; })
        .map(function (k) { return { value: k, label: data.kinds[k] }; }), entry[current] ? current : data.start.map);
      kind.addEventListener("change", draw);
      kind.addEventListener("input", draw);
    }
    function draw() {
      var m = data.maps[snap.value][wl.value][kind.value];
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      var W = widthOf(root), narrow = W < 520;
      var labels = kind.value === "turns_model" && narrow ? m.y_short : m.y;
      var left = kind.value === "turns_model" ? (narrow ? 118 : 220) : 58, top = 14;
      var width = W - left - 12, height = narrow ? 260 : 300;
      var nx = m.x.length, ny = m.y.length, cw = width / nx, ch = height / ny;
      function px(ix) { return left + (ix + 0.5) * cw; }
      function py(iy) { return top + height - (iy + 0.5) * ch; }
      for (var r = 0; r < ny; r++) {
        for (var c = 0; c < nx; c++) {
          var cell = el("rect", { x: (left + c * cw).toFixed(2), y: (top + height - (r + 1) * ch).toFixed(2),
            width: (cw + 0.3).toFixed(2), height: (ch + 0.3).toFixed(2), fill: data.palette[m.color[r][c]], "data-row": r, "data-col": c }, svg);
          el("title", {}, cell, m.x_label + " " + m.x[c] + ", " + m.y_label + " " + m.y[r] + ": self-hosted ÷ Tinker = " +
            m.ratio[r][c] + "× (Tinker " + usd(m.tinker[r][c]) + ", self-hosted " + usd(m.hosted[r][c]) + ")");
        }
      }
      m.boundary.forEach(function (line) {
        el("polyline", { points: line.map(function (p) { return px(p[0]).toFixed(1) + "," + py(p[1]).toFixed(1); }).join(" "),
          fill: "none", stroke: "#000", "stroke-width": 2, "data-role": "boundary" }, svg);
      });
      if (m.preset[0] !== null && m.preset[1] !== null) {
        var cx = px(m.preset[0]), cy = py(m.preset[1]);
        var star = [];
        for (var s = 0; s < 10; s++) {
          var rad = s % 2 ? 3.5 : 8, ang = Math.PI / 5 * s - Math.PI / 2;
          star.push((cx + rad * Math.cos(ang)).toFixed(1) + "," + (cy + rad * Math.sin(ang)).toFixed(1));
        }
        el("title", {}, el("polygon", { points: star.join(" "), fill: "gold", stroke: "#000", "stroke-width": 0.8 }, svg), "the preset");
      }
      var xstep = Math.ceil(nx / (narrow ? 5 : 9)), ystep = Math.ceil(ny / (kind.value === "turns_model" ? 20 : 8));
      m.x.forEach(function (label, c) {
        if (c % xstep === 0) el("text", { x: px(c), y: top + height + 14, "text-anchor": "middle", "font-size": 10, fill: MUTED }, svg, label);
      });
      labels.forEach(function (label, r) {
        if (r % ystep === 0) el("text", { x: left - 5, y: py(r) + 3.5, "text-anchor": "end", "font-size": 10, fill: MUTED }, svg, label);
      });
      el("text", { x: left + width / 2, y: top + height + 32, "text-anchor": "middle", "font-size": 12, fill: INK }, svg, m.x_label);
      if (kind.value !== "turns_model") {
        el("text", { x: 12, y: top + height / 2, "text-anchor": "middle", "font-size": 12, fill: INK,
          transform: "rotate(-90 12 " + (top + height / 2) + ")" }, svg, m.y_label);
      }
      // The colour legend, on two lines when narrow.
      var ly = top + height + 56, lx = 10;
      el("text", { x: lx, y: ly, "font-size": 11, fill: MUTED }, svg, "self-hosted ÷ Tinker:");
      var swatch = Math.min(40, (W - 20) / data.legend.length);
      if (narrow) { ly += 8; } else { lx += 125; ly -= 10; }
      data.legend.forEach(function (item) {
        el("rect", { x: lx, y: ly, width: swatch - 2, height: 12, fill: item.color }, svg);
        el("text", { x: lx + swatch / 2, y: ly + 26, "text-anchor": "middle", "font-size": 10, fill: MUTED }, svg, item.label);
        lx += swatch;
      });
      var kx = narrow ? 10 : lx + 8, ky = narrow ? ly + 44 : ly + 10;
      el("text", { x: kx, y: ky, "font-size": 11, fill: MUTED }, svg, "blue: Tinker cheaper");
      el("text", { x: kx, y: ky + 15, "font-size": 11, fill: MUTED }, svg, "line: equal · ★ the preset");
      var total = ky + 22;
      svg.setAttribute("viewBox", "0 0 " + W + " " + total);
      svg.setAttribute("width", W);
      svg.setAttribute("height", total);
      svg.setAttribute("aria-label", m.title);
      readout.textContent = short(m.model) + " at " + m.snapshot + " prices: Tinker is cheaper in " +
        Math.round(100 * m.tinker_share) + "% of this map.";
      summary.textContent = "Hover a cell for both costs. Everything not on the axes stays at the " + wl.value + " preset.";
    }
    function onSelect() { kinds(); draw(); }
    wl.addEventListener("change", onSelect);
    snap.addEventListener("change", onSelect);
    kinds();
    draw();
  }

  function drawAll() {
    style();
    var roots = document.querySelectorAll(".tn-explorer:not([data-ready])");
    Array.prototype.forEach.call(roots, function (root) {
      root.setAttribute("data-ready", "1");
      // In JupyterLab the arrow keys are notebook shortcuts (move between cells): keep them for the controls.
      root.addEventListener("keydown", function (event) { event.stopPropagation(); });
      var block = root.querySelector("script.tn-data");
      var data = JSON.parse(block.textContent);
      var kindName = root.getAttribute("data-kind");
      try {
        if (kindName === "takeaway") takeaway(root, data);
        else if (kindName === "breakeven") breakeven(root, data);
      } catch (err) {
        html("p", { "class": "tn-note" }, root, "The explorer failed to draw: " + err);
        throw err;
      }
    });
  }
  window.tinkerNomicsExplorer = drawAll;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", drawAll);
  else drawAll();
})();
