/**
 * The CLOVE vSwitch: the {@code clove4} node (Geneve/VXLAN encap per flowlet, decap, ECN relay), the
 * {@code clove-probe} input node, the overlay headers, its control and counters, and its plugin.
 *
 * <p>May depend on {@code graph}, {@code vnet}, {@code plugins.lb} (decision cookies) and its subpackages, and
 * {@code plugins.clove.path}.
 */
package io.vecflow.dataplane.plugins.clove;
