package sqlite

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// walVFS is the name of the SQLite VFS the writer's connection opens its
// database with: SQLite's own "unix" VFS, except that the WAL file gathers
// the writes of a commit and hands them to the operating system in a few
// large writes (of up to walWriteMax) at the commit's sync.
//
// Why: SQLite writes each WAL frame with two write calls (its 24-byte
// header, then the page), so a group commit of 28 saves, about 70 pages,
// costs 140 system calls on the writer's goroutine, the one every queued
// save waits for. Measured in the save load test it was 14% of pads' CPU.
//
// Why it is safe: nothing written to a WAL is visible to other connections
// before the commit's sync. SQLite writes a commit's frames, syncs the WAL
// (synchronous=FULL), and only then publishes the commit in the WAL index
// for readers. The buffer is written out at that sync, before any read of
// the WAL (the writer reading back its own frames), and before a size
// query, truncation, file control or close, so every call SQLite makes
// sees the file as if each write had gone straight through. A crash loses
// what is in the buffer, which is what it would have lost without it: the
// commit had not synced, and no caller had been answered. The writer's
// connection must keep synchronous=FULL (open checks it), or commits
// would be published unwritten. The writer also takes over the sync
// itself, to run it beside the next transaction: see deferWALSyncs.
const walVFS = "pads-unix-walbuf"

// walOwnerParam is the URI parameter that names a connection's WAL for
// deferWALSyncs.
const walOwnerParam = "pads_wal_owner"

// walOwners numbers the connections that defer their WAL syncs.
var walOwners atomic.Int64

// newWALOwner returns a name for a connection's WAL, unique in the
// process, and the DSN parameter that gives it.
func newWALOwner() (owner, param string) {
	owner = fmt.Sprintf("w%d", walOwners.Add(1))
	return owner, "&" + walOwnerParam + "=" + owner
}

// walFlushAt is the buffered size past which a write goes out at once, so
// one very large transaction (a reseal of many records) does not hold it
// all in memory.
const walFlushAt = 4 << 20

var (
	walVFSOnce sync.Once
	walVFSErr  error

	// walFiles maps the handle stored in each open WAL file to its buffer.
	walFiles   sync.Map // uintptr -> *walFile
	walHandles atomic.Uintptr

	// Both live for the process: SQLite keeps pointers to them.
	walVFSStruct     sqlite3.Tsqlite3_vfs
	walMethods       sqlite3.Tsqlite3_io_methods
	walMethodsOnce   sync.Once
	walRealMethods   uintptr // the unix VFS's methods for WAL files
	unixOpen         uintptr // the unix VFS's xOpen
	ownerParam       uintptr // walOwnerParam as a C string
	walTrailerOffset uintptr // where our fields start in each file struct
)

// walTrailer is kept after the unix VFS's own file struct.
type walTrailer struct {
	handle uintptr // 0: a file that is not buffered
}

// walFile is the buffer of one open WAL file: the bytes written from off
// on and not yet handed to the operating system.
type walFile struct {
	name string
	info os.FileInfo // at open: which file it is
	// owner is the walOwnerParam of the connection's URI, if any: how the
	// writer finds its own WAL among those open.
	owner string
	off   int64
	buf   []byte
	// ownSync is pads' own handle on the file while pads makes its
	// commits durable itself (see deferWALSyncs): a sync then only writes
	// the buffer out and starts its writeback through this handle.
	ownSync atomic.Pointer[os.File]
	// What SQLite asked to write, and what was written: for tests.
	asked, wrote atomic.Int64
}

// registerWALVFS registers walVFS once per process.
func registerWALVFS() error {
	walVFSOnce.Do(func() {
		tls := libc.NewTLS()
		defer tls.Close()
		unix := sqlite3.Xsqlite3_vfs_find(tls, 0)
		if unix == 0 {
			walVFSErr = errors.New("sqlite: no default VFS")
			return
		}
		walVFSStruct = *(*sqlite3.Tsqlite3_vfs)(cptr(unix))
		walTrailerOffset = (uintptr(walVFSStruct.FszOsFile) + 7) &^ 7
		walVFSStruct.FszOsFile = int32(walTrailerOffset + unsafe.Sizeof(walTrailer{}))
		walVFSStruct.FpNext = 0
		name, err := libc.CString(walVFS)
		if err != nil {
			walVFSErr = err
			return
		}
		walVFSStruct.FzName = name
		if ownerParam, err = libc.CString(walOwnerParam); err != nil {
			walVFSErr = err
			return
		}
		unixOpen = walVFSStruct.FxOpen
		setCFunc(&walVFSStruct.FxOpen, walOpen)
		if rc := sqlite3.Xsqlite3_vfs_register(tls, uintptr(unsafe.Pointer(&walVFSStruct)), 0); rc != sqlite3.SQLITE_OK {
			walVFSErr = errors.New("sqlite: register the WAL VFS failed")
		}
	})
	return walVFSErr
}

