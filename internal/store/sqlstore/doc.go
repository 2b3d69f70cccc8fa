// Package sqlstore is what the SQL drivers (store/sqlite, store/postgres)
// share: the layout of a record row, how rows, payloads and answers are
// sealed (codec.go), the scanning of the shared queries (rows.go), and the
// procedure of a commit over a driver's transaction (commit.go). A driver
// adds its connection handling, its dialect and its batching.
package sqlstore
