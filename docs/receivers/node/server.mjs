// A pads webhook receiver with Express and the official Standard Webhooks
// package, to copy from. It verifies each delivery's signature and
// timestamp, takes each webhook-id once, answers at once, and hands the
// work on.
//
//   PADS_WHSEC=whsec_... PADS_RECEIVER_ADDR=127.0.0.1:8787 node server.mjs
//
// It prints one JSON line per event on stdout: where it listens, each
// delivery it processed, each duplicate it dropped and each request it
// refused.
import express from "express";
import { Webhook } from "standardwebhooks";

const secret = process.env.PADS_WHSEC ?? "";
if (!secret.startsWith("whsec_")) {
  console.error("receiver: set PADS_WHSEC to the destination's whsec_ secret");
  process.exit(1);
}
// verify() checks the signature and refuses a webhook-timestamp more than
// 5 minutes old or ahead, so a captured request cannot be replayed later.
const wh = new Webhook(secret.slice("whsec_".length));
const [host, port] = (process.env.PADS_RECEIVER_ADDR ?? "127.0.0.1:8787").split(/:(?=\d+$)/);
const print = (v) => process.stdout.write(JSON.stringify(v) + "\n");

// The webhook-ids taken, the latest 100,000 in arrival order: pads
// delivers at least once, so the same delivery may come twice. In
// production keep them in your database (a unique key), so a restart
// forgets none.
const seen = new Map();
function firstTime(id) {
  if (seen.has(id)) return false;
  seen.set(id, true);
  if (seen.size > 100_000) seen.delete(seen.keys().next().value);
  return true;
}

// The work queue. A real receiver puts deliveries on a durable queue
// (SQS, a table) and works on them elsewhere.
const queue = [];
function work() {
  while (queue.length > 0) process1(queue.shift());
}

const app = express();
// The signature is over the exact bytes: take the body raw, whatever its
// Content-Type (application/json, or application/fhir+json for fhir-r4,
// which express.json() would not even parse).
app.post("/webhooks/pads", express.raw({ type: () => true, limit: "1mb" }), (req, res) => {
  const body = req.body instanceof Buffer ? req.body.toString("utf8") : "";
  try {
    wh.verify(body, req.headers);
  } catch (err) {
    print({ rejected: String(err.message ?? err) });
    return res.status(401).send("invalid signature");
  }
  const id = req.get("webhook-id"); // the same on every attempt and replay
  if (!firstTime(id)) {
    print({ duplicate: id });
    return res.status(204).end(); // taken before: pads must not retry
  }
  if (queue.length >= 1024) {
    seen.delete(id); // not taken: pads retries later
    return res.set("Retry-After", "30").status(503).send("busy");
  }
  queue.push({ id, body });
  res.status(204).end(); // answer now; the work comes after
  setImmediate(work);
});

// process1 is the work: here, reading which event of which patient the
// delivery carries, in either format, and printing it.
function process1({ id, body }) {
  const v = JSON.parse(body);
  const line = { processed: id, format: "seed-json", event: "sensitive" };
  if (v.type === "test") {
    line.event = "test"; // a test send: no patient data, nothing to store
  } else if (v.resourceType === "Bundle") {
    line.format = "fhir-r4";
    const tag = (system) => v.meta?.tag?.find((t) => t.system === system)?.code;
    line.event = tag("https://pads.dev/fhir/CodeSystem/event");
    // results-updated: new results replacing those of an earlier message.
    if (line.event === "results-updated") line.updates = tag("https://pads.dev/fhir/CodeSystem/updates-message");
    // The Patient comes first; its identifier is the patient's uuid.
    line.uuid = v.entry[0].resource.identifier?.find((i) => i.system === "https://pads.dev/fhir/patient-uuid")?.value;
  } else {
    if (!("healthCreditScore" in v)) line.event = "non-sensitive";
    else if ("updatesMessageId" in v) {
      // results-updated: new results replacing those of an earlier message.
      line.event = "results-updated";
      line.updates = v.updatesMessageId;
    }
    line.uuid = v.uuid;
  }
  print(line);
}

const server = app.listen(Number(port), host, () => {
  const a = server.address();
  print({ listening: `${a.address}:${a.port}` });
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.close(() => process.exit(0)));
