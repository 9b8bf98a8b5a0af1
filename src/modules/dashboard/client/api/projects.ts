/** The projects calls of /api/v1: folders for links (deleting one unfiles its links). */
import { api } from './client';
import type { Project } from './types';

const V1 = '/api/v1/projects';
const enc = encodeURIComponent;

export const listProjects = () => api.get<{ projects: Project[]; unfiledCount: number; totalCount: number }>(V1);
export const createProject = (name: string) => api.post<Project>(V1, { name });
export const renameProject = (id: string, name: string) => api.patch<Project>(`${V1}/${enc(id)}`, { name });
export const deleteProject = (id: string) => api.del<{ unfiledLinks: number }>(`${V1}/${enc(id)}`);
