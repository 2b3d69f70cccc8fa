//go:build !linux

package sqlite

import "os"

// startWriteback does nothing where sync_file_range does not exist: the
// sync that follows writes everything.
func startWriteback(*os.File) {}
