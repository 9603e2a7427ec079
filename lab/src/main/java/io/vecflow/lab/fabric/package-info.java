/**
 * A flowlet-level fluid model of a 2-leaf leaf–spine fabric for CLOVE vs ECMP ({@link
 * io.vecflow.lab.fabric.FabricSim}) and the flow-size distributions of its two workloads (docs/load-balancing.md §6).
 *
 * <p>Depends on the dataplane's CLOVE path and flowlet classes and its flow hash only.
 */
package io.vecflow.lab.fabric;
