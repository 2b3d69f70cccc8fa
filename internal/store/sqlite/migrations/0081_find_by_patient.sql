-- Finding a patient's deliveries (pads deliveries list --patient, the
-- console's search) without a client: the records of a patient uuid.
CREATE INDEX records_by_patient ON records (patient_uuid);
