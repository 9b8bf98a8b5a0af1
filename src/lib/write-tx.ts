/**
 * A write transaction under way, opaque to the services: a store that runs one hands it to its
 * caller's `also` callback, which gives it to another store of the same engine to write in it
 * (SQLite: the connection whose transaction is open; PostgreSQL: the transaction's handle). So
 * two modules' rows commit together while neither service knows the engine, and neither module
 * knows the other's tables.
 */
declare const writeTx: unique symbol;
export type WriteTx = { readonly [writeTx]: true };

/**
 * Work of another module inside a store's write transaction, given the transaction and the rows
 * written. On SQLite it writes before it returns (the transaction is synchronous): a promise it
 * returns is awaited only on PostgreSQL.
 */
export type AlsoInTx<T> = (tx: WriteTx, written: readonly T[]) => void | Promise<void>;
