/** What the variants module needs: the links module's (a variant is written through the link writer). */
export type { LinksDeps as VariantsDeps } from '../links/deps';
