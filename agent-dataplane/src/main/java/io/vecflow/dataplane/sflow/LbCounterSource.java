package io.vecflow.dataplane.sflow;

import io.vecflow.netlink.vpp.LbCounters;

/**
 * A load-balancing component whose per-VIP / per-backend decision counters the sFlow main thread sends each polling
 * interval as vecflow LB_COUNTERS messages ({@link LbCounters}; issue 6 §4): the {@code LoadBalancer} (roles 1 Maglev,
 * 2 SRLB) and the {@code SrlbAgent} (role 3).
 */
public interface LbCounterSource {
    /** Takes one filled message; returns true if it was sent. */
    @FunctionalInterface
    interface Sink {
        /** @param c the message (valid during the call only) @return true if sent */
        boolean send(LbCounters c);
    }

    /**
     * Fills {@code scratch} once per VIP (and per backend of each VIP, where the component has backends) and hands it
     * to {@code sink}. Allocation-free.
     *
     * @return messages the sink reported as sent
     */
    int reportCounters(LbCounters scratch, Sink sink);
}
