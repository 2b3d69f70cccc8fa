// Package score is pads' health scoring model: pure, deterministic functions
// from a record's measurements to categories and scores. No I/O.
//
// The model is a wellness screen for adults, not a diagnosis, and
// docs/scoring.md is its whole specification. It works in four steps:
//
//  1. Inputs: each measurement is read from one source, in one documented
//     order (FromRecord), and implausible body measurements are left out.
//     The payload shows exactly these inputs.
//  2. Red flags: readings in a danger range (RedFlags), each rule with its
//     published source and the ages it applies to.
//  3. Adults only: categories and scores need a known age of 18 or more;
//     a few components need a narrower band (BMI and lipids 20+, 10-year
//     risk 40-75). Children and people of unknown age get red flags only.
//  4. Scores: each input becomes a component between 0 (worst) and 1
//     (best) on a curve whose break points are published normal ranges; a
//     score is the weighted mean of the components known. A red flag caps
//     the overall and health credit scores and names itself in their
//     categories.
//
// A component never improves as its input moves away from its healthy
// range, and a red flag never clears as a reading worsens, so no score
// rises when a reading worsens. Any change of a threshold, weight or band
// changes Version.
package score

// Version names this model. It is stored with every event and sent with
// every delivery (webhook header X-Pads-Model, SNS attribute model).
const Version = "pads-score-3"
