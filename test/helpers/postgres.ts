/** The private PostgreSQL server of the tests (the bench uses the same code). */
export { type PgServer, postgresBinDir, startPostgres } from '../../bench/postgres-server.js';
