-- wrk script: each request saves a sensitive record (about 1 KB of JSON)
-- under a fresh random patientUUID, so every request is a durable insert
-- (or, with PADS_LOAD_MODE=update, an update: see below).
-- TOKEN comes from the environment.
local token = os.getenv("TOKEN") or "none"
wrk.method = "POST"
wrk.path = "/patient/savePatientData?dataType=sensitive"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. token

local template = [[{"assessmentType":"faceScan","funnelID":"load-main","email":"patient-%s@example.com","patientUUID":"%s",
"IPAddress":"192.0.2.44","heightFt":5,"heightIn":10,"weightLb":172.5,"diabetic":false,"smoker":"no","hypertension":false,
"hypertensionMedication":false,"heartRateBpm":72,"heartRateVariabilityMs":48.2,"irregularHeartBeats":false,
"systolicBloodPressureMmhg":118,"diastolicBloodPressureMmhg":76,"breathingRateBpm":14,"riskTotalCholestrol":185,
"riskHdl":55,"riskLdl":110,"riskTriglycerdies":120,"smokerRiskStatus":"never","riskBmi":24.7,"oxygen":98,
"riskTenYrCvd":4.2,"riskFraminghamScore":6,"riskBapwv":1250,"riskRestingHeartRate":68,"riskMetSComp":1,
"rmssd":42.5,"ibi":830,"assessmentCompleted":false,"notes":"padding to make the body about one kilobyte long, as a real client sends with its extra keys"}]]

math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))

local function uuid()
  return string.format("%08x-%04x-4%03x-a%03x-%06x%06x",
    math.random(0, 0xffffffff), math.random(0, 0xffff), math.random(0, 0xfff),
    math.random(0, 0xfff), math.random(0, 0xffffff), math.random(0, 0xffffff))
end

-- PADS_LOAD_MODE=update: each request saves one of 10,000 fixed records,
-- so after the first save of each (a create) saves are updates that keep
-- the record's email, as a client's later saves of a patient do.
local update = os.getenv("PADS_LOAD_MODE") == "update"

local function pooled()
  return string.format("00000000-0000-4000-8000-%012d", math.random(1, 10000))
end

request = function()
  local id = update and pooled() or uuid()
  return wrk.format(nil, nil, nil, string.format(template, id, id))
end

-- What run.sh needs to add up several runs: the answers that were not 2xx
-- (a fast error is not a save), the count and time, and the latency at
-- every tenth of a percentile, in microseconds.
done = function(summary, latency, requests)
  io.write(string.format("non2xx=%d\n", summary.errors.status))
  io.write(string.format("requests=%d duration_us=%d\n", summary.requests, summary.duration))
  for i = 1, 1000 do
    io.write(string.format("q %d\n", latency:percentile(i / 10)))
  end
end
