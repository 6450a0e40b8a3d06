// The sky view: Aladin Lite (vendored under /static/vendor, loaded only where a sky view is shown) draws the positions
// and the cones of a search, centred and zoomed on them; under them a HiPS survey when the workbench names one and the
// browser reaches it, else a plain coordinate grid, with one line saying so. Answers arrive as fragments after the
// page loaded, so the view is drawn on load and on each "answer-shown" event.
"use strict";
let aladinLibrary = null;

function library() {
  aladinLibrary ||= import("/static/vendor/aladin-lite/aladin.js").then(async (module) => {
    await module.default.init; // compiles its WebAssembly
    return module.default;
  });
  return aladinLibrary;
}

async function reachable(url) {
  try {
    const response = await fetch(`${url.replace(/\/+$/, "")}/properties`, { signal: AbortSignal.timeout(5000) });
    return response.ok;
  } catch {
    return false;
  }
}

async function skyData(holder) {
  if (holder.dataset.json) return JSON.parse(document.getElementById(holder.dataset.json).textContent);
  const response = await fetch(holder.dataset.source);
  if (!response.ok) throw new Error((await response.json()).error || response.statusText);
  return response.json();
}

function surveyLine(data, online) {
  if (online) return `Survey: ${data.hips_url} (HiPS).`;
  if (data.hips_url) return `Plain coordinate view: the sky survey ${data.hips_url} cannot be reached (offline).`;
  return "Plain coordinate view: this workbench names no sky survey (start it with --hips-url to show one).";
}

function countLine(data) {
  const shown = data.positions.ra.length;
  const parts = [`${data.total.toLocaleString()} position${data.total === 1 ? "" : "s"}`];
  if (shown < data.total) parts.push(`the first ${shown.toLocaleString()} drawn`);
  for (const cone of data.cones) {
    parts.push(`cone at RA ${cone.ra}°, Dec ${cone.dec}°, radius ${(cone.radius_deg * 3600).toPrecision(4)}″`);
  }
  return `${parts.join(" · ")} · field ${data.fov_deg.toPrecision(3)}°`;
}

async function drawSky(holder) {
  if (holder.dataset.drawn) return;
  holder.dataset.drawn = "drawing";
  const say = (text) => { holder.parentNode.querySelector(".sky-note").textContent = text; };
  let data, A;
  try {
    [data, A] = await Promise.all([skyData(holder), library()]);
  } catch (err) {
    say(`The sky view cannot be drawn here (${err.message || err}); the Aitoff PNG shows the positions.`);
    holder.dataset.drawn = "failed";
    return;
  }
  const online = Boolean(data.hips_url) && (await reachable(data.hips_url));
  const aspect = Math.max(1, holder.clientWidth / Math.max(1, holder.clientHeight)); // Aladin's field is the width
  const aladin = A.aladin(holder, {
    survey: online ? data.hips_url : [], hipsList: [], log: false, showCooGrid: !online,
    target: `${data.centre.ra} ${data.centre.dec}`, fov: Math.min(360, data.fov_deg * aspect), projection: data.projection,
    showLayersControl: false, showContextMenu: false, showSimbadPointerControl: false, showProjectionControl: false,
  });
  const cones = A.graphicOverlay({ name: "cone", color: "#ff4040", lineWidth: 2 });
  aladin.addOverlay(cones);
  for (const cone of data.cones) cones.add(A.circle(cone.ra, cone.dec, cone.radius_deg));
  const positions = A.catalog({ name: data.title || "positions", sourceSize: 10, color: "#00c8ff", onClick: "showPopup" });
  aladin.addCatalog(positions);
  const { ra, dec, label } = data.positions;
  positions.addSources(ra.map((value, i) => A.source(value, dec[i], { label: label[i], ra: value, dec: dec[i] })));
  holder.aladin = aladin; // for the page's tests and the curious
  say(`${surveyLine(data, online)} ${countLine(data)}`);
  holder.dataset.drawn = "done";
}

function drawAll() {
  for (const holder of document.querySelectorAll(".sky-view")) drawSky(holder);
}

document.addEventListener("answer-shown", drawAll);
drawAll();
