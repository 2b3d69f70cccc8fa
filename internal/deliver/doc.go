// Package deliver pushes results to clients: a Dispatcher claims due
// deliveries from the store's outbox, hands each to the Sender of its
// destination's type (webhook, sns), records the attempt, and schedules the
// next one by the destination's retry policy.
//
// Delivery is at-least-once. A delivery is leased while it is tried; a
// process that dies mid-attempt loses nothing, because the lease runs out
// and the delivery is due again, for this or another process.
package deliver
