-- A webhook's first failure since its last success (or since it was enabled): it is disabled
-- only once it has failed for 24 hours without a single success.
ALTER TABLE webhooks ADD COLUMN failing_since int8;
-- The secret a rotation replaced, signing deliveries too until previous_secret_until.
ALTER TABLE webhooks ADD COLUMN previous_secret text;
ALTER TABLE webhooks ADD COLUMN previous_secret_until int8;
