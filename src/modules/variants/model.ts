/** Variant schemas. */
import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { IdParams, ParamsModel, StringMapModel } from '../../http/models';

const VARIANT_CODE_PATTERN = '^[A-Za-z0-9_-]{1,32}$';

export const VariantModel = t.Object(
  {
    id: t.String(),
    code: t.String(),
    url: t.String({ description: '{short_host}/<slug>/<code>' }),
    params: StringMapModel,
    clickCount: Type.Integer(),
    createdAt: Type.Integer(),
    updatedAt: Type.Integer(),
  },
  { title: 'Variant' },
);
export type Variant = typeof VariantModel.static;

const Code = t.String({
  pattern: VARIANT_CODE_PATTERN,
  description: '1 to 32 letters, numbers, hyphens or underscores; unique within the link (case-sensitive).',
  error: fieldError('code', 'code must be 1 to 32 letters, numbers, hyphens or underscores'),
});

export const CreateVariantBody = t.Object({ code: Code, params: t.Optional(ParamsModel) });
export type CreateVariantInput = typeof CreateVariantBody.static;

export const UpdateVariantBody = t.Object({ code: t.Optional(Code), params: t.Optional(ParamsModel) });
export type UpdateVariantInput = typeof UpdateVariantBody.static;

export const VariantParams = t.Object({ ...IdParams.properties, variantId: t.String() });
