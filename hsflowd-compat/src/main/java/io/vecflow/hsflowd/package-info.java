/**
 * The hsflowd-compatible agent: {@link io.vecflow.hsflowd.SflowAgent} (the state the modules share and the hand-off
 * of each message to its module), {@link io.vecflow.hsflowd.HsflowdDaemon} (the PSAMPLE and VPP USERSOCK read loop)
 * and {@link io.vecflow.hsflowd.AgentAddressWatcher} (re-selects the agent address and hands it to the agent).
 *
 * <p>Packages depend one way: {@code config} &lt; {@code net} &lt; {@code datagram} &lt; {@code vpp} &lt;
 * {@code psample}; {@code counters} depends on {@code config} only (the agent implements its
 * {@code CounterPoller.Sink}); this package uses all of them; {@code dropmon} sits above it (its daemon feeds an
 * {@code SflowAgent}). Nothing here depends on {@code dropmon}.
 */
package io.vecflow.hsflowd;
