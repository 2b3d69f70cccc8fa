// Command soak runs pads for a long time under paced saves with
// deliveries, and watches it for leaks. It starts the pads binary given
// with -pads (SQLite in a fresh directory, or -database postgres://...), a
// signed-webhook receiver, and -rate saves per second that each complete
// a form (one delivery each), for -minutes. Each minute it prints pads'
// RSS, goroutines and open files, the WAL's size (SQLite; on PostgreSQL
// the database's size), the saves and deliveries of the minute and the
// p99 of the minute's saves. It exits 1 when a save is not answered 2xx,
// a delivery's signature is bad, RSS at the end exceeds its value at
// minute 2 (with -retention: at the first minute the sweep removed
// records in) by more than -growth (10%), or goroutines, once the load has
// stopped and every save was delivered, exceed their median of that minute
// by more than -growth: a goroutine count under load follows the requests
// in flight (it rises with latency), so only a drained pads shows a leak.
// Run it with loadtest/soak.sh.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/loadtest/harness"
)

func main() { os.Exit(run()) }

// minute is what one row of the table says.
type minute struct {
	saves, deliveries int
	p99               time.Duration
	rss               int64   // bytes, at the minute's end
	heap              int64   // bytes of Go heap in use, at the minute's end
	goroutines, files int     // medians of the minute's samples
	wal               int64   // bytes: the WAL (SQLite) or the database (PostgreSQL)
	swept             float64 // records the retention sweep removed in the minute
}

func run() int {
	padsBin := flag.String("pads", "", "path of the pads binary")
	minutes := flag.Int("minutes", 10, "how long to run")
	rate := flag.Int("rate", 2000, "saves per second (each with one delivery)")
	workers := flag.Int("workers", 64, "concurrent senders")
	database := flag.String("database", "", "a postgres:// URL (default: SQLite in a fresh directory)")
	fresh := flag.Bool("fresh", true, "with -database: run on a new database of that server, dropped at the end")
	period := flag.Duration("period", time.Minute, "the length of one row (shorter for a quick look)")
	growth := flag.Float64("growth", 0.10, "the growth of RSS or goroutines from minute 2 to the end that fails the run")
	keep := flag.Bool("keep", false, "keep the work directory (config, data, pads' log)")
	retention := flag.String("retention", "", "the load client's retention of bodies, deliveries and records (e.g. 2m): the database should level off; the size column is then the SQLite file and its WAL")
	flag.Parse()
	if *padsBin == "" {
		log.Print("soak: -pads is required")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dir, err := os.MkdirTemp("", "pads-soak-")
	if err != nil {
		log.Print(err)
		return 1
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "soak: work directory", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	dbURL := *database
	if dbURL != "" && *fresh {
		u, drop, err := harness.FreshDatabase(ctx, dbURL, "pads_soak_")
		if err != nil {
			log.Print(err)
			return 1
		}
		defer drop()
		dbURL = u
	}

	var mu sync.Mutex
	var deliveries, delivered int
	rc, err := harness.NewReceiver(nil)
	if err != nil {
		log.Print(err)
		return 1
	}
	defer rc.Close()
	rc.OnArrival = func(string, time.Time) {
		mu.Lock()
		deliveries++
		delivered++
		mu.Unlock()
	}
	port, err := harness.FreePort()
	if err != nil {
		log.Print(err)
		return 1
	}
	setup := harness.Setup{Dir: dir, Database: dbURL, Port: port, Receiver: rc.URL}
	if *retention != "" {
		setup.ClientExtra = fmt.Sprintf("    retention: {bodies: %s, deliveries: %s, records: %s}\n", *retention, *retention, *retention)
	}
	path, err := harness.WriteConfig(setup)
	if err != nil {
		log.Print(err)
		return 1
	}
	pads := &harness.Pads{Bin: *padsBin, Config: path, Base: fmt.Sprintf("http://127.0.0.1:%d", port), Logs: dir}
	if err := pads.Start(ctx); err != nil {
		log.Print(err)
		return 1
	}
	defer pads.Stop()

	var latencies []time.Duration // the current minute's saves
	var acked []string            // the patients of the saves answered 2xx
	load := &harness.Load{Base: pads.Base, Rate: *rate, Workers: *workers, OnAck: func(f record.Fields, d time.Duration) {
		mu.Lock()
		latencies = append(latencies, d)
		acked = append(acked, *f.PatientUUID)
		mu.Unlock()
	}}
	lctx, stopLoad := context.WithCancel(ctx)
	loaded := make(chan struct{})
	go func() { load.Run(lctx); close(loaded) }()
	defer func() { stopLoad(); <-loaded }()

	size := walSize(filepath.Join(dir, "data", "pads.db-wal"))
	sizeName := "WAL MiB"
	if *retention != "" {
		// With retention on, the question is whether the database levels off.
		size, sizeName = sqliteSize(filepath.Join(dir, "data", "pads.db")), "db+WAL MiB"
	}
	if dbURL != "" {
		size, sizeName = dbSize(dbURL), "db MiB"
	}
	store := "SQLite"
	if dbURL != "" {
		store = "PostgreSQL"
	}
	fmt.Printf("soak: %s, %d saves/s with deliveries, %d rows of %v\n", store, *rate, *minutes, *period)
	fmt.Printf("%6s %9s %12s %9s %8s %8s %11s %11s %8s %10s\n", "minute", "saves/s", "deliveries/s", "p99", "RSS MiB", "heap MiB", "goroutines", "open files", sizeName, "swept/s")
	var rows []minute
	sweptBefore := swept(pads.Base)
	tick := time.NewTicker(*period / 12) // samples per row
	defer tick.Stop()
	for m := 1; m <= *minutes; m++ {
		begin := time.Now()
		end := begin.Add(*period)
		var gs, fs []int
		for time.Now().Add(*period / 24).Before(end) {
			select {
			case <-ctx.Done():
				return 1
			case <-tick.C:
			}
			gs = append(gs, goroutines(pads.Base))
			fs = append(fs, openFiles(pads.Pid()))
		}
		mu.Lock()
		row := minute{saves: len(latencies), deliveries: deliveries, p99: p99(latencies)}
		latencies, deliveries = latencies[:0], 0
		mu.Unlock()
		row.rss, row.goroutines, row.files, row.wal = rss(pads.Pid()), median(gs), median(fs), size()
		row.heap = int64(metric(pads.Base, "go_memstats_heap_inuse_bytes"))
		rows = append(rows, row)
		secs := time.Since(begin).Seconds()
		sweptNow := swept(pads.Base)
		row.swept = sweptNow - sweptBefore
		rows[len(rows)-1] = row
		fmt.Printf("%6d %9.0f %12.0f %9v %8.1f %8.1f %11d %11d %8.1f %10.0f\n", m, float64(row.saves)/secs, float64(row.deliveries)/secs,
			row.p99.Round(100*time.Microsecond), mib(row.rss), mib(row.heap), row.goroutines, row.files, mib(row.wal), (sweptNow-sweptBefore)/secs)
		sweptBefore = sweptNow
	}
	stopLoad()
	<-loaded
	drained, ok := drain(ctx, pads.Base, load.Sent()-load.Failed(), func() int { mu.Lock(); defer mu.Unlock(); return delivered })
	fmt.Printf("%d saves sent, %d not answered 2xx, %d deliveries with a bad signature\n", load.Sent(), load.Failed(), rc.BadSignatures())
	// pads runs throughout: a save refused (a 429 from the client's save
	// limit, a 503) means the soak did not run at its rate.
	if load.Failed() > 0 || rc.BadSignatures() > 0 {
		fmt.Println("soak: FAIL")
		return 1
	}
	if !ok {
		var missing []string
		for _, id := range acked {
			if !rc.Arrived(id) {
				missing = append(missing, id)
			}
		}
		fmt.Printf("%d acknowledged saves not delivered, the first: %v\n", len(missing), missing[:min(len(missing), 5)])
		fmt.Println("soak: FAIL: deliveries still on their way two minutes after the load stopped (no leak check on a pads that has not drained)")
		return 1
	}
	if len(rows) < 3 {
		fmt.Println("soak: fewer than 3 minutes: no growth check")
		return 0
	}
	b := baseRow(rows, *retention != "")
	base, last := rows[b], rows[len(rows)-1]
	rssGrowth := float64(last.rss)/float64(base.rss) - 1
	gGrowth := float64(drained)/float64(base.goroutines) - 1
	fmt.Printf("from minute %d to minute %d: RSS %+.1f%%; goroutines once drained %d, %+.1f%% of minute %d's (limit +%.0f%% for both)\n",
		b+1, len(rows), 100*rssGrowth, drained, 100*gGrowth, b+1, 100**growth)
	if rssGrowth > *growth || gGrowth > *growth {
		fmt.Println("soak: FAIL")
		return 1
	}
	fmt.Println("soak: ok")
	return 0
}

// drain waits (at most two minutes) until every acknowledged save was
// delivered, then returns the fewest goroutines pads shows over five
// seconds (connections closing and timers ending take a moment), and
// whether it drained.
func drain(ctx context.Context, base string, acked int, delivered func() int) (int, bool) {
	deadline := time.Now().Add(2 * time.Minute)
	for delivered() < acked && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(500 * time.Millisecond)
	}
	if delivered() < acked {
		return 0, false
	}
	fewest := goroutines(base)
	for range 10 {
		time.Sleep(500 * time.Millisecond)
		fewest = min(fewest, goroutines(base))
	}
	return fewest, true
}

func p99(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*99/100)]
}

