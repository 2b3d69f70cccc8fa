// Command crash kills pads under load, again and again, and checks that
// nothing it acknowledged was lost. It starts the pads binary given with
// -pads (on SQLite in a fresh directory, or on -database postgres://...),
// a signed-webhook receiver, and paced saves that each complete a form
// (one delivery each) with values of their own; it kills pads with
// SIGKILL at random moments -crashes times, restarting it on the same data
// each time. Then it reads every save that was answered 2xx back through
// the store, checking every value sent, and checks that its delivery
// arrived at least once. It prints
//
//	acknowledged N, lost 0, delivered N, duplicates D
//
// and exits 1 when a save was lost or not delivered. Run it with
// loadtest/crash.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/pads-dev/pads/loadtest/harness"
)

func main() { os.Exit(run()) }

// run is the command; it returns the exit code, so that its deferred
// clean-up runs first.
func run() int {
	o := Options{Progress: os.Stderr}
	flag.StringVar(&o.Pads, "pads", "", "path of the pads binary")
	flag.StringVar(&o.Database, "database", "", "a postgres:// URL (default: SQLite in a fresh directory)")
	fresh := flag.Bool("fresh", true, "with -database: run on a new database of that server, dropped at the end")
	flag.IntVar(&o.Crashes, "crashes", 20, "how many times to kill pads")
	flag.IntVar(&o.Rate, "rate", 500, "saves per second")
	flag.IntVar(&o.Workers, "workers", 32, "concurrent senders")
	flag.DurationVar(&o.MinUp, "min-up", 500*time.Millisecond, "shortest run of pads before a kill")
	flag.DurationVar(&o.MaxUp, "max-up", 3*time.Second, "longest run of pads before a kill")
	flag.DurationVar(&o.Settle, "settle", 60*time.Second, "longest wait for the deliveries once the load stops")
	flag.DurationVar(&o.ReceiverDelay, "receiver-delay", 20*time.Millisecond, "longest time the receiver takes to answer")
	keep := flag.Bool("keep", false, "keep the work directory (config, data, pads' logs)")
	flag.Parse()
	if o.Pads == "" {
		log.Fatal("crash: -pads is required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dir, err := os.MkdirTemp("", "pads-crash-")
	if err != nil {
		log.Fatal(err)
	}
	o.Dir = dir
	if *keep {
		fmt.Fprintln(os.Stderr, "crash: work directory", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	if o.Database != "" && *fresh {
		db, drop, err := harness.FreshDatabase(ctx, o.Database, "pads_crash_")
		if err != nil {
			log.Print(err)
			return 1
		}
		defer drop()
		o.Database = db
	}
	store := "SQLite"
	if o.Database != "" {
		store = "PostgreSQL"
	}
	fmt.Fprintf(os.Stderr, "crash: %s, %d crashes, %d saves/s\n", store, o.Crashes, o.Rate)
	rep, err := Cycle(ctx, o)
	if err != nil {
		log.Print(err)
		return 1
	}
	for _, e := range rep.Examples {
		fmt.Fprintln(os.Stderr, "crash:", e)
	}
	if rep.BadSignatures > 0 {
		fmt.Fprintf(os.Stderr, "crash: %d deliveries with a bad signature\n", rep.BadSignatures)
	}
	fmt.Println(rep)
	if !rep.OK() {
		return 1
	}
	return 0
}
