// The object page's plots (served as a file: the content security policy allows no inline script). Plotly draws
// them; a long light curve uses WebGL traces (scattergl) so that 100,000 points stay responsive, a short one SVG
// traces, which draw without WebGL too (machines without a GPU, headless browsers).
"use strict";
const WEBGL_FROM_POINTS = 5000;
const data = JSON.parse(document.getElementById("object-data").textContent);
const BAND_COLOURS = { u: "#7b3fb5", g: "#2e8b57", r: "#c0392b", i: "#e67e22", z: "#8b5a2b", y: "#222222" };
const KINDS = { detection: "circle", forced: "square-open" };
const CONFIG = { displaylogo: false, responsive: true };
const state = { unit: "mag", period: null };

function utcOf(mjd) {
  return new Date(Math.round((mjd - 40587) * 86400) * 1000).toISOString().slice(0, 19);
}

// Indices of the points of one band whose column `value` is set and that `keep(i)` accepts.
function indicesOf(band, value, keep) {
  const columns = data.points;
  const found = [];
  for (let i = 0; i < columns.mjd.length; i++) {
    if (columns.band[i] === band && columns[value][i] !== null && keep(i)) found.push(i);
  }
  return found;
}

// One scattergl trace of points `rows` of a band: x is MJD or phase (two cycles), y the column `value`.
function trace(band, label, rows, value, error, symbol, hover) {
  const columns = data.points;
  const x = [], y = [], err = [], custom = [];
  const cycles = state.period ? [0, 1] : [0];
  const start = columns.mjd.length ? columns.mjd[0] : 0;
  for (const cycle of cycles) {
    for (const i of rows) {
      const mjd = columns.mjd[i];
      x.push(state.period ? (((mjd - start) / state.period) % 1) + cycle : mjd);
      y.push(columns[value][i]);
      err.push(error ? columns[error][i] : null);
      custom.push([mjd, utcOf(mjd), error ? columns[error][i] : null]);
    }
  }
  const colour = BAND_COLOURS[band] || "#777777";
  const shown = {
    type: data.points.mjd.length >= WEBGL_FROM_POINTS ? "scattergl" : "scatter", mode: "markers", name: `${band} ${label}`, legendgroup: band, x, y, customdata: custom,
    marker: { symbol, size: symbol === "triangle-down" ? 7 : 6, color: colour, opacity: symbol === "triangle-down" ? 0.5 : 0.9 },
    hovertemplate: `MJD %{customdata[0]:.5f}<br>%{customdata[1]} UTC<br>${hover}<extra>${band} ${label}</extra>`,
  };
  if (error) shown.error_y = { type: "data", array: err, visible: true, color: colour, thickness: 1, width: 0 };
  return shown;
}

function bands() {
  const order = Object.keys(BAND_COLOURS);
  const found = [...new Set(data.points.band.filter((band) => band !== null))];
  return found.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99) || a.localeCompare(b));
}

function curveTraces() {
  const columns = data.points;
  const inMag = state.unit === "mag";
  const traces = [];
  for (const band of bands()) {
    for (const [kind, symbol] of Object.entries(KINDS)) {
      const rows = indicesOf(band, inMag ? "mag" : "flux", (i) => columns.kind[i] === kind);
      const hover = inMag ? "mag %{y:.3f} ± %{customdata[2]:.3f}" : "flux %{y:.1f} ± %{customdata[2]:.1f} nJy";
      if (rows.length) traces.push(trace(band, kind, rows, inMag ? "mag" : "flux", inMag ? "mag_err" : "flux_err", symbol, hover));
    }
    // Limits: non-detections, and in magnitude also the fluxes that are not positive (no magnitude, a 3σ limit).
    const limits = inMag
      ? indicesOf(band, "limit_mag", (i) => columns.mag[i] === null)
      : indicesOf(band, "flux", (i) => columns.kind[i] === "non-detection");
    const hover = inMag ? "fainter than mag %{y:.3f}" : "flux below %{y:.1f} nJy";
    if (limits.length) traces.push(trace(band, "limit", limits, inMag ? "limit_mag" : "flux", null, "triangle-down", hover));
  }
  return traces;
}

