/**
 * The links module's face: what other modules and the server, the CLI and the composition root
 * use of it. test/architecture/boundaries.test.ts fails on an import of any other file of this
 * folder from outside it (but its table.ts, and its routes in index.ts, which app.ts mounts).
 */
export { DOMAINS_CHANGED, type LinkChangeFeed } from './changes';
export {
  addFallbackVisits,
  addFallbackVisitsPg,
  bumpLinkCounters,
  existingLinks,
  existingLinksWithSlugs,
  type FallbackVisits,
  prepareLinkCounters,
  storedHumansSqlite,
} from './counters';
export type { LinkReadDeps, LinksDeps } from './deps';
export { domainGoneError, domainOfHost, domainOrDefault, hostOfDomain, seenDomainOfHost } from './domain';
export { domainLinksPostgres, domainLinksSqlite } from './domain-links';
export { linkJsonById } from './event-data';
export {
  addImportedCountsPg,
  addImportedCountsSqlite,
  type ImportedCounts,
  type ImportedKind,
  type ImportedMark,
  importTargetSqlite,
  importTargetsPg,
  markImportedManyPg,
  markImportedPg,
  markImportedSqlite,
  setImportedTotalPg,
  setImportedTotalSqlite,
} from './imported-counters';
export { linkExists, linkExistsCondition } from './link-exists';
export { toLinks } from './links';
export {
  CreateLinkBody,
  DEFAULT_REDIRECT_STATUS,
  domainField,
  LINK_LIMITS,
  type Link,
  LinkListModel,
  LinkModel,
  ListLinksQuery,
  REDIRECT_STATUSES,
  StatusModel,
  tagsField,
  UpdateLinkBody,
} from './model';
export { normalizeFallbackUrl, normalizeLinkDestination, type SlinkHosts, slinkHostsOf } from './own-host';
export { announceLinkChanges, createPostgresLinkChangeFeed } from './postgres/changes';
export { createPostgresClickLimitStore } from './postgres/click-limits';
export {
  createPostgresLinkStore,
  createPostgresLinkWrites,
  type PgClickNamesColumns,
  unfileProjectLinksPostgres,
} from './postgres/store';
export { KNOWN_BROWSERS, KNOWN_OS, REFERRER_ALIASES, RULE_DEVICES } from './rule-names';
export {
  normalizePreview,
  normalizeRules,
  PASSWORD_LIMITS,
  type Preview,
  PreviewModel,
  type Rule,
  RulesField,
} from './rules';
export {
  checkProjectId,
  createLink,
  domainForNew,
  getLinkOrThrow,
  getLinkRowOrThrow,
  humanClicksNow,
  listLinks,
  newLinkRow,
  normalizeTags,
  normalizeTitle,
  unknownProject,
  updateLink,
} from './service';
export { checkCustomSlug, generateSlug, RESERVED_SLUGS } from './slug';
export { createSqliteLinkChangeFeed } from './sqlite/changes';
export { createSqliteLinkStore, createSqliteLinkWrites, unfileProjectLinksSqlite } from './sqlite/store';
export type { ClickLimitStore, ClickNames, LinkRow, LinkStore, LinkWrites, RedirectRow } from './store';
export {
  deleteLinks,
  deleteVariant,
  insertBulkLinks,
  insertVariant,
  linksUnfiled,
  updateLinks,
  updateVariant,
} from './writer';
