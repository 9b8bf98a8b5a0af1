/**
 * The auth module's face: what other modules and the server, the CLI and the composition root
 * use of it. test/architecture/boundaries.test.ts fails on an import of any other file of this
 * folder from outside it (but its table.ts, and its routes in index.ts, which app.ts mounts).
 */
export {
  type AccountRow,
  accountSummary,
  checkEmail,
  checkPassword,
  createAccount,
  findAccountByEmail,
  findAccountById,
  getAccountByEmailOrThrow,
  hasAccounts,
  isAdmin,
  prepareAccount,
  ROLES,
  type Role,
  refuseAdminLimit,
} from './accounts';
export { listAccounts, setPassword } from './admin';
export type { AuthDeps } from './deps';
export { type ApiKeyListing, createApiKey, listApiKeys, type Principal, revokeApiKey, verifyApiKey } from './keys';
export { knownProjects } from './limits';
export { EmailField, NEW_PASSWORD, passwordField, RoleModel } from './model';
export { hashPassword } from './passwords';
export { createPostgresAccountStore, createPostgresKeyStore, insertAccountPostgres } from './postgres/store';
export { createSqliteAccountStore, createSqliteKeyStore, insertAccountSqlite } from './sqlite/store';
export type { AccountStore, ApiKeyRow, KeyStore } from './store';
