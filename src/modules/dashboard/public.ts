/**
 * The dashboard module's face: nothing of it is used outside its folder; app.ts mounts its routes
 * (index.ts). test/architecture/boundaries.test.ts fails on an import of any other file of this
 * folder from outside it.
 */
export {};
