/**
 * The dataplane's lifecycle: {@link io.vecflow.dataplane.Dataplane} builds the workers' graphs from a
 * {@link io.vecflow.dataplane.DataplaneSpec} (core nodes, then every {@code DataplanePlugin} in rank order), starts
 * and stops them and answers the show commands; {@code DataplaneAssembly} builds one from the YAML configuration,
 * {@code DataplaneController} puts it behind the control socket, {@code DataplaneMetrics} behind Prometheus.
 *
 * <p>May depend on every package below it; nothing depends on it.
 */
package io.vecflow.dataplane;
