// Package sqlstore is what the SQL drivers (store/sqlite, store/postgres)
// share: the layout of a record row and how rows, payloads and answers
// are sealed (codec.go), a save made ready to write off the writer
// (commit.go), the migrations runner (migrate.go), and the cold paths
// both run the same way (Shared: the console's queries, replay, outbox
// statistics, audit, revocations and reseal, over a driver's DB; and the
// patient lifecycle's erase, export and sweep). A driver adds its writer
// loop and its hot paths (commit, claim, finish), written for its
// database.
package sqlstore
