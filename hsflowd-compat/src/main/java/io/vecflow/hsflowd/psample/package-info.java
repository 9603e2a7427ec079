/**
 * The psample module (hsflowd mod_psample): PSAMPLE samples as expanded flow samples 0:3, with hsflowd's sampling
 * conventions, sequence-gap drops, one sampler per port and the vecflow LB decision record
 * ({@link io.vecflow.hsflowd.psample.PsampleModule}).
 *
 * <p>May depend on {@code vpp} (VPP's groups 3/4, its ports and drops), {@code datagram} and {@code config}.
 */
package io.vecflow.hsflowd.psample;
