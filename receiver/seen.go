package receiver

import (
	"context"
	"sync"
)

// Seen keeps the ids of the deliveries a Handler has taken, so that one
// pads sends twice is handled once. Back it with your database (a table
// with a unique key on the id) to deduplicate across restarts and across
// several receiving processes.
type Seen interface {
	// Add records id and reports whether it is new: false means a
	// delivery with this id was taken before.
	Add(ctx context.Context, id string) (bool, error)
	// Forget removes id: its handling failed, and pads' retry must be
	// taken.
	Forget(ctx context.Context, id string) error
}

// NewMemorySeen returns a Seen in memory that keeps the latest capacity
// ids, forgetting the oldest first. It forgets everything on restart: a
// delivery retried across a restart of the receiver is handled again.
func NewMemorySeen(capacity int) Seen {
	return &memorySeen{ids: map[string]struct{}{}, ring: make([]string, max(capacity, 1))}
}

type memorySeen struct {
	mu   sync.Mutex
	ids  map[string]struct{}
	ring []string // the ids in the order they came, ring[next] the oldest
	next int
}

func (m *memorySeen) Add(_ context.Context, id string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.ids[id]; ok {
		return false, nil
	}
	if old := m.ring[m.next]; old != "" {
		delete(m.ids, old)
	}
	m.ring[m.next] = id
	m.next = (m.next + 1) % len(m.ring)
	m.ids[id] = struct{}{}
	return true, nil
}

// Forget drops id, and empties its slot in the ring (a walk of the ring:
// forgetting is for failures, which are rare).
func (m *memorySeen) Forget(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.ids[id]; !ok {
		return nil
	}
	delete(m.ids, id)
	for i, v := range m.ring {
		if v == id {
			m.ring[i] = ""
		}
	}
	return nil
}
