/** The access module's face: who is asking (Access), the matrix, and the one authorisation function. */
export {
  accessOf,
  authorize,
  authorizePlace,
  isLimited,
  type LinkFilter,
  linkFilter,
  OPERATOR,
  placeRefusal,
  refusal,
  requireSees,
  sees,
} from './authorize';
export { ACTIONS, type Action, MATRIX, type Rule } from './matrix';
export {
  type Access,
  type Credential,
  type EffectiveScope,
  type Placed,
  ROLES,
  type Role,
  SCOPES,
  type Scope,
  type Via,
} from './model';
