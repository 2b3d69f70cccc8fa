package deliver

import (
	"sync/atomic"

	"github.com/pads-dev/pads/internal/config"
	"github.com/pads-dev/pads/internal/store"
)

// Table is one loaded config's destinations as the senders take them:
// made once per load (FromConfig), so an attempt only looks one up.
type Table struct {
	cfg   *config.Config
	byPtr map[*config.Destination]*Destination
	all   []Destination
	// unordered are the destinations with ordering: none.
	unordered []store.DestinationRef
	// byClient are each client's destinations.
	byClient map[string][]store.DestinationRef
}

// FromConfig resolves every destination of cfg once.
func FromConfig(cfg *config.Config) *Table {
	t := &Table{cfg: cfg, byPtr: map[*config.Destination]*Destination{}, byClient: map[string][]store.DestinationRef{}}
	for i := range cfg.Clients {
		cl := &cfg.Clients[i]
		for j := range cl.Destinations {
			d := &cl.Destinations[j]
			t.all = append(t.all, fromConfig(cfg.Destinations, cl.ID, d))
			t.byClient[cl.ID] = append(t.byClient[cl.ID], store.DestinationRef{ClientID: cl.ID, ID: d.ID})
			if d.Ordering == config.OrderingNone {
				t.unordered = append(t.unordered, store.DestinationRef{ClientID: cl.ID, ID: d.ID})
			}
		}
	}
	k := 0
	for i := range cfg.Clients {
		cl := &cfg.Clients[i]
		for j := range cl.Destinations {
			t.byPtr[&cl.Destinations[j]] = &t.all[k]
			k++
		}
	}
	return t
}

// Resolve returns the settings of the destination ref names: by its id,
// or by the key deliveries used before destinations had ids.
func (t *Table) Resolve(ref store.DestinationRef) (*Destination, bool) {
	d := t.cfg.Destination(ref.ClientID, ref.ID)
	if d == nil {
		return nil, false
	}
	return t.byPtr[d], true
}

// All returns every destination of the config.
func (t *Table) All() []Destination { return t.all }

// Unordered returns the destinations whose deliveries go out in any order.
func (t *Table) Unordered() []store.DestinationRef { return t.unordered }

// fromConfig turns a config destination into the value senders take. Its
// auth is the config's as written (deliver/webhook reads it), so a new
// outbound auth method changes config and deliver/webhook only.
func fromConfig(policy config.DestinationPolicy, clientID string, d *config.Destination) Destination {
	out := Destination{
		Ref:     store.DestinationRef{ClientID: clientID, ID: d.ID},
		Type:    d.Type,
		Format:  d.Format,
		Timeout: d.Timeout.D(), MaxPerSecond: d.MaxPerSecond,
		Retry: Retry{Attempts: d.Retry.Attempts, InitialDelay: d.Retry.InitialDelay.D(), Multiplier: d.Retry.Multiplier},
		URL:   d.URL, Headers: d.Headers, Auth: d.Auth,
		TopicARN: d.TopicARN, Region: d.Region, Endpoint: d.Endpoint, RoleARN: d.RoleARN,
		// A local destination's url is a loopback address over plain http
		// (checked at load): the allowance is its own, not the config's.
		AllowPrivateNetworks: policy.AllowPrivateNetworks || d.Local, AllowPlainHTTP: policy.AllowPlainHTTP || d.Local,
	}
	out.HMACKeys = hmacKeys(d.Auth.HMAC)
	return out
}

// Destinations are the destinations in force: a Table swapped whole by
// each config load (Load), read by every attempt (Resolve).
type Destinations struct {
	table   atomic.Pointer[Table]
	senders map[string]Sender
}

// NewDestinations puts cfg's destinations in force for senders.
func NewDestinations(cfg *config.Config, senders map[string]Sender) *Destinations {
	d := &Destinations{senders: senders}
	d.table.Store(FromConfig(cfg))
	return d
}

// Load puts cfg's destinations in force, then tells the senders that keep
// something per destination (Reloader) which ones are in force now.
func (d *Destinations) Load(cfg *config.Config) {
	t := FromConfig(cfg)
	d.table.Store(t)
	for _, s := range d.senders {
		if r, ok := s.(Reloader); ok {
			r.Reload(t.all)
		}
	}
}

// Resolve is the Resolver of the destinations in force.
func (d *Destinations) Resolve(ref store.DestinationRef) (*Destination, bool) {
	return d.table.Load().Resolve(ref)
}

// Unordered returns the destinations in force whose deliveries go out in
// any order (Options.Unordered).
func (d *Destinations) Unordered() []store.DestinationRef { return d.table.Load().unordered }

// MaxPerSecond returns the rate bound in force of a destination
// (Options.MaxPerSecond); 0 for one without, or not in the config.
func (d *Destinations) MaxPerSecond(ref store.DestinationRef) float64 {
	if dest, ok := d.Resolve(ref); ok {
		return dest.MaxPerSecond
	}
	return 0
}

// OfClient returns the client's destinations in force
// (Options.ClientDestinations).
func (d *Destinations) OfClient(client string) []store.DestinationRef {
	return d.table.Load().byClient[client]
}
