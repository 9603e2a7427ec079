/**
 * The collector's Prometheus metrics ({@link io.vecflow.collector.metrics.CollectorMetrics}): counters of every
 * stage, read from a running {@link io.vecflow.collector.Collector}.
 *
 * <p>May depend on every other package of the collector; nothing in the collector depends on it.
 */
package io.vecflow.collector.metrics;
