// Command receiver is a pads webhook receiver written with the Go standard
// library and the official Standard Webhooks library, to copy from. It
// verifies each delivery's signature and timestamp, takes each webhook-id
// once, answers at once, and hands the work to a worker.
//
//	PADS_WHSEC=whsec_... PADS_RECEIVER_ADDR=127.0.0.1:8787 go run ./docs/receivers/go
//
// It prints one JSON line per event on stdout: where it listens, each
// delivery it processed, each duplicate it dropped and each request it
// refused. Programs that can import Go packages may use
// github.com/pads-dev/pads/receiver instead, which does all of this.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "receiver:", err)
		os.Exit(1)
	}
}

// delivery is what the handler hands to the worker.
type delivery struct {
	id   string
	body []byte
}

func run() error {
	// The destination's auth.hmac secret. Verify checks the signature and
	// refuses a webhook-timestamp more than 5 minutes old or ahead, so a
	// captured request cannot be replayed later.
	wh, err := standardwebhooks.NewWebhook(os.Getenv("PADS_WHSEC"))
	if err != nil || os.Getenv("PADS_WHSEC") == "" {
		return errors.New("set PADS_WHSEC to the destination's whsec_ secret")
	}
	addr := os.Getenv("PADS_RECEIVER_ADDR")
	if addr == "" {
		addr = "127.0.0.1:8787"
	}
	out := &printer{enc: json.NewEncoder(os.Stdout)}
	seen := newSeen(100_000)
	work := make(chan delivery, 1024)

	mux := http.NewServeMux()
	mux.HandleFunc("POST /webhooks/pads", func(w http.ResponseWriter, r *http.Request) {
		// The signature is over the exact bytes: read them before any
		// JSON decoding.
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err != nil {
			http.Error(w, "body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if err := wh.Verify(body, r.Header); err != nil {
			out.print(map[string]string{"rejected": err.Error()})
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		id := r.Header.Get("webhook-id") // the same on every attempt and replay
		if !seen.add(id) {
			out.print(map[string]string{"duplicate": id})
			w.WriteHeader(http.StatusNoContent) // taken before: pads must not retry
			return
		}
		select {
		case work <- delivery{id: id, body: body}:
			w.WriteHeader(http.StatusNoContent) // answer now; the worker does the work
		default:
			seen.forget(id) // not taken: pads retries later
			w.Header().Set("Retry-After", "30")
			http.Error(w, "busy", http.StatusServiceUnavailable)
		}
	})

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	out.print(map[string]string{"listening": ln.Addr().String()})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	var wg sync.WaitGroup
	wg.Go(func() {
		for d := range work {
			process(out, d)
		}
	})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	close(work)
	wg.Wait()
	return nil
}

// process is the work: here, reading which event of which patient the
// delivery carries, in either format, and printing it. A real receiver
// writes to its database or its queue.
func process(out *printer, d delivery) {
	var body struct {
		Type          string  `json:"type"`          // "test" for a test send
		UUID          *string `json:"uuid"`          // seed-json
		FormCompleted *bool   `json:"formCompleted"` // only in the non-sensitive payload
		// UpdatesMessageID, only in a results-updated payload: the earlier
		// message whose results these replace (may be null).
		UpdatesMessageID *string `json:"updatesMessageId"`
		ResourceType     string  `json:"resourceType"` // "Bundle" for fhir-r4
		Meta             struct {
			Tag []struct{ System, Code string } `json:"tag"`
		} `json:"meta"`
		Entry []struct {
			Resource struct {
				Identifier []struct{ System, Value string } `json:"identifier"`
			} `json:"resource"`
		} `json:"entry"`
	}
	if err := json.Unmarshal(d.body, &body); err != nil {
		out.print(map[string]string{"unreadable": d.id})
		return
	}
	line := map[string]string{"processed": d.id, "format": "seed-json", "event": "sensitive"}
	switch {
	case body.Type == "test": // a test send: no patient data, nothing to store
		line["event"] = "test"
	case body.ResourceType == "Bundle":
		line["format"] = "fhir-r4"
		for _, t := range body.Meta.Tag {
			switch t.System {
			case "https://pads.dev/fhir/CodeSystem/event":
				line["event"] = t.Code
			case "https://pads.dev/fhir/CodeSystem/updates-message": // results-updated
				line["updates"] = t.Code
			}
		}
		for _, id := range body.Entry[0].Resource.Identifier { // the Patient comes first
			if id.System == "https://pads.dev/fhir/patient-uuid" {
				line["uuid"] = id.Value
			}
		}
	default:
		if body.FormCompleted != nil || !hasHealth(d.body) {
			line["event"] = "non-sensitive"
		} else if hasField(d.body, "updatesMessageId") {
			// New results replacing those of an earlier message.
			line["event"] = "results-updated"
			if body.UpdatesMessageID != nil {
				line["updates"] = *body.UpdatesMessageID
			}
		}
		if body.UUID != nil {
			line["uuid"] = *body.UUID
		}
	}
	out.print(line)
}

// hasHealth reports whether a seed payload is the sensitive one (or a
// results-updated one), which always has a healthCreditScore field (null
// or not).
func hasHealth(body []byte) bool { return hasField(body, "healthCreditScore") }

// hasField reports whether a JSON object has the field name (null or not).
func hasField(body []byte, name string) bool {
	var fields map[string]json.RawMessage
	json.Unmarshal(body, &fields)
	_, ok := fields[name]
	return ok
}

// seen keeps the latest webhook-ids, up to a bound: pads delivers at
// least once, so the same delivery may come twice. In production keep
// them in your database (a unique key), so a restart forgets none.
type seen struct {
	mu    sync.Mutex
	ids   map[string]bool
	order []string
	max   int
}

func newSeen(max int) *seen { return &seen{ids: map[string]bool{}, max: max} }

func (s *seen) add(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids[id] {
		return false
	}
	if len(s.order) == s.max {
		delete(s.ids, s.order[0])
		s.order = s.order[1:]
	}
	s.ids[id] = true
	s.order = append(s.order, id)
	return true
}

func (s *seen) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.ids, id) // its place in order goes when it comes round
}

// printer writes JSON lines from several goroutines.
type printer struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (p *printer) print(v any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.enc.Encode(v)
}
