package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/loadtest/harness"
)

// Options shape one crash cycle.
type Options struct {
	Pads     string // the pads binary
	Database string // a postgres:// URL, or "" for SQLite in Dir
	Dir      string // the config, the SQLite data and pads' logs
	Crashes  int
	Rate     int // saves per second
	Workers  int
	// Each run of pads lasts a random time between MinUp and MaxUp from
	// its start, then it is killed (the last run is stopped gracefully
	// once its deliveries have arrived).
	MinUp, MaxUp time.Duration
	// Settle bounds the wait, after the load stops, for every delivery.
	Settle time.Duration
	// ReceiverDelay is the longest the receiver takes to answer (a random
	// time up to it), so that kills find deliveries in flight.
	ReceiverDelay time.Duration
	Progress      io.Writer
}

// Report is what a crash cycle found.
type Report struct {
	Crashes int
	// Acknowledged counts the saves answered 2xx.
	Acknowledged int
	// Lost counts acknowledged saves whose record is missing or does not
	// hold every value the save sent.
	Lost int
	// Delivered counts acknowledged saves whose delivery arrived at least
	// once.
	Delivered int
	// Duplicates counts arrivals of a delivery beyond its first.
	Duplicates    int
	BadSignatures int
	// Refused counts saves answered 4xx: a crash never explains one, so
	// the load no longer tests what it should (pads refuses its bodies).
	Refused int
	// Examples names a few lost or undelivered saves.
	Examples []string
}

// String is the report's one line.
func (r Report) String() string {
	return fmt.Sprintf("acknowledged %d, lost %d, delivered %d, duplicates %d, refused %d", r.Acknowledged, r.Lost, r.Delivered,
		r.Duplicates, r.Refused)
}

// OK reports whether nothing acknowledged was lost or left undelivered.
func (r Report) OK() bool {
	return r.Lost == 0 && r.Delivered == r.Acknowledged && r.BadSignatures == 0 && r.Refused == 0
}

// Cycle runs the load against pads, kills pads with SIGKILL at random
// moments o.Crashes times, restarting it on the same data each time, and
// then checks every acknowledged save: its record, read back through the
// store, holds every value sent, and its delivery arrived.
func Cycle(ctx context.Context, o Options) (Report, error) {
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	rc, err := harness.NewReceiver(func() time.Duration {
		if o.ReceiverDelay <= 0 {
			return 0
		}
		return rand.N(o.ReceiverDelay)
	})
	if err != nil {
		return Report{}, err
	}
	defer rc.Close()
	port, err := harness.FreePort()
	if err != nil {
		return Report{}, err
	}
	path, err := harness.WriteConfig(harness.Setup{Dir: o.Dir, Database: o.Database, Port: port, Receiver: rc.URL})
	if err != nil {
		return Report{}, err
	}
	logs := filepath.Join(o.Dir, "logs")
	os.MkdirAll(logs, 0o700)
	pads := &harness.Pads{Bin: o.Pads, Config: path, Base: fmt.Sprintf("http://127.0.0.1:%d", port), Logs: logs}
	if err := pads.Start(ctx); err != nil {
		return Report{}, err
	}
	defer pads.Stop()

	var mu sync.Mutex
	acked := map[string]record.Fields{}
	load := &harness.Load{Base: pads.Base, Rate: o.Rate, Workers: o.Workers, OnAck: func(f record.Fields, _ time.Duration) {
		mu.Lock()
		acked[*f.PatientUUID] = f
		mu.Unlock()
	}}
	lctx, stopLoad := context.WithCancel(ctx)
	loaded := make(chan struct{})
	go func() { load.Run(lctx); close(loaded) }()
	up := func() time.Duration { return o.MinUp + rand.N(o.MaxUp-o.MinUp+1) }

	for i := range o.Crashes {
		select {
		case <-ctx.Done():
			stopLoad()
			<-loaded
			return Report{}, ctx.Err()
		case <-time.After(up()):
		}
		pads.Kill()
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		fmt.Fprintf(progress, "crash %d/%d: kill -9 with %d saves acknowledged so far\n", i+1, o.Crashes, n)
		if err := pads.Start(ctx); err != nil {
			stopLoad()
			<-loaded
			return Report{}, fmt.Errorf("restart after crash %d: %w", i+1, err)
		}
	}
	time.Sleep(up())
	stopLoad()
	<-loaded

	// Every acknowledged save's delivery arrives, or Settle ends.
	mu.Lock()
	defer mu.Unlock()
	rep := Report{Crashes: o.Crashes, Acknowledged: len(acked)}
	for deadline := time.Now().Add(o.Settle); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		missing := 0
		for id := range acked {
			if !rc.Arrived(id) {
				missing++
			}
		}
		if missing == 0 {
			break
		}
	}
	pads.Stop()
	rep.Duplicates, rep.BadSignatures = rc.Duplicates(), rc.BadSignatures()

	st, err := harness.OpenStore(ctx, path)
	if err != nil {
		return rep, fmt.Errorf("open the store to read back: %w", err)
	}
	defer st.Close()
	for id, sent := range acked {
		if rc.Arrived(id) {
			rep.Delivered++
		} else if len(rep.Examples) < 5 {
			rep.Examples = append(rep.Examples, "not delivered: "+id)
		}
		rec, err := st.Get(ctx, record.Key{ClientID: harness.Client, PatientUUID: id, AssessmentType: "faceScan"})
		switch {
		case errors.Is(err, store.ErrNotFound):
			rep.Lost++
			rep.Examples = append(rep.Examples, "missing: "+id)
		case err != nil:
			return rep, fmt.Errorf("read record %s: %w", id, err)
		default:
			if f := harness.Mismatch(sent, rec.Fields); f != "" {
				rep.Lost++
				rep.Examples = append(rep.Examples, fmt.Sprintf("record %s: %s differs", id, f))
			}
		}
	}
	rep.Refused = load.Refused()
	fmt.Fprintf(progress, "%d saves sent, %d not answered 2xx (pads was down or the answer was cut), %d deliveries received\n",
		load.Sent(), load.Failed(), rc.Arrivals())
	return rep, nil
}
