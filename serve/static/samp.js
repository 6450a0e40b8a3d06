// The answer's "Send to TOPCAT/Aladin" button: a SAMP Web Profile client (XML-RPC over fetch to the hub that
// TOPCAT or Aladin runs on http://localhost:21012). It registers (the hub asks its user first), announces the
// answer's VOTable download with table.load.votable to every client that loads tables, and unregisters.
const SAMP_MTYPE = "table.load.votable";
const escapeXml = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function xmlrpcValue(value) {
  if (Array.isArray(value)) return `<array><data>${value.map((item) => `<value>${xmlrpcValue(item)}</value>`).join("")}</data></array>`;
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(
      ([name, item]) => `<member><name>${escapeXml(name)}</name><value>${xmlrpcValue(item)}</value></member>`);
    return `<struct>${members.join("")}</struct>`;
  }
  return `<string>${escapeXml(String(value))}</string>`;
}

function fromXmlrpc(valueElement) {
  const typed = valueElement.firstElementChild;
  if (!typed) return valueElement.textContent; // a value without a type is a string
  const children = (element, name) => [...element.children].filter((child) => child.tagName === name);
  switch (typed.tagName) {
    case "struct":
      return Object.fromEntries(children(typed, "member").map(
        (member) => [children(member, "name")[0].textContent, fromXmlrpc(children(member, "value")[0])]));
    case "array": return children(children(typed, "data")[0], "value").map(fromXmlrpc);
    case "int": case "i4": case "double": return Number(typed.textContent);
    case "boolean": return typed.textContent.trim() === "1";
    default: return typed.textContent;
  }
}

class HubRefused extends Error {}

async function callHub(hub, method, ...params) {
  const body = `<?xml version="1.0"?><methodCall><methodName>${method}</methodName><params>`
    + params.map((param) => `<param><value>${xmlrpcValue(param)}</value></param>`).join("") + "</params></methodCall>";
  const response = await fetch(`${hub}/`, { method: "POST", headers: { "Content-Type": "text/xml" }, body });
  const reply = new DOMParser().parseFromString(await response.text(), "text/xml");
  const fault = reply.querySelector("methodResponse > fault > value");
  if (fault) throw new HubRefused(fromXmlrpc(fault).faultString || "refused");
  const result = reply.querySelector("methodResponse > params > param > value");
  if (!result) throw new HubRefused(`no reply to ${method}`);
  return fromXmlrpc(result);
}

// Send the table at `url` (absolute) named `name`; return the names of the clients it went to.
async function sendTable(hub, url, name, tableId) {
  const registration = await callHub(hub, "samp.webhub.register", { "samp.name": "ALeRCE workbench" });
  const key = registration["samp.private-key"];
  try {
    await callHub(hub, "samp.webhub.declareMetadata", key, {
      "samp.name": "ALeRCE workbench", "samp.description.text": "Sends query results as VOTables" });
    const takers = Object.keys(await callHub(hub, "samp.webhub.getSubscribedClients", key, SAMP_MTYPE));
    if (!takers.length) return [];
    const names = await Promise.all(takers.map(async (id) =>
      (await callHub(hub, "samp.webhub.getMetadata", key, id))["samp.name"] || id));
    const message = { "samp.mtype": SAMP_MTYPE, "samp.params": { url, name, "table-id": tableId } };
    await Promise.all(takers.map((id) => callHub(hub, "samp.webhub.notify", key, id, message)));
    return names;
  } finally {
    await callHub(hub, "samp.webhub.unregister", key).catch(() => {});
  }
}

document.addEventListener("click", async (clicked) => {
  const button = clicked.target.closest("#samp-send");
  if (!button) return;
  const status = document.getElementById("samp-status");
  const { hub, url, name, tableId } = button.dataset;
  button.disabled = true;
  status.textContent = "Asking the SAMP hub (it may ask you to accept this page)…";
  try {
    const sent = await sendTable(hub, new URL(url, window.location.href).href, name, tableId);
    status.textContent = sent.length ? `Sent to ${sent.join(", ")}.`
      : "The SAMP hub runs, but no application on it loads tables: start TOPCAT or Aladin and send again.";
  } catch (err) {
    status.textContent = err instanceof HubRefused ? `The SAMP hub refused: ${err.message}`
      : `No SAMP hub answers at ${hub}: start TOPCAT or Aladin (each runs one, with the Web Profile) and send again.`;
  } finally {
    button.disabled = false;
  }
});