function curveLayout() {
  const inMag = state.unit === "mag";
  return {
    title: { text: data.title },
    margin: { l: 70, r: 20, t: 40, b: 50 },
    hovermode: "closest",
    dragmode: "zoom",
    legend: { groupclick: "togglegroup" },
    xaxis: { title: { text: state.period ? `phase (period ${state.period} d)` : "MJD" }, zeroline: false },
    yaxis: {
      title: { text: inMag ? "magnitude (AB, brighter up)" : "difference flux (nJy)" },
      autorange: inMag ? "reversed" : true,
      zeroline: !inMag,
    },
  };
}

function say(text) {
  const message = document.getElementById("curve-message");
  message.textContent = text;
  message.hidden = !text;
}

function drawCurve() {
  const traces = curveTraces();
  const plot = document.getElementById("light-curve");
  if (!traces.length) {
    say(data.notes[0] || "This catalog holds no magnitudes or fluxes for this object.");
    document.getElementById("curve-controls").hidden = true;
    plot.hidden = true;
    return;
  }
  Plotly.react(plot, traces, curveLayout(), CONFIG);
}

function drawClassifications() {
  const holder = document.getElementById("classification-chart");
  if (!holder) return;
  for (const group of data.classifications) {
    const classes = [...group.classes].reverse(); // rank 1 at the top
    const chart = document.createElement("div");
    chart.className = "classifier-chart";
    holder.append(chart);
    Plotly.newPlot(chart, [{
      type: "bar", orientation: "h", x: classes.map((item) => item.probability), y: classes.map((item) => item.class_name),
      customdata: classes.map((item) => item.ranking), hovertemplate: "%{y}: %{x:.4f} (rank %{customdata})<extra></extra>",
      marker: { color: classes.map((item) => (item.ranking === 1 ? "#1d5fa8" : "#8fb3dd")) },
    }], {
      title: { text: `${group.classifier} ${group.version}`, font: { size: 13 } },
      height: 60 + 18 * classes.length, margin: { l: 110, r: 20, t: 30, b: 30 },
      xaxis: { range: [0, 1], title: { text: "probability" } }, yaxis: { automargin: true },
    }, { ...CONFIG, displayModeBar: false });
  }
}

function drawTrack() {
  const holder = document.getElementById("track");
  if (!holder || !data.track.mjd.length) return;
  Plotly.newPlot(holder, [{
    type: data.points.mjd.length >= WEBGL_FROM_POINTS ? "scattergl" : "scatter", mode: "markers", x: data.track.ra, y: data.track.dec,
    customdata: data.track.mjd.map((mjd) => [mjd, utcOf(mjd)]),
    marker: { color: data.track.mjd, colorscale: "Viridis", size: 6 }, // the colour is the MJD (in the hover)
    hovertemplate: "RA %{x:.5f}°, Dec %{y:.5f}°<br>MJD %{customdata[0]:.5f}<br>%{customdata[1]} UTC<extra></extra>",
  }], {
    title: { text: "track on the sky" }, margin: { l: 70, r: 20, t: 40, b: 50 },
    xaxis: { title: { text: "RA (deg)" }, autorange: "reversed" }, yaxis: { title: { text: "Dec (deg)" } },
  }, CONFIG);
}

document.getElementById("curve-controls").addEventListener("change", (changed) => {
  if (changed.target.name !== "unit") return;
  state.unit = changed.target.value;
  drawCurve();
});
document.getElementById("fold-button").addEventListener("click", () => {
  const period = Number(document.getElementById("period").value);
  if (!(period > 0)) { say("Type a period in days (a positive number) to fold the light curve."); return; }
  say("");
  state.period = period;
  drawCurve();
});
document.getElementById("unfold-button").addEventListener("click", () => { say(""); state.period = null; drawCurve(); });
document.getElementById("curve-controls").addEventListener("submit", (submitted) => {
  submitted.preventDefault(); // Enter in the period box folds
  document.getElementById("fold-button").click();
});

drawCurve();
drawClassifications();
drawTrack();
