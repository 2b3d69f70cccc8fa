// Verifies every delivery saved as JSON in the directory given (by
// cmd/pads' TestNodeStandardWebhooksAcceptsOurSignatures) with the official
// standardwebhooks package, as a client's receiver written with it would.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";

const dir = process.argv[2];
let verified = 0;
for (const name of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
  const v = JSON.parse(readFileSync(join(dir, name), "utf8"));
  const wh = new Webhook(v.secret.replace(/^whsec_/, ""));
  wh.verify(v.body, v.headers); // throws on a bad signature or timestamp
  verified++;
}
if (verified === 0) {
  console.error("no deliveries to verify");
  process.exit(1);
}
console.log(`verified ${verified}`);
