package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/pads-dev/pads/internal/record"
)

// Patient is the i-th save of a load: a new patient whose form is
// complete (so the save raises one event, one delivery), with a value of
// its own in every field it gives, so a read back can tell each record's
// values from any other's.
func Patient(i int) record.Fields {
	sexes := []string{"female", "male"}
	return record.Fields{
		AssessmentType: new("faceScan"),
		FunnelID:       new(Funnel),
		PatientUUID:    new(uuid.NewString()),
		Email:          new(fmt.Sprintf("p%d@example.com", i)),
		FirstName:      new(fmt.Sprintf("Ada%d", i)),
		LastName:       new(fmt.Sprintf("Lovelace%d", i)),
		PhoneNumber:    new(fmt.Sprintf("555-%07d", i%10_000_000)),
		ZipCode:        new(fmt.Sprintf("%05d", i%100_000)),
		BiologicalSex:  new(sexes[i%2]),
		Age:            new(float64(18 + i%80)),
		// Born that many years ago and up to 300 days more: pads refuses
		// an age and a date of birth more than a year apart.
		DateOfBirth:    new(time.Now().UTC().AddDate(-(18 + i%80), 0, -(i % 300)).Format(time.DateOnly)),
		City:           new(fmt.Sprintf("city-%d", i)),
		State:          new(fmt.Sprintf("state-%d", i%50)),
		ContactConsent: new(i%3 == 0),
		FormCompleted:  new(true),
	}
}

// Mismatch names the first field given in sent whose value stored does
// not hold, or returns "".
func Mismatch(sent, stored record.Fields) string {
	a, b := reflect.ValueOf(sent), reflect.ValueOf(stored)
	for i := range a.NumField() {
		want := a.Field(i)
		if want.IsNil() {
			continue
		}
		got := b.Field(i)
		if got.IsNil() || !reflect.DeepEqual(want.Elem().Interface(), got.Elem().Interface()) {
			return a.Type().Field(i).Name
		}
	}
	return ""
}

// Token authenticates the load's client at base.
func Token(base string) (string, error) {
	resp, err := http.Post(base+"/storage/authenticate", "application/json",
		bytes.NewReader([]byte(fmt.Sprintf(`{"username":%q,"password":%q}`, Client, APIKey))))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct{ Token string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		return "", fmt.Errorf("authenticate: %d %v", resp.StatusCode, err)
	}
	return out.Token, nil
}

// Load sends paced saves of new patients to pads until its context ends.
type Load struct {
	Base    string
	Rate    int // saves per second
	Workers int
	// OnAck is told each save answered 2xx: the fields it sent and how
	// long the answer took. It may be called from several goroutines.
	OnAck func(f record.Fields, latency time.Duration)

	token  atomic.Pointer[string]
	failed atomic.Int64
	// refused counts the saves answered 4xx but 401.
	refused atomic.Int64
	sent    atomic.Int64
}

// Failed counts saves not answered 2xx (refused, or pads was down).
func (l *Load) Failed() int { return int(l.failed.Load()) }

// Refused counts saves answered 4xx (but 401, an expired token): the
// load's bodies or its client refused, which no outage explains.
func (l *Load) Refused() int { return int(l.refused.Load()) }

// Sent counts saves sent.
func (l *Load) Sent() int { return int(l.sent.Load()) }

// Run sends saves until ctx ends, then waits for the answers under way.
func (l *Load) Run(ctx context.Context) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: l.Workers}}
	jobs := make(chan int, l.Workers)
	var wg sync.WaitGroup
	for range l.Workers {
		wg.Go(func() {
			for i := range jobs {
				l.save(client, i)
			}
		})
	}
	start := time.Now()
	for n := 0; ctx.Err() == nil; n++ {
		due := start.Add(time.Duration(n) * time.Second / time.Duration(l.Rate))
		if w := time.Until(due); w > 0 {
			select {
			case <-ctx.Done():
			case <-time.After(w):
			}
		} else if w < -time.Second {
			// Fallen behind (pads was down): start the pace over rather
			// than send the backlog at once.
			start, n = time.Now(), 0
		}
		// Counted once handed over: a save the end of ctx stopped was not
		// sent, and counting it would wait for a delivery that cannot come.
		select {
		case jobs <- int(l.sent.Load()) + 1:
			l.sent.Add(1)
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
}

func (l *Load) save(client *http.Client, i int) {
	f := Patient(i)
	body, _ := json.Marshal(f)
	tok := l.token.Load()
	if tok == nil {
		t, err := Token(l.Base)
		if err != nil {
			l.failed.Add(1)
			time.Sleep(50 * time.Millisecond) // pads is down: no spinning
			return
		}
		l.token.Store(&t)
		tok = &t
	}
	req, _ := http.NewRequest("POST", l.Base+"/patient/savePatientData?dataType=non-sensitive", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+*tok)
	req.Header.Set("Content-Type", "application/json")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		l.failed.Add(1)
		time.Sleep(50 * time.Millisecond)
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	latency := time.Since(start)
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		l.token.Store(nil) // expired: authenticate again
		l.failed.Add(1)
	case resp.StatusCode/100 == 4:
		// Not an outage: pads refused the body or the client.
		l.failed.Add(1)
		l.refused.Add(1)
	case resp.StatusCode/100 != 2:
		l.failed.Add(1)
	case l.OnAck != nil:
		l.OnAck(f, latency)
	}
}
