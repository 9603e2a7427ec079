/**
 * The dropmon module (hsflowd mod_dropmon): NET_DM drop alerts as discarded_packet samples 0:5
 * ({@link io.vecflow.hsflowd.dropmon.DropmonModule}, reasons from {@link io.vecflow.hsflowd.dropmon.DropPoints}), and
 * its read loop ({@link io.vecflow.hsflowd.dropmon.DropmonDaemon}), which feeds and ticks the agent.
 *
 * <p>May depend on {@code config} and the agent's package ({@code SflowAgent}); nothing in the agent depends on it.
 */
package io.vecflow.hsflowd.dropmon;
