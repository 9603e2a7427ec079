/**
 * sFlow sampling, the feature the dataplane exists for (so it is not a plugin: {@code Dataplane} wires its three nodes
 * into the base graph, at fixed places in the device-input, interface-output and error-drop arcs, and owns its main
 * thread; the plugin contract reports through it): the {@code sflow}, {@code sflow-egress} and {@code sflow-drop}
 * nodes, the per-worker sample FIFOs and records, the ingress-sample hold, and the main thread that sends PSAMPLE,
 * NET_DM alerts and VPP IF_COUNTERS/STATUS and the LB counter sources' messages.
 *
 * <p>May depend on {@code graph}, {@code vnet} and the netlink emitters; never on a plugin.
 */
package io.vecflow.dataplane.sflow;
