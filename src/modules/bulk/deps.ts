/** What bulk needs: the links module's (every link it writes goes through the link writer). */
export type { LinksDeps as BulkDeps } from '../links/public';
