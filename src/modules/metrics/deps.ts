/** What the metrics route needs: the registry (null when SLINK_METRICS_TOKEN is unset) and its token. */
import type { Config } from '../../config';
import type { Metrics } from './registry';

export interface MetricsDeps {
  config: Config;
  metrics: Metrics | null;
}