// cptr turns an address SQLite hands over into a pointer. The memory is
// SQLite's (modernc's C heap), which Go's collector neither moves nor frees.
func cptr(addr uintptr) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&addr)) }

// cfunc is the Go function behind a C function pointer of SQLite's, typed
// as F; setCFunc stores fn in such a pointer. (modernc's C function
// pointers are pointers to Go func values.)
func cfunc[F any](p uintptr) F { return *(*F)(unsafe.Pointer(&p)) }

func setCFunc[F any](p *uintptr, fn F) { *(*F)(unsafe.Pointer(p)) = fn }

func trailer(pFile uintptr) *walTrailer {
	return (*walTrailer)(cptr(pFile + walTrailerOffset))
}

// walOpen opens any file through the unix VFS and, for a WAL file, puts
// the buffering methods in front of the unix ones.
func walOpen(tls *libc.TLS, pVfs, zName, pFile uintptr, flags int32, pOutFlags uintptr) int32 {
	*trailer(pFile) = walTrailer{}
	rc := cfunc[func(*libc.TLS, uintptr, uintptr, uintptr, int32, uintptr) int32](unixOpen)(tls, pVfs, zName, pFile, flags, pOutFlags)
	if rc != sqlite3.SQLITE_OK || flags&sqlite3.SQLITE_OPEN_WAL == 0 {
		return rc
	}
	real := (*sqlite3.Tsqlite3_file)(cptr(pFile)).FpMethods
	if real == 0 {
		return rc
	}
	walMethodsOnce.Do(func() { buildWALMethods(real) })
	if real != walRealMethods {
		return rc // a file the unix VFS gave other methods: leave it unbuffered
	}
	h := walHandles.Add(1)
	// SQLite hands a WAL's xOpen a name that carries its database's URI
	// parameters.
	f := &walFile{name: libc.GoString(zName), owner: libc.GoString(sqlite3.Xsqlite3_uri_parameter(tls, zName, ownerParam))}
	f.info, _ = os.Stat(f.name)
	walFiles.Store(h, f)
	trailer(pFile).handle = h
	(*sqlite3.Tsqlite3_file)(cptr(pFile)).FpMethods = uintptr(unsafe.Pointer(&walMethods))
	return rc
}

// buildWALMethods copies the unix methods and replaces those that write,
// read, sync, size, truncate or close the file.
func buildWALMethods(real uintptr) {
	walRealMethods = real
	walMethods = *(*sqlite3.Tsqlite3_io_methods)(cptr(real))
	setCFunc(&walMethods.FxClose, walClose)
	setCFunc(&walMethods.FxRead, walRead)
	setCFunc(&walMethods.FxWrite, walWrite)
	setCFunc(&walMethods.FxTruncate, walTruncate)
	setCFunc(&walMethods.FxSync, walSync)
	setCFunc(&walMethods.FxFileSize, walFileSize)
	setCFunc(&walMethods.FxFileControl, walFileControl)
}

func realMethods() *sqlite3.Tsqlite3_io_methods {
	return (*sqlite3.Tsqlite3_io_methods)(cptr(walRealMethods))
}

func fileOf(pFile uintptr) *walFile {
	f, _ := walFiles.Load(trailer(pFile).handle)
	return f.(*walFile)
}

// walWriteMax is the most the unix VFS writes in one call: it masks a
// write's length to 17 bits.
const walWriteMax = 124 << 10

// flush hands the buffer to the unix VFS in as few writes as it takes.
func (f *walFile) flush(tls *libc.TLS, pFile uintptr) int32 {
	write := realMethods().FxWrite
	rc := int32(sqlite3.SQLITE_OK)
	for done := 0; done < len(f.buf) && rc == sqlite3.SQLITE_OK; {
		n := min(len(f.buf)-done, walWriteMax)
		rc = cfunc[func(*libc.TLS, uintptr, uintptr, int32, int64) int32](write)(
			tls, pFile, uintptr(unsafe.Pointer(&f.buf[done])), int32(n), f.off+int64(done))
		done += n
		f.wrote.Add(1)
	}
	f.buf = f.buf[:0]
	return rc
}

func walWrite(tls *libc.TLS, pFile, zBuf uintptr, iAmt int32, iOfst int64) int32 {
	f := fileOf(pFile)
	f.asked.Add(1)
	if len(f.buf) > 0 && iOfst != f.off+int64(len(f.buf)) {
		if rc := f.flush(tls, pFile); rc != sqlite3.SQLITE_OK {
			return rc
		}
	}
	if len(f.buf) == 0 {
		f.off = iOfst
	}
	f.buf = append(f.buf, unsafe.Slice((*byte)(cptr(zBuf)), iAmt)...)
	if len(f.buf) >= walFlushAt {
		return f.flush(tls, pFile)
	}
	return sqlite3.SQLITE_OK
}

