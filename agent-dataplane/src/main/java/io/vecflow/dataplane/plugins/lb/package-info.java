/**
 * The Maglev load balancer (VPP's lb plugin): the {@code lb4}/{@code lb6} nodes, the
 * {@link io.vecflow.dataplane.plugins.lb.LoadBalancer} with its per-VIP snapshots and control, per-worker state, the
 * SRLB encapsulation mode's LB side, decision cookies, the VIP types the control commands use, and its plugin.
 *
 * <p>May depend on {@code graph}, {@code vnet}, {@code sflow}, {@code plugins.lb.maglev},
 * {@code plugins.lb.encap} and {@code plugins.srlb.state}.
 */
package io.vecflow.dataplane.plugins.lb;
