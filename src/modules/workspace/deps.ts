/** What the workspace route needs: the configuration it describes. */
import type { Config } from '../../config';

export interface WorkspaceDeps {
  config: Config;
}
