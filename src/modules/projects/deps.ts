/**
 * What the projects module needs: its store, the link counts per project (the links store is
 * one), and the step that follows a deletion's unfiling (links/writer.ts linksUnfiled: the slug
 * index refreshed, the events filled), given by the composition root so projects import nothing
 * of links.
 */
import type { Clock } from '../../lib/clock';
import type { LinkFilter } from '../access/public';
import type { ProjectStore } from './store';

export interface ProjectsDeps {
  stores: {
    readonly projects: ProjectStore;
    readonly links: {
      /** Of the links `visible` keeps (a limited caller's); null: every link. */
      countByProject(visible: LinkFilter | null): Promise<Map<string | null, number>>;
      countInProject(projectId: string, visible: LinkFilter | null): Promise<number>;
    };
  };
  clock: Clock;
  /** After a project's deletion unfiled these links (its store's deleteUnfiling). */
  linksUnfiled(ids: string[]): Promise<void>;
}
