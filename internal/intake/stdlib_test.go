package intake

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/record"
)

// stdlibMembers is the object walk written with encoding/json's Decoder
// alone (tokens for the keys, json.RawMessage for the values): the walk
// pads would run without scan.go. BenchmarkDecode measures the whole
// decoder with each walk; docs/performance.md says which pads keeps and
// why.
func stdlibMembers(body []byte, fn func(key, v value)) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errNotObject
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return errNotObject
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return errNotObject
		}
		// The key as Decode's value: its decoded text between quotes,
		// read as it stands (escaped false).
		key := t.(string)
		k := value{kind: '"', raw: append(append(make([]byte, 0, len(key)+2), '"'), append([]byte(key), '"')...)}
		fn(k, rawValue(raw))
	}
	if _, err := dec.Token(); err != nil {
		return errNotObject
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errNotObject // something after the object
	}
	return nil
}

// rawValue classifies a member value as scan.go does.
func rawValue(raw json.RawMessage) value {
	switch c := raw[0]; c {
	case '"':
		return value{kind: '"', raw: raw, escaped: bytes.IndexByte(raw, '\\') >= 0}
	case '{', '[', 't', 'f', 'n':
		return value{kind: c, raw: raw}
	}
	return value{kind: '0', raw: raw}
}

// The two walks decode the same bodies to the same requests.
func TestTheStdlibWalkDecodesAsTheHandWrittenOne(t *testing.T) {
	today := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	for _, body := range []string{
		string(benchBody),
		`{"assessmentType":"faceScan","funnelID":"f","email":"a@example.com","first_name":"Zo\u00eb \"Z\"","zip":2134,"city":null,"x":[1,{"y":"]"}]}`,
		`{"assessmentType":"faceScan","funnelID":"f","email":"a@example.com","oxygen":120}`,
		`{"a":1}`, `[1]`, `{"a":1} {}`,
	} {
		for _, dt := range []record.DataType{record.Sensitive, record.NonSensitive} {
			want, werr := decode([]byte(body), dt, today, members)
			got, gerr := decode([]byte(body), dt, today, stdlibMembers)
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Fatalf("%s: errors %v and %v", body, werr, gerr)
			}
			if werr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: requests differ:\n%+v\n%+v", body, got, want)
			}
		}
	}
}

// benchBody is the load test's body: about 1 KB, every sensitive field.
var benchBody = []byte(`{"assessmentType":"faceScan","funnelID":"load-main","email":"patient-1@example.com","patientUUID":"6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f",
"IPAddress":"192.0.2.44","heightFt":5,"heightIn":10,"weightLb":172.5,"diabetic":false,"smoker":"no","hypertension":false,
"hypertensionMedication":false,"heartRateBpm":72,"heartRateVariabilityMs":48.2,"irregularHeartBeats":false,
"systolicBloodPressureMmhg":118,"diastolicBloodPressureMmhg":76,"breathingRateBpm":14,"riskTotalCholestrol":185,
"riskHdl":55,"riskLdl":110,"riskTriglycerdies":120,"smokerRiskStatus":"never","riskBmi":24.7,"oxygen":98,
"riskTenYrCvd":4.2,"riskFraminghamScore":6,"riskBapwv":1250,"riskRestingHeartRate":68,"riskMetSComp":1,
"rmssd":42.5,"ibi":830,"assessmentCompleted":false,"notes":"padding to make the body about one kilobyte long"}`)

// BenchmarkDecode decodes the load test's body with each walk: the
// hand-written one pads uses (scan.go) and encoding/json's Decoder. Run:
//
//	go test -run '^$' -bench Decode -benchmem ./internal/intake
func BenchmarkDecode(b *testing.B) {
	today := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	for _, w := range []struct {
		name string
		walk walker
	}{{"walk=hand-written", members}, {"walk=encoding-json", stdlibMembers}} {
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := decode(benchBody, record.Sensitive, today, w.walk); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
