// The workbench page's script (served as a file: the content security policy allows no inline script).
const byId = (id) => document.getElementById(id);
function showStage(event) {
  const items = [...byId("stages").children].filter((li) => li.dataset.stage === event.stage);
  const last = items[items.length - 1];
  const item = last && last.classList.contains("running") ? last : document.createElement("li");
  item.dataset.stage = event.stage;
  item.className = event.status;
  item.textContent = `${event.stage}: ${event.status}`;
  if (event.detail) { const pre = document.createElement("pre"); pre.textContent = event.detail; item.append(pre); }
  if (!item.parentNode) byId("stages").append(item);
}
async function showAnswer(answerId) {
  const response = await fetch(`/answers/${answerId}/fragment`);
  byId("result").innerHTML = await response.text();
  byId("history-list").innerHTML = await (await fetch("/history")).text();
  history.pushState({}, "", `/answers/${answerId}`);
  document.dispatchEvent(new Event("answer-shown")); // the sky view draws itself (sky.js)
}
// The light-curve form works without JavaScript (a page load); with it, only the picture changes.
document.addEventListener("submit", (submitted) => {
  if (submitted.target.id !== "lightcurve-form") return;
  submitted.preventDefault();
  const oid = byId("oid").value;
  const picture = byId("lightcurve") || document.createElement("img");
  picture.id = "lightcurve"; picture.width = 440; picture.alt = `light curve of ${oid}`;
  picture.src = `${submitted.target.action}/lightcurve.png?oid=${encodeURIComponent(oid)}`;
  byId("lightcurve-figure").append(picture);
});
// The ask form, and the follow-up form under an answer, start a job and stream its stages.
document.addEventListener("submit", async (submitted) => {
  if (!["ask-form", "follow-up-form"].includes(submitted.target.id)) return;
  submitted.preventDefault();
  byId("stages").innerHTML = ""; byId("message").textContent = ""; byId("queue").textContent = "";
  const fields = new FormData(submitted.target);
  const listed = fields.get("targets");
  // A target list goes as multipart; without one the form stays URL-encoded.
  const form = listed && listed.size ? fields : new URLSearchParams([...fields].filter(([, value]) => typeof value === "string"));
  const response = await fetch("/jobs", { method: "POST", body: form });
  const body = await response.json();
  if (!response.ok) { byId("message").textContent = body.error; return; }
  byId("ask-button").disabled = true;
  const events = new EventSource(`/jobs/${body.job_id}/events`);
  events.onmessage = async (message) => {
    const event = JSON.parse(message.data);
    if (event.type === "queue") {
      byId("queue").textContent = `Waiting in the queue: position ${event.position} (the local model answers one question at a time)`;
    } else if (event.type === "started") {
      byId("queue").textContent = "";
    } else if (event.type === "stage") {
      showStage(event);
    } else if (event.type === "done") {
      events.close();
      byId("ask-button").disabled = false;
      if (event.error) byId("message").textContent = event.error;
      else await showAnswer(event.answer_id);
    }
  };
  events.onerror = () => {
    events.close(); byId("ask-button").disabled = false;
    byId("message").textContent = "lost the connection to the server";
  };
});
