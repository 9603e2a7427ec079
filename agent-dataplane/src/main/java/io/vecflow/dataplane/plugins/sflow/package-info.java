/**
 * sFlow sampling: the {@code sflow}, {@code sflow-egress} and {@code sflow-drop} nodes, the per-worker
 * sample FIFOs and records, the ingress-sample hold, and the main thread that sends PSAMPLE, NET_DM alerts and VPP
 * IF_COUNTERS/STATUS and the LB counter sources' messages.
 *
 * <p>May depend on {@code graph}, {@code vnet} and the netlink emitters; never on another plugin.
 */
package io.vecflow.dataplane.plugins.sflow;
