/**
 * Where the lab's results go: CSV files, charts, and the lab's tables in ClickHouse (their definitions
 * and the inserts), which the dashboards read.
 *
 * <p>Depends on the collector's ClickHouse rendering only; the simulations do not depend on it.
 */
package io.vecflow.lab.out;
