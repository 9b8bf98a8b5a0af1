/** The export's query: the single source for validation, types and OpenAPI. */
import { t } from 'elysia';
import { fieldError } from '../../http/errors';
import { oneOf } from '../../http/models';

export const ExportQuery = t.Object({
  clicks: t.Optional(
    oneOf(['0', '1'], {
      description: '1: every raw click too, a line each (after its link). 0 (default): none.',
      error: fieldError('clicks', 'clicks must be 0 or 1'),
    }),
  ),
});
