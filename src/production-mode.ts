/**
 * Imported first by the entry point (src/index.ts, hence `bun run start` and dist/slink): Elysia
 * reads NODE_ENV once, when it is first imported, and outside production it renders the whole
 * offending value into every validation error, which a hostile body turns into seconds of event
 * loop and gigabytes of memory. The service always runs in production mode; tests import the app
 * directly and keep Elysia's detailed errors.
 */
process.env.NODE_ENV = 'production';
