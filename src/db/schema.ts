/** Every table, re-exported from the module that owns it (drizzle-kit reads this file). */
export * from '../modules/audit/table';
export * from '../modules/auth/table';
export * from '../modules/clicks/table';
export * from '../modules/domains/table';
export * from '../modules/imports/table';
export * from '../modules/invites/table';
export * from '../modules/links/table';
export * from '../modules/projects/table';
export * from '../modules/rollups/table';
export * from '../modules/sessions/table';
export * from '../modules/variants/table';
export * from '../modules/webhooks/table';
