-- An event raised since pads builds bodies at attempt time keeps one
-- sealed, format-neutral snapshot in payload (the record's values and the
-- results computed then, with their model) and snapshot = true; each
-- attempt builds the body of its destination's current format from it.
-- Events stored before keep their seed payload (and FHIR Bundle) with
-- snapshot = false.
ALTER TABLE events ADD COLUMN snapshot BOOLEAN NOT NULL DEFAULT FALSE;
