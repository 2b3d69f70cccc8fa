// Command bare is the load test's baseline: a plain net/http handler that
// reads and decodes the same JSON body pads' save endpoint gets, and answers
// with a small JSON object, with no auth, validation or storage. pads'
// throughput is reported as a ratio of this, measured in the same run.
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
)

func main() {
	addr := flag.String("listen", "127.0.0.1:8090", "listen address")
	flag.Parse()
	http.HandleFunc("POST /patient/savePatientData", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&body); err != nil {
			http.Error(w, `{"message":"Invalid JSON body"}`, http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"message": "Patient data created", "patientUUID": body["patientUUID"]})
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
