/**
 * The graph engine (VPP's vlib): {@link io.vecflow.dataplane.graph.Node}, input nodes, the
 * {@link io.vecflow.dataplane.graph.Graph} of nodes registered by name, the per-worker dispatcher
 * ({@link io.vecflow.dataplane.graph.Worker}), vectors, the off-heap {@link io.vecflow.dataplane.graph.BufferPool},
 * feature arcs and the per-buffer hold contract.
 *
 * <p>Knows no protocol and no plugin. May depend on {@code graph.mem} only.
 */
package io.vecflow.dataplane.graph;
