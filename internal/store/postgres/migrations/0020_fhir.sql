-- Each event's FHIR R4 Bundle, snapshotted and sealed beside its payload
-- when the event is raised, for destinations of format fhir-r4. NULL for
-- events raised before pads made Bundles.
ALTER TABLE events ADD COLUMN fhir BYTEA;
