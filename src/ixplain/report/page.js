/* ixplain report page: draws the payload's headline chart, ranking, other charts and incidents
 * with plotly.js (inlined in the same file), and in live mode polls data.json and redraws.
 * Every string of the payload is shown as text: textContent in the page, and in plotly's text
 * (which reads a small HTML dialect) with &, < and > written as entities. */
(function () {
  "use strict";
  var CONFIG = JSON.parse(document.getElementById("ixplain-config").textContent);
  var PLOT_CONFIG = {
    displaylogo: false, responsive: true, scrollZoom: false,
    modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d", "zoomIn2d", "zoomOut2d"]
  };
  var FONT = {family: "-apple-system, 'Segoe UI', Helvetica, Arial, sans-serif", size: 12, color: "#222"};
  var state = {payload: null, colours: {}, next: 0, selected: null, divs: {}, timer: null};

  function byId(id) { return document.getElementById(id); }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  /* plotly's text accepts tags such as <b> and <a>: entities keep a user's string literal. */
  function ptext(s) {
    return String(s === null || s === undefined ? "" : s)
      .replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function fmt(v) {
    if (v === null || v === undefined || typeof v !== "number" || !isFinite(v)) { return "\u2013"; }
    if (Number.isInteger(v)) { return v.toLocaleString("en-US"); }
    var a = Math.abs(v);
    if (a >= 1e6 || a < 1e-3) { return v.toExponential(2); }
    return Number(v.toPrecision(4)).toLocaleString("en-US", {maximumFractionDigits: 6});
  }

  function interval(lo, hi) {
    return (lo === null || lo === undefined) && (hi === null || hi === undefined)
      ? "" : "[" + fmt(lo) + ", " + fmt(hi) + "]";
  }

  function colourOf(name) {
    if (!Object.prototype.hasOwnProperty.call(state.colours, name)) {
      state.colours[name] = CONFIG.palette[state.next % CONFIG.palette.length];
      state.next += 1;
    }
    return state.colours[name];
  }

  /* A short id made of letters and digits (plotly puts a trace's uid into CSS selectors). */
  function hashId(text) {
    var h1 = 5381, h2 = 52711;
    for (var i = 0; i < text.length; i++) {
      var c = text.charCodeAt(i);
      h1 = (Math.imul(h1, 33) ^ c) >>> 0;
      h2 = (Math.imul(h2, 31) ^ c) >>> 0;
    }
    return "u" + h1.toString(36) + h2.toString(36);
  }

  function rgba(hex, alpha) {
    var n = parseInt(hex.slice(1), 16);
    return "rgba(" + (n >> 16) + "," + ((n >> 8) & 255) + "," + (n & 255) + "," + alpha + ")";
  }

  /* Colours by name: the ranking's order first, then the headline's and the other charts'. */
  function assignColours(p) {
    if (p.ranking) { p.ranking.features.forEach(colourOf); }
    p.charts.forEach(function (c) {
      if (c.kind !== "bars") { c.series.forEach(function (s) { colourOf(s.group || s.name); }); }
    });
  }

  function ordinal(n) {
    var tens = n % 100, ones = n % 10;
    var suffix = tens >= 11 && tens <= 13 ? "th" : ones === 1 ? "st" : ones === 2 ? "nd" : ones === 3 ? "rd" : "th";
    return fmt(n) + suffix;
  }

  function thinNote(chart) {
    var t = chart.thinned;
    if (!t) { return ""; }
    return "every " + ordinal(t.step) + " of " +
      fmt(t.points) + " points shown (the last included)";
  }

  function baseLayout(title, xLabel, yLabel) {
    return {
      title: {text: ptext(title), x: 0, xanchor: "left", font: {size: 14}},
      margin: {l: 64, r: 12, t: 34, b: 46}, font: FONT, hovermode: "closest", dragmode: "zoom",
      xaxis: {title: {text: ptext(xLabel)}, zeroline: false, automargin: true},
      yaxis: {title: {text: ptext(yLabel)}, fixedrange: true, zerolinecolor: "#bbb", automargin: true},
      legend: {font: {size: 11}, tracegroupgap: 1, itemclick: "toggle", itemdoubleclick: "toggleothers", groupclick: "togglegroup"},
      paper_bgcolor: "white", plot_bgcolor: "white", hoverlabel: {namelength: -1},
      uirevision: "keep"  // a live redraw keeps the reader's zoom and hidden legend entries
    };
  }

  function boundText(s, i) {
    if (!s.lower || !s.upper) { return ""; }
    return "<br>bounds " + interval(s.lower[i], s.upper[i]);
  }

  /* Bands of several series overlap: their opacities add up, so each is lighter when there
   * are more (five overlapping bands still leave three quarters of the light through). */
  function bandAlpha(chart) {
    var n = chart.series.filter(function (s, i) { return s.lower && s.upper && i < CONFIG.band_top; }).length;
    return Math.min(0.2, 0.3 / Math.max(n, 1));
  }

  function bandTraces(x, s, group, colour, alpha, uid) {
    var common = {x: x, type: "scatter", mode: "lines", hoverinfo: "skip", legendgroup: group,
      showlegend: false, line: {width: 0, color: colour}, name: ptext(s.name), connectgaps: false};
    return [
      Object.assign({}, common, {y: s.lower, ixplain: "band", uid: uid + "l"}),
      Object.assign({}, common, {y: s.upper, fill: "tonexty", fillcolor: rgba(colour, alpha), ixplain: "band",
        uid: uid + "u"})
    ];
  }

  /* Series of one group share its colour; all but the group's last are dotted ("before" and
   * "after" curves of one feature). */
  function dashOf(chart, s, i) {
    if (!s.group) { return "solid"; }  // traces' series have no group
    var later = chart.series.slice(i + 1).some(function (t) { return t.group === s.group; });
    return later ? "dot" : "solid";
  }

  function seriesTraces(chart, s, i, x) {
    var colour = colourOf(s.group || s.name), out = [];
    // a trace's uid is its chart and name: a live redraw that reorders the series keeps
    // each feature's hidden/shown state with the feature
    var uid = hashId(chart.id + "\u0000" + s.name + "\u0000" + (s.group || ""));
    var group = uid;
    if (s.lower && s.upper && i < CONFIG.band_top) { out = bandTraces(x, s, group, colour, bandAlpha(chart), uid); }
    var note = thinNote(chart);
    out.push({
      x: x, y: s.y, type: "scatter", mode: typeof x[0] === "string" ? "lines+markers" : "lines",
      name: ptext(s.name), legendgroup: group, ixplain: "line", connectgaps: false, uid: uid,
      line: {color: colour, width: i < CONFIG.band_top ? 2 : 1.3, dash: dashOf(chart, s, i)},
      text: x.map(function (_, j) { return boundText(s, j); }),
      meta: [ptext(chart.x_label || "x"), note ? "<br><i>" + ptext(note) + "</i>" : ""],
      hovertemplate: "<b>%{fullData.name}</b><br>%{meta[0]} %{x" + (typeof x[0] === "string" ? "" : ":,.6~g") +
        "}<br>value %{y:.4~g}%{text}%{meta[1]}<extra></extra>"
    });
    return out;
  }

  function markerShapes(chart, incidents) {
    var shapes = [];
    chart.markers.forEach(function (m) {
      var colour = CONFIG.markers[m.kind];
      if (m.kind === "model_update") { return; }  // a light mark at the foot of the chart, no line
      var line = {known: {dash: "dash", width: 1.5}, incident: {dash: "solid", width: 1.5}}[m.kind];
      shapes.push({type: "line", xref: "x", yref: "paper", x0: m.x, x1: m.x, y0: 0, y1: 1, layer: "below",
        opacity: 0.9, line: Object.assign({color: colour}, line)});
      var inc = m.incident === null ? null : incidents[m.incident];
      if (m.kind === "incident" && inc && inc.start !== null && inc.start < m.x) {
        shapes.push({type: "rect", xref: "x", yref: "paper", x0: inc.start, x1: m.x, y0: 0, y1: 1,
          layer: "below", line: {width: 0}, fillcolor: rgba(colour, 0.07)});
      }
    });
    return shapes;
  }

  function markerTraces(chart) {
    var kinds = {known: ["known change", "diamond", 9, 1.0], incident: ["incidents", "triangle-down", 13, 1.0],
      model_update: ["model updates", "triangle-up", 9, 0.0]};
    return Object.keys(kinds).map(function (kind) {
      var ms = chart.markers.filter(function (m) { return m.kind === kind; });
      if (!ms.length) { return null; }
      var k = kinds[kind];
      return {
        x: ms.map(function (m) { return m.x; }), y: ms.map(function () { return k[3]; }), yaxis: "y2",
        type: "scatter", mode: "markers", name: k[0], legendrank: 2000, cliponaxis: false, ixplain: kind,
        uid: hashId(chart.id + "\u0000marks\u0000" + kind),
        marker: {symbol: k[1], size: k[2], color: CONFIG.markers[kind], line: {width: 0}},
        customdata: ms.map(function (m) { return [m.incident, ptext(m.label)]; }),
        meta: [ptext(chart.x_label || "x")],  // user text through meta: never read as a template
        hovertemplate: "%{customdata[1]}<br>%{meta[0]} %{x:,.6~g}<extra></extra>"
      };
    }).filter(Boolean);
  }

  function incidentIndex(p) {
    var index = {};
    p.incidents.forEach(function (inc) { index[inc.id] = inc; });
    return index;
  }

  function tracesFigure(chart, p) {
    var data = [];
    chart.series.forEach(function (s, i) { data = data.concat(seriesTraces(chart, s, i, chart.x)); });
    data = data.concat(markerTraces(chart));
    var layout = baseLayout(chart.title, chart.x_label, chart.y_label);
    layout.shapes = markerShapes(chart, incidentIndex(p));
    layout.yaxis2 = {overlaying: "y", range: [0, 1], visible: false, fixedrange: true};
    return {data: data, layout: layout};
  }

  function curvesFigure(chart) {
    var data = [];
    chart.series.forEach(function (s, i) { data = data.concat(seriesTraces(chart, s, i, s.x)); });
    return {data: data, layout: baseLayout(chart.title, chart.x_label, chart.y_label)};
  }

  function errorBars(values, lower, upper) {
    if (!lower || !upper) { return {visible: false}; }
    return {
      type: "data", symmetric: false, color: "#444", thickness: 1.2, width: 4,
      array: values.map(function (v, i) { return v === null || upper[i] === null ? null : upper[i] - v; }),
      arrayminus: values.map(function (v, i) { return v === null || lower[i] === null ? null : v - lower[i]; })
    };
  }

  function barsFigure(chart) {
    var data = chart.series.map(function (s) {
      return {
        type: "bar", name: ptext(s.name), x: s.labels.map(ptext), y: s.y, error_y: errorBars(s.y, s.lower, s.upper),
        marker: {color: chart.series.length > 1 ? colourOf(s.name) : s.labels.map(colourOf)},
        text: s.labels.map(function (_, j) { return boundText(s, j); }), textposition: "none",
        hovertemplate: "<b>%{x}</b><br>%{y:.4~g}%{text}<extra>%{fullData.name}</extra>"
      };
    });
    var layout = baseLayout(chart.title, chart.x_label, chart.y_label);
    layout.xaxis.type = "category";
    layout.showlegend = chart.series.length > 1;
    return {data: data, layout: layout};
  }

  function rankingFigure(r) {
    var unit = ptext(r.unit);
    var data = [{
      type: "bar", orientation: "h", y: r.features.map(ptext), x: r.values, ixplain: "ranking",
      marker: {color: r.features.map(colourOf)}, error_x: errorBars(r.values, r.lower, r.upper),
      text: r.features.map(function (_, i) { return boundText(r, i); }), textposition: "none",
      meta: [unit], hovertemplate: "<b>%{y}</b><br>%{x:.4~g} %{meta[0]}%{text}<extra></extra>"
    }];
    var layout = baseLayout(r.title, r.unit, "");
    layout.yaxis = {type: "category", autorange: "reversed", fixedrange: true, automargin: true};
    layout.xaxis.fixedrange = true;
    layout.showlegend = false;
    layout.margin.l = 10;
    return {data: data, layout: layout};
  }

  var FIGURES = {traces: tracesFigure, curves: curvesFigure, bars: barsFigure};

  /* Fit the y axis to the visible lines in the visible x range (bands may be clipped). */
  function fitY(gd) {
    var xa = gd._fullLayout && gd._fullLayout.xaxis, lo = Infinity, hi = -Infinity;
    var xr = xa && xa.type === "linear" ? xa.range : null;
    gd.data.forEach(function (t) {
      if (t.ixplain !== "line" || t.visible === "legendonly" || t.visible === false) { return; }
      for (var i = 0; i < t.y.length; i++) {
        var v = t.y[i];
        if (v === null || (xr && (t.x[i] < xr[0] || t.x[i] > xr[1]))) { continue; }
        if (v < lo) { lo = v; }
        if (v > hi) { hi = v; }
      }
    });
    if (!isFinite(lo)) { return; }
    var pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.1 || 1;
    Plotly.relayout(gd, {"yaxis.range": [lo - pad, hi + pad]});
  }

  function bindChart(gd, fits) {
    if (gd.ixplainBound) { return; }
    gd.ixplainBound = true;
    gd.on("plotly_click", function (ev) {
      var pt = ev && ev.points && ev.points[0];
      if (pt && (pt.data.ixplain === "incident" || pt.data.ixplain === "model_update") && pt.customdata[0] !== null) {
        showIncident(pt.customdata[0]);
      }
    });
    if (!fits) { return; }
    gd.on("plotly_restyle", function () { fitY(gd); });
    gd.on("plotly_relayout", function (ev) {
      if (ev && (ev["xaxis.range[0]"] !== undefined || ev["xaxis.autorange"] || ev["xaxis.range"])) { fitY(gd); }
    });
  }

  /* A chart follows its box's width (a grid that gains a column, a panel that opens). */
  var resizer = typeof ResizeObserver === "undefined" || typeof Plotly === "undefined" ? null : new ResizeObserver(function (entries) {
    entries.forEach(function (e) {
      if (e.target._fullLayout && e.contentRect.width > 0) { Plotly.Plots.resize(e.target); }
    });
  });

  function draw(gd, figure, fits) {
    gd.hidden = false;
    if (typeof Plotly === "undefined") { return Promise.resolve(); }  // a page with nothing to draw
    if (resizer && !gd.ixplainObserved) { resizer.observe(gd); gd.ixplainObserved = true; }
    return Plotly.react(gd, figure.data, figure.layout, PLOT_CONFIG).then(function () {
      bindChart(gd, fits);
      if (fits) { fitY(gd); }
    });
  }

  /* A chart's box: title comes from plotly; a caption below says how to read it. */
  function chartBox(container, key) {
    var box = state.divs[key];
    if (!box) {
      box = {root: el("div", "chart"), plot: el("div", "ix-plot"), caption: el("p", "caption")};
      box.root.appendChild(box.plot);
      box.root.appendChild(box.caption);
      box.root.dataset.chart = key;
      state.divs[key] = box;
    }
    if (box.root.parentNode !== container) { container.appendChild(box.root); }
    return box;
  }

  function caption(chart, headline) {
    var parts = [];
    if (chart.kind === "traces") {
      parts.push("Drag to zoom along the " + (chart.x_label || "x axis") + " (double-click resets); click a" +
        " legend entry to hide it, double-click to show only it.");
      if (chart.series.some(function (s) { return s.lower && s.upper; })) {
        parts.push("Light bands: the bounds of the first " + Math.min(CONFIG.band_top, chart.series.length) +
          " series.");
      }
      if (headline && chart.markers.length) {
        parts.push("Red triangles: incidents (click for details); grey dashes: known changes;" +
          " light blue triangles at the foot: model updates (the model changed as it learned).");
      }
    }
    var note = thinNote(chart);
    if (note) { parts.push("Thinned: " + note + "."); }
    return parts.join(" ");
  }

  function renderText(p) {
    byId("title").textContent = p.title;
    document.title = p.title;
    var sub = byId("subtitle");
    sub.textContent = p.subtitle || "";
    sub.hidden = !p.subtitle;
    var summary = byId("summary");
    clear(summary);
    p.summary.forEach(function (s) { summary.appendChild(el("p", null, s)); });
  }

  function renderStatus(p, problem) {
    var node = byId("status"), st = p.status;
    if (!st && !CONFIG.live) { node.hidden = true; return; }
    var text = "";
    if (st) {
      var rows = fmt(st.rows_seen) + (st.rows_total === null ? "" : " of " + fmt(st.rows_total)) + " rows";
      text = {running: "running: " + rows + " seen", finished: "finished: " + rows,
        interrupted: "interrupted: " + rows + " seen"}[st.state];
      node.className = "status " + st.state;
      node.dataset.state = st.state;
      node.dataset.rowsSeen = String(st.rows_seen);
    }
    if (CONFIG.live && (!st || st.state === "running")) {
      text += (text ? " \u00b7 " : "") + "live, updated every " + fmt(p.refresh_seconds) + " s";
    }
    if (problem) { text += " \u00b7 " + problem; }
    node.textContent = text;
    node.hidden = false;
  }

  function renderFirst(p) {
    var jobs = [], head = byId("headline"), rank = byId("ranking");
    var chart = p.charts.filter(function (c) { return c.id === p.headline; })[0];
    head.hidden = !chart;  // both boxes take their width before either is drawn
    rank.hidden = !p.ranking;
    byId("first").classList.toggle("alone", !chart || !p.ranking);
    if (chart) {
      var box = chartBox(head, "headline");
      box.caption.textContent = caption(chart, true);
      jobs.push(draw(box.plot, FIGURES[chart.kind](chart, p), chart.kind !== "bars"));
    }
    if (p.ranking) {
      var rbox = chartBox(rank, "ranking");
      rbox.caption.textContent = p.ranking.caption != null ? p.ranking.caption :
        (p.ranking.lower ? "Bars: the final values; whiskers: their bounds." : "");
      jobs.push(draw(rbox.plot, rankingFigure(p.ranking), false));
    }
    return jobs;
  }

  function renderCharts(p) {
    var container = byId("charts"), keep = {}, todo = [];
    p.charts.forEach(function (chart) {  // every box in place first: the grid sets their widths
      if (chart.id === p.headline) { return; }
      var key = "chart:" + chart.id, box = chartBox(container, key);
      keep[key] = true;
      box.caption.textContent = caption(chart, false);
      todo.push([box, chart]);
    });
    Object.keys(state.divs).forEach(function (key) {
      if (key.indexOf("chart:") === 0 && !keep[key]) {
        Plotly.purge(state.divs[key].plot);
        container.removeChild(state.divs[key].root);
        delete state.divs[key];
      }
    });
    return todo.map(function (job) {
      return draw(job[0].plot, FIGURES[job[1].kind](job[1], p), job[1].kind !== "bars");
    });
  }

  function rowsText(inc) {
    var parts = [];
    if (inc.start !== null) { parts.push("from row " + fmt(inc.start)); }
    if (inc.detected !== null) { parts.push("detected at row " + fmt(inc.detected)); }
    if (inc.end !== null) { parts.push("after read at row " + fmt(inc.end)); }
    return parts.join(", ");
  }

  function incidentButton(inc) {
    var li = el("li", inc.kind), button = el("button", null, inc.headline + (rowsText(inc) ? " (" + rowsText(inc) + ")" : ""));
    button.type = "button";
    button.dataset.incident = String(inc.id);
    button.setAttribute("aria-pressed", String(state.selected === inc.id));
    button.addEventListener("click", function () { showIncident(inc.id); });
    li.appendChild(button);
    return li;
  }

  function renderIncidents(p) {
    var section = byId("incidents"), list = byId("incident-list");
    var alerts = p.incidents.filter(function (i) { return i.kind === "incident"; });
    var updates = p.incidents.filter(function (i) { return i.kind === "model_update"; });
    section.hidden = p.incidents.length === 0;
    byId("incidents-title").textContent = "Incidents (" + alerts.length + ")";
    clear(list);
    alerts.forEach(function (inc) { list.appendChild(incidentButton(inc)); });
    var old = byId("model-updates");
    if (old) { old.parentNode.removeChild(old); }
    if (updates.length) {
      var details = el("details"), inner = el("ol", "incident-list");
      details.id = "model-updates";
      details.appendChild(el("summary", null, "Model updates (" + updates.length + "): the model changed as it learned"));
      updates.forEach(function (inc) { inner.appendChild(incidentButton(inc)); });
      details.appendChild(inner);
      list.parentNode.insertBefore(details, byId("incident-panel"));
    }
    if (state.selected !== null && !incidentIndex(p)[state.selected]) { hidePanel(); }
  }

  function shiftFigure(inc, unit) {
    var names = inc.features.map(function (f) { return ptext(f.name); });
    function trace(key, label, filled) {
      return {
        type: "scatter", mode: "markers", name: label, y: names, ixplain: "shift",
        x: inc.features.map(function (f) { return f[key]; }),
        error_x: errorBars(inc.features.map(function (f) { return f[key]; }),
          inc.features.map(function (f) { return f[key + "_lower"]; }),
          inc.features.map(function (f) { return f[key + "_upper"]; })),
        marker: {size: 10, symbol: filled ? "circle" : "circle-open", line: {width: 2},
          color: inc.features.map(function (f) { return colourOf(f.name); })},
        text: inc.features.map(function (f) { return interval(f[key + "_lower"], f[key + "_upper"]); }),
        meta: [label, ptext(unit)],
        hovertemplate: "<b>%{y}</b> %{meta[0]}<br>%{x:.4~g} %{meta[1]} %{text}<extra></extra>"
      };
    }
    var layout = baseLayout("Before (open) and after (filled)", unit, "");
    layout.yaxis = {type: "category", autorange: "reversed", fixedrange: true, automargin: true};
    layout.showlegend = false;
    layout.margin.l = 10;
    layout.shapes = inc.features.map(function (f, i) {
      return {type: "line", xref: "x", yref: "y", x0: f.before, x1: f.after, y0: names[i], y1: names[i],
        layer: "below", line: {color: rgba(colourOf(f.name), 0.6), width: 2}};
    });
    return {data: [trace("before", "before", false), trace("after", "after", true)], layout: layout};
  }

  function shiftTable(inc, unit) {
    var table = el("table"), head = el("tr");
    ["feature", "before" + (unit ? " (" + unit + ")" : ""), "after", "change"].forEach(function (h) {
      head.appendChild(el("th", null, h));
    });
    table.appendChild(el("thead")).appendChild(head);
    var body = table.appendChild(el("tbody"));
    inc.features.forEach(function (f) {
      var tr = body.appendChild(el("tr"));
      tr.appendChild(el("td", null, f.name));
      tr.appendChild(el("td", "num", fmt(f.before) + " " + interval(f.before_lower, f.before_upper)));
      tr.appendChild(el("td", "num", fmt(f.after) + " " + interval(f.after_lower, f.after_upper)));
      tr.appendChild(el("td", "num", fmt(f.change)));
    });
    return table;
  }

  /* The curves of a feature: series of "curves" charts whose group (or else name) is the feature. */
  function curvesOf(p, name) {
    var out = [];
    p.charts.forEach(function (c) {
      if (c.kind !== "curves") { return; }
      var series = c.series.filter(function (s) { return (s.group || s.name) === name; });
      if (series.length) {
        var title = c.title.indexOf(name) >= 0 ? c.title : c.title + ": " + name;
        out.push(Object.assign({}, c, {title: title, series: series}));
      }
    });
    return out;
  }

  function unitOf(p) {
    var chart = p.charts.filter(function (c) { return c.id === p.headline; })[0];
    return chart ? chart.y_label : p.ranking ? p.ranking.unit : "";
  }

  function hidePanel() {
    var panel = byId("incident-panel");
    panel.querySelectorAll(".ix-plot").forEach(function (d) { Plotly.purge(d); });
    clear(panel);
    panel.hidden = true;
    state.selected = null;
    document.querySelectorAll("button[data-incident]").forEach(function (b) { b.setAttribute("aria-pressed", "false"); });
  }

  /* Open incident ``id``'s panel; ``quiet`` (a live redraw) keeps the reader's scroll position. */
  function showIncident(id, quiet) {
    var p = state.payload, inc = incidentIndex(p)[id];
    if (!inc) { return; }
    hidePanel();
    state.selected = id;
    document.querySelectorAll("button[data-incident]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.dataset.incident === String(id)));
    });
    var panel = byId("incident-panel"), unit = unitOf(p), close = el("button", "close", "close");
    byId("incidents").hidden = false;
    close.type = "button";
    close.addEventListener("click", hidePanel);
    panel.appendChild(close);
    panel.appendChild(el("h3", null, inc.headline));
    panel.dataset.incident = String(id);
    var meta = [rowsText(inc), inc.channel ? "channel: " + inc.channel : ""].filter(Boolean).join("; ");
    panel.appendChild(el("p", "muted", meta));
    var charts = panel.appendChild(el("div", "panel-charts")), plots = [];
    panel.hidden = false;  // the charts take their width from the visible panel
    if (inc.features.length) {
      panel.insertBefore(shiftTable(inc, unit), charts);
      plots.push([charts.appendChild(el("div", "ix-plot")), shiftFigure(inc, unit), false]);
    }
    inc.features.forEach(function (f) {
      curvesOf(p, f.name).forEach(function (c) {
        plots.push([charts.appendChild(el("div", "ix-plot")), curvesFigure(c), true]);
      });
    });
    var jobs = plots.map(function (job) { return draw(job[0], job[1], job[2]); });
    if (!quiet) { panel.scrollIntoView({block: "nearest"}); }
    return Promise.all(jobs);
  }

  function render(p) {
    state.payload = p;
    assignColours(p);
    renderText(p);
    renderStatus(p, null);
    renderIncidents(p);
    var jobs = renderFirst(p).concat(renderCharts(p));
    if (state.selected !== null) { jobs.push(showIncident(state.selected, true)); }
    return Promise.all(jobs);
  }

  function finished(p) {
    return p.status && (p.status.state === "finished" || p.status.state === "interrupted");
  }

  function schedule(p) {
    if (finished(p)) { document.body.dataset.polling = "stopped"; return; }
    document.body.dataset.polling = "on";
    state.timer = window.setTimeout(poll, 1000 * (p.refresh_seconds || 3));
  }

  function poll() {
    fetch("data.json", {cache: "no-store"}).then(function (r) {
      if (!r.ok) { throw new Error("data.json: HTTP " + r.status); }
      return r.json();
    }).then(function (p) {
      return render(p).then(function () { schedule(p); });
    }).catch(function (e) {
      renderStatus(state.payload, "no update (" + e.message + "), retrying");
      schedule(state.payload);
    });
  }

  window.ixplainPage = {state: state, showIncident: showIncident, hidePanel: hidePanel};
  var payload = JSON.parse(document.getElementById("ixplain-payload").textContent);
  render(payload).then(function () {
    document.body.dataset.ready = "1";
    if (CONFIG.live) { schedule(payload); }
  });
})();
