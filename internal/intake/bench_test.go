package intake_test

import (
	"testing"

	"github.com/pads-dev/pads/internal/intake"
	"github.com/pads-dev/pads/internal/record"
)

// sensitiveBody is the load test's body: about 1 KB, every sensitive field.
var sensitiveBody = []byte(`{"assessmentType":"faceScan","funnelID":"load-main","email":"patient-1@example.com","patientUUID":"6f1c8b0e-1d2a-4c3b-9e8f-0a1b2c3d4e5f",
"IPAddress":"192.0.2.44","heightFt":5,"heightIn":10,"weightLb":172.5,"diabetic":false,"smoker":"no","hypertension":false,
"hypertensionMedication":false,"heartRateBpm":72,"heartRateVariabilityMs":48.2,"irregularHeartBeats":false,
"systolicBloodPressureMmhg":118,"diastolicBloodPressureMmhg":76,"breathingRateBpm":14,"riskTotalCholestrol":185,
"riskHdl":55,"riskLdl":110,"riskTriglycerdies":120,"smokerRiskStatus":"never","riskBmi":24.7,"oxygen":98,
"riskTenYrCvd":4.2,"riskFraminghamScore":6,"riskBapwv":1250,"riskRestingHeartRate":68,"riskMetSComp":1,
"rmssd":42.5,"ibi":830,"assessmentCompleted":false,"notes":"padding to make the body about one kilobyte long"}`)

func BenchmarkDecode(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := intake.Decode(sensitiveBody, record.Sensitive, today); err != nil {
			b.Fatal(err)
		}
	}
}
