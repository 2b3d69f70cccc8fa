package sqlite_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"

	"github.com/pads-dev/pads/internal/record"
	"github.com/pads-dev/pads/internal/store"
	"github.com/pads-dev/pads/internal/store/sqlite"
	"github.com/pads-dev/pads/internal/store/storetest"
)

// BenchmarkSaveParallel measures durable creates from 64 concurrent callers,
// the shape group commit is built for. Run with:
//
//	go test -run '^$' -bench SaveParallel ./internal/store/sqlite
func BenchmarkSaveParallel(b *testing.B) {
	s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "pads.db"), store.Config{Keys: storetest.Keyring(b, "e1")})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	saves := storetest.Saves(b, s)
	b.SetParallelism(32) // 64 callers on 2 cores
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := uuid.NewString()
			_, err := saves.Save(context.Background(), "acme", storetest.Request("acme", id, id+"@example.com", measurements()))
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkUpdateParallel measures durable updates of existing records from
// 64 concurrent callers: a client's later saves of a patient. Run with:
//
//	go test -run '^$' -bench UpdateParallel ./internal/store/sqlite
func BenchmarkUpdateParallel(b *testing.B) {
	s, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "pads.db"), store.Config{Keys: storetest.Keyring(b, "e1")})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	saves := storetest.Saves(b, s)
	ids := make([]string, 20000)
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	var next atomic.Int64
	save := func(id string) error {
		_, err := saves.Save(context.Background(), "acme", storetest.Request("acme", id, id+"@example.com", measurements()))
		return err
	}
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(ids)); i = next.Add(1) - 1 {
				if err := save(ids[i]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.SetParallelism(32)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := save(ids[rand.IntN(len(ids))]); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// measurements are a sensitive save's usual fields.
func measurements() record.Fields {
	return record.Fields{HeartRateBpm: new(72.0), SystolicBloodPressureMmhg: new(118.0), DiastolicBloodPressureMmhg: new(76.0),
		Oxygen: new(98.0), RiskBmi: new(24.7), SmokerRiskStatus: new("never"), Rmssd: new(42.5), Ibi: new(830.0), Diabetic: new(false)}
}