func walSync(tls *libc.TLS, pFile uintptr, flags int32) int32 {
	f := fileOf(pFile)
	rc := f.flush(tls, pFile)
	if rc != sqlite3.SQLITE_OK {
		return rc
	}
	if own := f.ownSync.Load(); own != nil {
		// The commit's frames start for the disk now, so the sync that
		// makes them durable, often still busy with the last batch, has
		// less left to write when it gets to them.
		startWriteback(own)
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int32) int32](realMethods().FxSync)(tls, pFile, flags)
}

func walRead(tls *libc.TLS, pFile, zBuf uintptr, iAmt int32, iOfst int64) int32 {
	if rc := fileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, uintptr, int32, int64) int32](realMethods().FxRead)(tls, pFile, zBuf, iAmt, iOfst)
}

func walTruncate(tls *libc.TLS, pFile uintptr, size int64) int32 {
	if rc := fileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int64) int32](realMethods().FxTruncate)(tls, pFile, size)
}

func walFileSize(tls *libc.TLS, pFile, pSize uintptr) int32 {
	if rc := fileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, uintptr) int32](realMethods().FxFileSize)(tls, pFile, pSize)
}

func walFileControl(tls *libc.TLS, pFile uintptr, op int32, pArg uintptr) int32 {
	if rc := fileOf(pFile).flush(tls, pFile); rc != sqlite3.SQLITE_OK {
		return rc
	}
	return cfunc[func(*libc.TLS, uintptr, int32, uintptr) int32](realMethods().FxFileControl)(tls, pFile, op, pArg)
}

func walClose(tls *libc.TLS, pFile uintptr) int32 {
	h := trailer(pFile).handle
	rc := fileOf(pFile).flush(tls, pFile)
	walFiles.Delete(h)
	if crc := cfunc[func(*libc.TLS, uintptr) int32](realMethods().FxClose)(tls, pFile); rc == sqlite3.SQLITE_OK {
		rc = crc
	}
	return rc
}

// walSyncer makes durable the commits of a WAL whose syncs are deferred.
type walSyncer struct {
	f    *walFile
	file *os.File // pads' own handle on the same file
	sync func(*os.File) error
}

// deferWALSyncs turns the syncs of the WAL of owner, a connection opened
// through walVFS with newWALOwner's parameter, into writes of its buffer:
// a commit then returns once its frames are written to the operating
// system, and the caller makes it durable with Sync, which syncs (with
// sync, or (*os.File).Sync when nil) every commit that returned before it.
// So one connection can run the next transaction while the last one syncs
// (see store.NewSyncingBatcher).
//
// Why it is safe: SQLite still calls the sync at each commit, after the
// commit's frames and before it publishes the commit in the WAL index, so
// the buffer is written out then and readers see whole commits. Every
// other connection (the checkpointer, readers) syncs the WAL for real
// before it copies frames into the database file. What is not durable is
// only what no caller has been told is: a crash before Sync loses at most
// the commits since the last Sync, and a WAL's frames count only up to the
// first frame that did not reach the disk whole.
func deferWALSyncs(owner string, sync func(*os.File) error) (*walSyncer, error) {
	if sync == nil {
		sync = (*os.File).Sync
	}
	var found *walFile
	walFiles.Range(func(_, v any) bool {
		if f := v.(*walFile); f.owner == owner {
			found = f
			return false
		}
		return true
	})
	if found == nil || found.info == nil {
		return nil, fmt.Errorf("defer WAL syncs: no WAL of %s is open through %s", owner, walVFS)
	}
	file, err := os.OpenFile(found.name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if info, err := file.Stat(); err != nil || !os.SameFile(info, found.info) {
		file.Close()
		return nil, fmt.Errorf("defer WAL syncs: %s is no longer the file SQLite opened", found.name)
	}
	// SQLite syncs a new WAL's directory at its first sync, which is now
	// pads' to make.
	if err := syncDir(filepath.Dir(found.name)); err != nil {
		file.Close()
		return nil, err
	}
	found.ownSync.Store(file)
	return &walSyncer{f: found, file: file, sync: sync}, nil
}

// Sync makes durable every commit that returned before it was called.
func (s *walSyncer) Sync() error { return s.sync(s.file) }

// Close gives the WAL's syncs back to SQLite. The connection must have
// nothing left to sync.
func (s *walSyncer) Close() error {
	s.f.ownSync.Store(nil)
	return s.file.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
