package io.vecflow.dataplane;

import io.vecflow.dataplane.control.DataplaneControl.Direction;
import io.vecflow.dataplane.plugins.DataplanePlugin;
import io.vecflow.dataplane.plugins.clove.Clove;
import io.vecflow.dataplane.plugins.lb.LoadBalancer;
import io.vecflow.dataplane.plugins.srlb.SrlbAgent;
import io.vecflow.dataplane.vnet.fib.Forwarding;
import io.vecflow.dataplane.vnet.interfaces.InterfaceTable;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A dataplane's whole configuration: interfaces, forwarding, sFlow, and the settings of the plugins that run (a plugin
 * whose settings are null does not run).
 */
public final class DataplaneSpec {
    /** Worker threads (default 2). */
    public int workers = 2;
    /** Buffers per worker (default 4096). */
    public int buffersPerWorker = 4096;
    /** Sample FIFO records per worker (default 2047). */
    public int fifoCapacity = 2047;
    /** Discard FIFO records per worker (default 64; VPP has 4). */
    public int discardFifoCapacity = 64;
    /** Ports, cross-connects, MACs, MTUs (required). */
    public InterfaceTable interfaces;
    /** Routes and neighbours (default: none). */
    public Forwarding forwarding = new Forwarding.Builder().build();
    /** sFlow sampling rate N (default 10000; 0 disables). */
    public int samplingRate = 10_000;
    /** Header bytes per sample (default 128; 64–256, multiple of 32). */
    public int headerBytes = 128;
    /** Counter polling interval, seconds (default 20). */
    public int pollingIntervalSeconds = 20;
    /** Sampling direction (default rx). */
    public Direction direction = Direction.RX;
    /** Interfaces (by name) with sFlow enabled (default none). */
    public Set<String> sflowInterfaces = new LinkedHashSet<>();
    /** Drop monitoring on (default off, as VPP). */
    public boolean dropMonitoring;
    /** NET_DM alerts per second at most (default 1000; 0 unlimited). */
    public int discardLimitPerSecond = 1000;
    /** PSAMPLE group of ingress samples (default 3, as VPP). */
    public int ingressGroup = 3;
    /** PSAMPLE group of egress samples (default 4, as VPP). */
    public int egressGroup = 4;
    /**
     * OSINDEX of a port without a configured one ({@link InterfaceTable#setOsIndex}): {@code ifOffset + ifIndex}
     * (default 1,000,000,000, hsflowd's {@code vpp { ifOffset }}; see {@link Dataplane#osIndex}).
     */
    public long ifOffset = InterfaceTable.DEFAULT_IF_OFFSET;
    /** Maglev load-balancer settings, or null for none (then the lb commands answer "no load balancer"). */
    public LoadBalancer.Settings lb;
    /** SRLB server-agent settings, or null for none ({@code srlb-sa6} on ip6-unicast, docs/load-balancing.md §3). */
    public SrlbAgent.Settings srlbAgent;
    /**
     * CLOVE vSwitch settings, or null for none ({@code clove4} on ip4-unicast + {@code clove-probe},
     * docs/load-balancing.md §4).
     */
    public Clove.Settings clove;

    /** @return the settings objects the plugins look theirs up in ({@link DataplanePlugin.Context#settings}) */
    public List<Object> pluginSettings() {
        List<Object> l = new ArrayList<>();
        for (Object o : new Object[] {lb, srlbAgent, clove}) {
            if (o != null) {
                l.add(o);
            }
        }
        return l;
    }
}
