package fhir_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pads-dev/pads/internal/fhir"
	"github.com/pads-dev/pads/internal/record"
)

// edgeRecords are records beyond the payload cases that stress what a
// Bundle may hold: every identity field, text with stray spaces, each
// gender, one blood pressure reading alone, RMSSD, pounds.
func edgeRecords() map[string]record.Record {
	completed := time.Date(2026, 11, 22, 11, 58, 30, 123456789, time.UTC)
	return map[string]record.Record{
		"full-identity": {Fields: record.Fields{AssessmentType: new("face  scan "), FunnelID: new("acme-main"),
			PatientUUID: new("6F1C8B0E-1D2A-4C3B-9E8F-0A1B2C3D4E5F"), Email: new("ada@example.com"), FirstName: new(" Ada "),
			LastName: new("Lovelace"), PhoneNumber: new("+1 617 555 0100"), ZipCode: new("02134"), City: new("Boston"),
			State: new("MA"), BiologicalSex: new("Intersex"), DateOfBirth: new("1990-02-28"), Age: new(36.0),
			SystolicBloodPressureMmhg: new(131.5), HeartRateBpm: new(61.2), Rmssd: new(40.0), WeightLb: new(150.0),
			HeightFt: new(5.0), HeightIn: new(6.0), AssessmentCompleted: new(true)}, AssessmentCompletedAt: completed},
		"gender-f":    {Fields: record.Fields{PatientUUID: new("6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"), BiologicalSex: new("F")}},
		"gender-male": {Fields: record.Fields{PatientUUID: new("6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f"), BiologicalSex: new("male")}},
		"no-patient-uuid": {Key: record.Key{ClientID: "acme", AssessmentType: "faceScan"}, Fields: record.Fields{
			DiastolicBloodPressureMmhg: new(70.0), HeightCm: new(170.0), WeightKg: new(65.0)}},
	}
}

// TestBundlesValidateAgainstR4 runs the npm fhir package's R4 validator
// (test/node/validate-fhir.mjs, installed by .ci/run with npm ci) over
// every golden Bundle and the edge records' Bundles: any error fails.
func TestBundlesValidateAgainstR4(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat("../../test/node/node_modules/fhir/package.json")
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have node and test/node installed (npm ci --prefix test/node): %v", err)
		}
		t.Skipf("the FHIR validator is not installed (node and npm ci --prefix test/node): %v", err)
	}
	dir := t.TempDir()
	for name, rec := range edgeRecords() {
		for _, dt := range []record.DataType{record.NonSensitive, record.Sensitive} {
			b, err := json.Marshal(fhir.Build(dt, rec, at))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, name+"."+string(dt)+".json"), b, 0o644)
		}
	}
	out, err := exec.Command(node, "../../test/node/validate-fhir.mjs", filepath.Join("testdata", "golden"), dir).CombinedOutput()
	if err != nil || !strings.Contains(string(out), " 0 errors") {
		t.Fatalf("FHIR validation: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
