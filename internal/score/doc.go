// Package score is pads' health scoring model: pure, deterministic functions
// from a record's measurements to categories and scores. No I/O.
//
// Every category follows a published threshold table, named at its function
// and in docs/scoring.md. Every score is built the same way: each input is
// turned into a component between 0 (worst) and 1 (best) on a curve whose
// break points are published thresholds; a score is the weighted mean of the
// components known, times its Max, rounded; and it is null when fewer than
// its minimum number of components are known. A component never improves
// as its input moves further from the healthy range, so no score does.
//
// Any change of a threshold, weight or band changes Version.
package score

// Version names this model. It is sent in no payload field (the seed has
// none) but is logged and documented, and golden tests pin it.
const Version = "pads-score-1"
