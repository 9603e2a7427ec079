/**
 * The kernel lab's checks (docs/kernel-lab.md): programs run inside a QEMU guest on a stock kernel with
 * psample, act_sample and drop_monitor, which send real packets and judge what the kernel emits (PSAMPLE, NET_DM)
 * against vecflow's agent and collector.
 *
 * <p>Depends on common, packet, sflow-v5, psample-bridge, hsflowd-compat and collector.
 */
package io.vecflow.lab.kernel;
