/**
 * The variants module's face: what other modules and the server, the CLI and the composition root
 * use of it. test/architecture/boundaries.test.ts fails on an import of any other file of this
 * folder from outside it (but its table.ts, and its routes in index.ts, which app.ts mounts).
 */
export { bumpVariantCounters, prepareVariantCounters } from './counters';
export type { VariantWrites } from './deps';
export { knownVariantsPostgres, knownVariantsSqlite, linkVariantsPostgres, linkVariantsSqlite } from './known';
export { VariantModel } from './model';
export {
  createPostgresVariantStore,
  deleteVariantPostgres,
  insertVariantPostgres,
  updateVariantPostgres,
} from './postgres/store';
export {
  createSqliteVariantStore,
  deleteVariantSqlite,
  insertVariantSqlite,
  updateVariantSqlite,
} from './sqlite/store';
export type { VariantRow, VariantStore } from './store';
export { toVariant } from './to-variant';
