package io.vecflow.collector.query;

import java.time.Duration;
import java.util.List;

/**
 * Runs one read-only SQL statement on a store and returns its rows, every value as text (numbers in decimal, NULL as
 * null), within a timeout. Implementations: {@link JdbcQueryRunner} (DuckDB), {@link ClickHouseHttpQueryRunner}.
 */
public interface QueryRunner {
    /**
     * @param sql one SELECT, without a FORMAT clause or trailing semicolon
     * @param timeout how long it may run; past that the store is asked to stop it and the call fails
     * @return the rows, each a list of the columns' text in SELECT order
     * @throws StoreException when the store is unreachable, refuses the statement or times out
     */
    List<List<String>> query(String sql, Duration timeout) throws StoreException;

    /** A store that failed: unreachable, an error it returned, or a timeout. The message says which. */
    final class StoreException extends Exception {
        private static final long serialVersionUID = 1L;

        /**
         * @param message what failed, for the API's 503 body (no stack trace reaches a client)
         * @param cause the underlying error, or null
         */
        public StoreException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
