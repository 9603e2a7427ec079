/**
 * The vpp module (hsflowd mod_vpp): VPP's port table ({@code VppPorts}), IF_COUNTERS as 0:4 counters samples, STATUS
 * drops, vecflow's LB_COUNTERS ({@link io.vecflow.hsflowd.vpp.VppModule}).
 *
 * <p>May depend on {@code datagram} and {@code config}.
 */
package io.vecflow.hsflowd.vpp;
