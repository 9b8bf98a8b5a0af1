/** What the projects module needs: the links module's (a deletion unfiles links through the link writer). */
export type { LinksDeps as ProjectsDeps } from '../links/deps';
