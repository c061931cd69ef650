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
  // An instance type made of underscored parts ("runpod__4xA5000_24GB__32__116") may break after its underscores,
  // as the book's tables let it (faces/tables.py), so a long one does not widen the table past the page.
  function breakable(node, text) {
    String(text).split(/(_+)/).forEach(function (part) {
      if (!part) return;
      node.appendChild(document.createTextNode(part));
      if (part.charAt(0) === "_") node.appendChild(document.createElement("wbr"));
    });
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
      ".tn-verdict{margin:4px 0 2px 0}.tn-note{color:#555;font-size:12.5px;margin:2px 0}" +
      ".tn-table-wrap{overflow-x:auto;max-width:100%}table.tn-plan{border-collapse:collapse;font-size:12.5px;margin:6px 0}" +
      "table.tn-plan th,table.tn-plan td{padding:3px 7px;border-bottom:1px solid #e3e3e3;text-align:left;vertical-align:top}" +
      "table.tn-plan th{border-bottom:2px solid #999}table.tn-plan td.num{text-align:right;white-space:nowrap;" +
      "font-variant-numeric:tabular-nums}";
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
      // a list a source dates to the month only reads so (it sorts at the month's end: 2026-09 after 2026-09-10)
      return { value: s.id, label: s.date === s.id ? s.id : s.id + " (month only)" }; }), data.snapshots[0].id);
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
      var margin = factor.toFixed(1) !== "1.0" ? factor.toFixed(1) + "×" : (100 * (factor - 1)).toFixed(1) + "%";
      var said = page || (cheaper + " is " + margin + " cheaper");   // wording.factor's rule
      var color = /^Tinker/.test(said) ? TINKER : (/^Self-hosting/.test(said) ? HOSTED : INK);
      html("b", { style: "color:" + color }, verdict, said);
      verdict.appendChild(document.createTextNode(": Tinker " + usd(tinkerTotal) + " against " + usd(hostedTotal) +
        " on " + h.num_gpus + " × " + data.gpu + "." + (atStart ? "" :
          " (A point estimate: the draws were made at this workload's own values.)")));
      clock.textContent = "Wall-clock: Tinker " + days(t.days) + " (" + data.tinker_wallclock_basis + "); self-hosted " +
        days(h.days[j][k]) + " on " + h.num_gpus + " × " + data.gpu + ", running " + short(h.model) + ".";
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

  /* ---------------------------------------------------------------- where to run it */
  function planner(root, data) {
    var controls = html("div", { "class": "tn-controls" }, root);
    var o = data.opening;
    var wl = select(controls, "Workload", "workload", data.workloads.map(function (w) { return { value: w, label: w }; }), o.workload);
    var modelWrap = html("span", {}, controls);
    var model = null;
    var deadline = select(controls, "Deadline", "deadline", data.deadlines.map(function (d, i) { return { value: i, label: d }; }), o.deadline);
    var budget = select(controls, "Budget", "budget", data.budgets.map(function (b, i) { return { value: i, label: b }; }), o.budget);
    var spot = select(controls, "Rented GPUs", "spot", data.spots.map(function (s, i) { return { value: data.spot_ids[i], label: s }; }), o.spot);
    var stateLine = html("p", { "class": "tn-note", "data-role": "state" }, root);
    var best = html("p", { "class": "tn-verdict", "data-role": "best" }, root);
    var over = html("p", { "class": "tn-note", "data-role": "over" }, root);
    var svg = el("svg", { role: "img" }, root);
    var legend = html("p", { "class": "tn-note", "data-role": "legend" }, root);
    var wrap = html("div", { "class": "tn-table-wrap" }, root);
    var table = html("table", { "class": "tn-plan", "data-role": "options" }, wrap);
    html("p", { "class": "tn-note" }, root, data.note);

    function models(current) {
      while (modelWrap.firstChild) modelWrap.removeChild(modelWrap.firstChild);
      model = select(modelWrap, "Model", "model", data.models[wl.value].map(function (m, i) { return { value: i, label: m }; }), current || 0);
      model.addEventListener("change", draw);
    }
    function draw() {
      var w = wl.value, mi = model.value;
      var state = data.states[[w, mi, deadline.value, budget.value, spot.value].join("|")];
      var plot = data.plots[w + "|" + mi];
      stateLine.textContent = [w, data.models[w][mi], "deadline " + data.deadlines[deadline.value],
        data.budgets[budget.value], data.spots[data.spot_ids.indexOf(spot.value)]].join(" · ");
      best.textContent = state.best;
      over.textContent = state.over || "";
      // the table: the same columns and text as the chapter's
      while (table.firstChild) table.removeChild(table.firstChild);
      var head = html("tr", {}, html("thead", {}, table));
      data.columns.forEach(function (c) { html("th", {}, head, c); });
      var body = html("tbody", {}, table);
      state.rows.forEach(function (r) {
        var opt = plot.options[r[0]];
        var tr = html("tr", {}, body);
        [String(r[1]), opt[0], opt[1], opt[2], opt[3], r[2], r[3]].forEach(function (cell, i) {
          var td = html("td", { "class": (i === 0 || i >= 3 && i <= 5) ? "num" : "" }, tr, i === 1 ? undefined : cell);
          if (i === 1) breakable(td, cell);
        });
      });
      // the figure: positions precomputed on log axes (0..1); only layout here
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      // drawn at the explorer's own width, so its text keeps its size on a phone
      var W = widthOf(root), left = 62, top = 12, width = W - left - 14, height = 240;
      svg.setAttribute("viewBox", "0 0 " + W + " 300");
      svg.setAttribute("width", W);
      svg.setAttribute("height", 300);
      function px(f) { return left + f * width; }
      function py(f) { return top + height - f * height; }
      el("rect", { x: left, y: top, width: width, height: height, fill: "none", stroke: "#bbb" }, svg);
      var xstep = width < 420 ? 2 : 1;   // on a phone every other tick is labelled, so labels never overlap
      plot.x_ticks.forEach(function (t, i) {
        el("line", { x1: px(t[0]), x2: px(t[0]), y1: top, y2: top + height, stroke: "#eee" }, svg);
        if (i % xstep === 0) el("text", { x: px(t[0]), y: top + height + 14, "text-anchor": "middle", "font-size": 11, fill: MUTED }, svg, t[1]);
      });
      plot.y_ticks.forEach(function (t) {
        el("line", { x1: left, x2: left + width, y1: py(t[0]), y2: py(t[0]), stroke: "#eee" }, svg);
        el("text", { x: left - 6, y: py(t[0]) + 3, "text-anchor": "end", "font-size": 11, fill: MUTED }, svg, t[1]);
      });
      el("text", { x: left + width / 2, y: top + height + 30, "text-anchor": "middle", "font-size": 12, fill: INK }, svg, "wall-clock");
      el("text", { x: 12, y: top + height / 2, "font-size": 12, fill: INK, transform: "rotate(-90 12 " + (top + height / 2) + ")", "text-anchor": "middle" }, svg, "cost");
      var dx = plot.deadline_x[deadline.value];
      if (dx !== null && dx >= 0 && dx <= 1) {
        el("line", { x1: px(dx), x2: px(dx), y1: top, y2: top + height, stroke: INK, "stroke-dasharray": "4 3", "data-role": "deadline" }, svg);
        el("text", { x: px(dx) + 3, y: top + 11, "font-size": 11, fill: INK }, svg, "deadline");
      }
      var front = plot.frontier[spot.value].filter(function (i) { return plot.options[i][5] !== null; });
      if (front.length) {
        var pts = [];
        front.forEach(function (i, n) {
          var opt = plot.options[i];
          if (n > 0) pts.push(px(opt[5]).toFixed(1) + "," + py(plot.options[front[n - 1]][6]).toFixed(1));
          pts.push(px(opt[5]).toFixed(1) + "," + py(opt[6]).toFixed(1));
        });
        el("polyline", { points: pts.join(" "), fill: "none", stroke: "#C44E52", "stroke-width": 1.6, "data-role": "frontier" }, svg);
      }
      state.rows.forEach(function (r, n) {
        var opt = plot.options[r[0]];
        if (opt[5] === null || opt[6] === null) return;
        var color = data.kinds[opt[4]].color;
        var mark = opt[4] === "tinker" ? el("path", { d: star(px(opt[5]), py(opt[6])), fill: color, "data-role": "option" }, svg)
          : el("circle", { cx: px(opt[5]).toFixed(1), cy: py(opt[6]).toFixed(1), r: n === 0 && r[3].indexOf("best") === 0 ? 7 : 4.5,
                           fill: color, stroke: n === 0 && r[3].indexOf("best") === 0 ? INK : "white", "stroke-width": 1.5, "data-role": "option" }, svg);
        el("title", {}, mark, opt[0] + ": " + opt[2] + ", " + opt[3]);
      });
      var seen = {};
      legend.textContent = "";
      state.rows.forEach(function (r) { seen[plot.options[r[0]][4]] = true; });
      Object.keys(data.kinds).filter(function (k) { return seen[k]; }).forEach(function (k) {
        var item = html("span", { style: "margin-right:14px;white-space:nowrap" }, legend);
        html("span", { style: "display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:4px;background:" + data.kinds[k].color }, item);
        item.appendChild(document.createTextNode(data.kinds[k].label));
      });
      var line = html("span", {}, legend);
      line.appendChild(document.createTextNode("red line: the frontier (no option both cheaper and faster)"));
    }
    function star(x, y) {
      var d = "", r;
      for (var i = 0; i < 10; i++) {
        r = i % 2 === 0 ? 9 : 4;
        d += (i === 0 ? "M" : "L") + (x + r * Math.sin(i * Math.PI / 5)).toFixed(1) + "," + (y - r * Math.cos(i * Math.PI / 5)).toFixed(1);
      }
      return d + "Z";
    }
    wl.addEventListener("change", function () { models(0); draw(); });
    [deadline, budget, spot].forEach(function (c) { c.addEventListener("change", draw); });
    models(o.model);
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
        else if (kindName === "planner") planner(root, data);
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
