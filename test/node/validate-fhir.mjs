// Validates FHIR R4 resources with the npm fhir package (FHIR.js, whose
// validator checks a resource against the R4 structure definitions and
// value sets it ships): every element known, every required one present,
// every cardinality, every code of a required value set. Used by
// internal/fhir's TestBundlesValidateAgainstR4 over every golden Bundle.
//
//   node validate-fhir.mjs DIR_OR_FILE...
//
// Prints every error, the warnings and notes counted by kind (a code of a
// value set the validator does not ship, such as LOINC's, is a warning:
// it cannot look those codes up), and a summary; exits 1 on any error, or
// when it found nothing to validate.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import fhirjs from "fhir";

const version = createRequire(import.meta.url)("fhir/package.json").version;

const fhir = new fhirjs.Fhir(); // FHIR R4 (4.0.x) by default
let files = [];
for (const arg of process.argv.slice(2)) {
  if (statSync(arg).isDirectory()) {
    files.push(...readdirSync(arg).filter((f) => f.endsWith(".json")).sort().map((f) => join(arg, f)));
  } else {
    files.push(arg);
  }
}
let errors = 0;
const notes = new Map(); // warnings and information, by kind
for (const file of files) {
  const resource = JSON.parse(readFileSync(file, "utf8"));
  const result = fhir.validate(resource, { errorOnUnexpected: true });
  for (const m of result.messages) {
    if (m.severity === "error" || m.severity === "fatal") {
      errors++;
      console.log(`${file}: ${m.severity}: ${m.resourceId ?? ""} ${m.location ?? ""}: ${m.message}`);
      continue;
    }
    const kind = `${m.severity}: ${(m.location ?? "").replace(/\[\d+\]/g, "[]")}: ${(m.message ?? "").replace(/"[^"]*"/, "X")}`;
    notes.set(kind, (notes.get(kind) ?? 0) + 1);
  }
  if (!result.valid && !result.messages.length) {
    errors++;
    console.log(`${file}: invalid without a message`);
  }
}
if (files.length === 0) {
  console.error("no FHIR resources to validate");
  process.exit(1);
}
for (const [kind, n] of [...notes].sort()) console.log(`${n} x ${kind}`);
console.log(`validated ${files.length} resources against FHIR R4 with the npm fhir package ${version}: ${errors} errors`);
process.exit(errors > 0 ? 1 : 0);
