-- One index entry fewer per save (docs/performance.md): a patient's
-- records of every client are found through the records' unique key, one
-- probe per client. An index of random patient uuids was the dearest
-- entry a save wrote.
DROP INDEX records_by_patient;