func median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// rss is the process's resident set, from /proc.
func rss(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// openFiles counts the process's open file descriptors.
func openFiles(pid int) int {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(fds)
}

// goroutines reads go_goroutines from pads' /metrics.
func goroutines(base string) int { return int(metric(base, "go_goroutines")) }

// metric reads one unlabelled metric from pads' /metrics (0 if absent).
// baseRow is the row the growth check starts from: minute 2, once the
// start is over; with retention on, the first minute the sweep removed
// records in (if later), for the sweep is a workload of its own, with
// its own memory, which the minutes before it do not have.
func baseRow(rows []minute, retention bool) int {
	if retention {
		for i, r := range rows[1 : len(rows)-1] {
			if r.swept > 0 {
				return i + 1
			}
		}
	}
	return 1
}

// swept is how many records the retention sweep removed so far: with a
// short retention, the rate should match the saves'.
func swept(base string) float64 {
	return metric(base, `pads_retention_removed_total{kind="records"}`)
}

func metric(base, name string) float64 {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			n, _ := strconv.ParseFloat(v, 64)
			return n
		}
	}
	return 0
}

// sqliteSize is the SQLite database's size: its file and its WAL.
func sqliteSize(path string) func() int64 {
	db, wal := walSize(path), walSize(path+"-wal")
	return func() int64 { return db() + wal() }
}

func walSize(path string) func() int64 {
	return func() int64 {
		st, err := os.Stat(path)
		if err != nil {
			return 0
		}
		return st.Size()
	}
}

// dbSize is the PostgreSQL database's size: PostgreSQL's WAL belongs to
// the whole server, so the database's own growth is shown instead.
func dbSize(url string) func() int64 {
	return func() int64 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return 0
		}
		defer conn.Close(ctx)
		var n int64
		conn.QueryRow(ctx, "SELECT pg_database_size(current_database())").Scan(&n)
		return n
	}
}
