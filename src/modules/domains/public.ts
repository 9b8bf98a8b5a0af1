/**
 * The domains module's face: what other modules and the server, the CLI and the composition root
 * use of it. test/architecture/boundaries.test.ts fails on an import of any other file of this
 * folder from outside it (but its table.ts, and its routes in index.ts, which app.ts mounts).
 */

export type { DomainsDeps } from './deps';
export { DomainDirectory, type DomainFacts } from './directory';
export { hostKeyOf } from './host';
export { DomainCreateBody, DomainListModel, DomainPatchBody } from './model';
export { createPostgresDomainStore, listDomainsPostgres } from './postgres/store';
export { DomainSeenWriter } from './seen';
export {
  addDomain,
  checkNewDomain,
  checkNewDomainPatch,
  domainSettingsOf,
  listDomains,
  updateDomain,
} from './service';
export { createSqliteDomainStore, listDomainsSqlite } from './sqlite/store';
export { hostOfOrigin, startDomains } from './start';
export type { DomainLinksPostgres, DomainLinksSqlite, DomainRow, DomainStore } from './store';
