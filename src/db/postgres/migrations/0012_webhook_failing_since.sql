-- A webhook's first failure since its last success (or since it was enabled): it is disabled
-- only once it has failed for 24 hours without a single success.
ALTER TABLE webhooks ADD COLUMN failing_since int8;
