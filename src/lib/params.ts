/** Tracking-parameter checks shared by links, variants and bulk operations. */
import { invalid } from './errors';
import { hasControlChars } from './text';

/** Documented in the OpenAPI document through ParamsModel. */
export const PARAM_LIMITS = { maxKeys: 50, keyLength: 128, valueLength: 1024 } as const;

/** Returns the params unchanged when every key and value is within the documented limits. */
export function checkParams(params: Record<string, string>, field = 'params'): Record<string, string> {
  const keys = Object.keys(params);
  if (keys.length > PARAM_LIMITS.maxKeys) throw invalid(field, `At most ${PARAM_LIMITS.maxKeys} params`);
  for (const key of keys) {
    const value = params[key]!;
    if (key.length === 0 || key.length > PARAM_LIMITS.keyLength) {
      throw invalid(field, `Param names are 1 to ${PARAM_LIMITS.keyLength} characters`);
    }
    if (typeof value !== 'string') throw invalid(field, `Param "${key}" must have a string value`);
    if (value.length > PARAM_LIMITS.valueLength) {
      throw invalid(field, `Param "${key}" is longer than ${PARAM_LIMITS.valueLength} characters`);
    }
    if (hasControlChars(key) || hasControlChars(value))
      throw invalid(field, `Param "${key}" contains control characters`);
    // A lone UTF-16 surrogate cannot be percent-encoded into the redirect's Location.
    if (!key.isWellFormed() || !value.isWellFormed())
      throw invalid(field, `Param "${key}" is not well-formed Unicode text`);
  }
  return params;
}
