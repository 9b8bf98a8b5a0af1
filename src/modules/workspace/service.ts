/** The workspace: one per installation, described by configuration. */
import type { Config } from '../../config';
import type { Workspace } from './model';

export function describeWorkspace(config: Config): Workspace {
  return {
    name: config.workspaceName,
    hostname: new URL(config.shortHost).hostname,
    shortHost: config.shortHost,
    appHost: config.appHost,
  };
}
