/**
 * The plugin contract: {@link io.vecflow.dataplane.plugins.DataplanePlugin}, which every plugin implements and
 * lists in {@code META-INF/services}; the dataplane finds plugins through {@link java.util.ServiceLoader} and names
 * none. Plugins live in the subpackages ({@code sflow}, {@code lb}, {@code srlb}, {@code clove}).
 *
 * <p>May depend on {@code graph}, {@code vnet} and {@code sflow} (the LB counter sources).
 */
package io.vecflow.dataplane.plugins;
