//go:build pprof

package main

import (
	"net/http"
	_ "net/http/pprof" // profiling endpoints, only in binaries built with -tags pprof
	"os"
)

// A binary built with -tags pprof serves net/http/pprof on PADS_PPROF_ADDR
// (default 127.0.0.1:6060), for profiling under load. Release builds do not
// contain it.
func init() {
	addr := os.Getenv("PADS_PPROF_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6060"
	}
	go http.ListenAndServe(addr, nil)
}
