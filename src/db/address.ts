/** Which engine holds the data, and where: enough for a thread to open a connection of its own. */

export type Engine = 'sqlite' | 'postgres';

/** Where a thread opens a connection of its own to the same database (the click writer Worker, the export Worker). */
export type DatabaseAddress = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };
