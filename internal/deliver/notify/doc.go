// Package notify tells operators what happens to destinations: a
// destination that starts failing (destination.failing) or recovers
// (destination.recovered), a delivery that failed for good
// (delivery.failed, at most one per destination per hour), a destination
// paused or resumed (destination.paused, destination.resumed).
//
// Tracker decides, with no I/O, which events an attempt's outcome makes;
// Notifier sends events to the config's operator endpoints through the
// webhook sender every delivery uses (so they are signed the Standard
// Webhooks way), with X-<ServiceName>-Event: operator. An event carries
// ids and counts, never patient data.
package notify
