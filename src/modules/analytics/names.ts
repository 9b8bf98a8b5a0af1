/**
 * The names the API's schemas (model.ts) and the code that fills them share, dependency-free: the
 * statistics' named ranges. (The click record's fields: webhooks/click-record.ts.)
 */
export const RANGES = ['today', '24h', '7d', '30d', '90d', 'all'] as const;
