/**
 * SRLB's pure state: the one {@link io.vecflow.dataplane.plugins.srlb.state.SrlbSid} layout, the LB and
 * server-agent flow state machines, the SRLB flow table and the candidate table.
 *
 * <p>May depend on {@code plugins.lb.maglev} (the hash) and {@code plugins.srlb.load} (accept policies).
 */
package io.vecflow.dataplane.plugins.srlb.state;
