-- The leased deliveries, few at any time, for taking over the leases of a
-- process that died without reading the whole queue.
CREATE INDEX deliveries_leased ON deliveries (lease_owner) WHERE lease_owner IS NOT NULL;
