/**
 * The counters module: host records from /proc and /sys and interface counters from an RTM_GETLINK dump, polled on
 * hsflowd's {@code polling} with a per-ifIndex stagger ({@link io.vecflow.hsflowd.counters.CounterPoller}), handed to
 * a {@link io.vecflow.hsflowd.counters.CounterPoller.Sink} (the agent).
 *
 * <p>May depend on {@code config} only.
 */
package io.vecflow.hsflowd.counters;
