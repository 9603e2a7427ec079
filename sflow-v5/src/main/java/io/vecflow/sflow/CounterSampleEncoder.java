package io.vecflow.sflow;

/**
 * Encodes one counters sample — counters_sample (0:2) or counters_sample_expanded (0:4), sflow_version_5.txt
 * "Counter Sample" — from a {@link CounterSample}, with the record layouts of {@link CounterRecords}. The inverse of
 * the counters part of {@link SflowDecoder}: a sample decoded from a datagram encodes back to the same bytes when
 * its padding was zero and none of its records failed or repeated.
 *
 * <p>Allocation-free and stateless; writes through an {@link XdrWriter} and rolls it back on failure.
 */
public final class CounterSampleEncoder {
    private CounterSampleEncoder() {}

    /**
     * Writes the whole sample: data_format ({@code s.kind}: 0:2 or 0:4), the length (back-patched), sequence_number,
     * source_id (compact {@code type << 24 | index} for 0:2, two words type and index for 0:4), the record count and
     * then every record listed in {@code s.recordFormats}, in that order: decoded formats
     * ({@link CounterRecords#isDecoded}) from their holders, the others from the kept raw bodies
     * ({@code s.unknownFormats}/{@code s.unknownBodies}, consumed in their order). Numeric fields are written as
     * their XDR width (low 32 bits of a u32 field, low 48 bits of a MAC, low 8 bits of a LACP state octet);
     * host_cpu writes 80 bytes when {@code hasStealGuest}, else 68; jvm_statistics 108 when {@code hasFdCounts},
     * else 100; strings are padded with zeros.
     *
     * @param s the sample to write (read only)
     * @param w the writer; on failure it is rolled back to where it stood ({@code w.reset(mark)})
     * @return true if the sample was written; false if it did not fit, if the writer had already overflowed (left
     *         untouched), or if the sample cannot be encoded faithfully: kind not 0:2/0:4; a compact source_id type
     *         above 255 or index above 2^24 - 1; fewer records listed than declared ({@code recordCount}); a listed
     *         decoded format whose {@code has...} flag is clear (e.g. a record that failed to decode); a listed
     *         raw format without a matching kept body; a count above its capacity or a string above its maximum
     */
    public static boolean encode(CounterSample s, XdrWriter w) {
        if (w.overflow()) {
            return false;
        }
        int mark = w.mark();
        if (!sample(s, w) || w.overflow()) {
            w.reset(mark);
            return false;
        }
        return true;
    }

    private static boolean sample(CounterSample s, XdrWriter w) {
        boolean expanded;
        if (s.kind == SflowFormats.COUNTERS_SAMPLE) {
            expanded = false;
            if (s.sourceIdType < 0 || s.sourceIdType > 0xFF || s.sourceIdIndex < 0 || s.sourceIdIndex > 0xFFFFFF) {
                return false;
            }
        } else if (s.kind == SflowFormats.COUNTERS_SAMPLE_EXPANDED) {
            expanded = true;
        } else {
            return false;
        }
        if (s.recordsListed < s.recordCount || s.recordsListed < 0) {
            return false;
        }
        w.u32(s.kind);
        int length = w.beginLength();
        w.u32(s.sequenceNumber);
        if (expanded) {
            w.u32(s.sourceIdType);
            w.u32(s.sourceIdIndex);
        } else {
            w.u32((long) s.sourceIdType << 24 | s.sourceIdIndex);
        }
        w.u32(s.recordsListed);
        int raw = 0;
        int kept = s.unknownKept();
        for (int i = 0; i < s.recordsListed; i++) {
            int format = s.recordFormats[i];
            if (CounterRecords.isDecoded(format)) {
                if (!record(s.records, format, w)) {
                    return false;
                }
            } else {
                if (raw >= kept || s.unknownFormats[raw] != format) {
                    return false;
                }
                w.u32(format);
                w.opaque(s.unknownBodies[raw]); // length, body, zero padding: the record's own encoding
                raw++;
            }
        }
        w.endLength(length);
        return true;
    }

    /** Writes one decoded record: data_format, length (back-patched), body from its holder. */
    private static boolean record(CounterRecords r, int format, XdrWriter w) {
        w.u32(format);
        int length = w.beginLength();
        boolean ok = switch (format) {
            case CounterRecords.IF_COUNTERS -> r.hasIfCounters && writeIfCounters(r.ifCounters, w);
            case CounterRecords.ETHERNET -> r.hasEthernet && writeEthernet(r.ethernet, w);
            case CounterRecords.TOKEN_RING -> r.hasTokenRing && writeTokenRing(r.tokenRing, w);
            case CounterRecords.VG -> r.hasVg && writeVg(r.vg, w);
            case CounterRecords.VLAN -> r.hasVlan && writeVlan(r.vlan, w);
            case CounterRecords.LACP -> r.hasLacp && writeLacp(r.lacp, w);
            case CounterRecords.SFP -> r.hasSfp && writeSfp(r.sfp, w);
            case CounterRecords.PROCESSOR -> r.hasProcessor && writeProcessor(r.processor, w);
            case CounterRecords.PORT_NAME -> r.hasPortName && writePortName(r.portName, w);
            case CounterRecords.HOST_DESCR -> r.hasHostDescr && writeHostDescr(r.hostDescr, w);
            case CounterRecords.HOST_ADAPTERS -> r.hasHostAdapters && writeHostAdapters(r.hostAdapters, w);
            case CounterRecords.HOST_PARENT -> r.hasHostParent && writeHostParent(r.hostParent, w);
            case CounterRecords.HOST_CPU -> r.hasHostCpu && writeHostCpu(r.hostCpu, w);
            case CounterRecords.HOST_MEMORY -> r.hasHostMemory && writeHostMemory(r.hostMemory, w);
            case CounterRecords.HOST_DISK_IO -> r.hasHostDiskIo && writeHostDiskIo(r.hostDiskIo, w);
            case CounterRecords.HOST_NET_IO -> r.hasHostNetIo && writeHostNetIo(r.hostNetIo, w);
            case CounterRecords.MIB2_IP -> r.hasMib2Ip && writeMib2Ip(r.mib2Ip, w);
            case CounterRecords.MIB2_ICMP -> r.hasMib2Icmp && writeMib2Icmp(r.mib2Icmp, w);
            case CounterRecords.MIB2_TCP -> r.hasMib2Tcp && writeMib2Tcp(r.mib2Tcp, w);
            case CounterRecords.MIB2_UDP -> r.hasMib2Udp && writeMib2Udp(r.mib2Udp, w);
            case CounterRecords.VIRT_NODE -> r.hasVirtNode && writeVirtNode(r.virtNode, w);
            case CounterRecords.VIRT_CPU -> r.hasVirtCpu && writeVirtCpu(r.virtCpu, w);
            case CounterRecords.VIRT_MEMORY -> r.hasVirtMemory && writeVirtMemory(r.virtMemory, w);
            case CounterRecords.VIRT_DISK_IO -> r.hasVirtDiskIo && writeVirtDiskIo(r.virtDiskIo, w);
            case CounterRecords.VIRT_NET_IO -> r.hasVirtNetIo && writeVirtNetIo(r.virtNetIo, w);
            case CounterRecords.JVM_RUNTIME -> r.hasJvmRuntime && writeJvmRuntime(r.jvmRuntime, w);
            case CounterRecords.JVM_STATISTICS -> r.hasJvmStatistics && writeJvmStatistics(r.jvmStatistics, w);
            default -> false;
        };
        w.endLength(length);
        return ok;
    }

    private static boolean writeIfCounters(CounterRecords.IfCounters c, XdrWriter w) {
        w.u32(c.ifIndex);
        w.u32(c.ifType);
        w.u64(c.ifSpeed);
        w.u32(c.ifDirection);
        w.u32(c.ifStatus);
        w.u64(c.inOctets);
        w.u32(c.inUcastPkts);
        w.u32(c.inMulticastPkts);
        w.u32(c.inBroadcastPkts);
        w.u32(c.inDiscards);
        w.u32(c.inErrors);
        w.u32(c.inUnknownProtos);
        w.u64(c.outOctets);
        w.u32(c.outUcastPkts);
        w.u32(c.outMulticastPkts);
        w.u32(c.outBroadcastPkts);
        w.u32(c.outDiscards);
        w.u32(c.outErrors);
        w.u32(c.promiscuousMode);
        return true;
    }

    private static boolean writeEthernet(CounterRecords.EthernetCounters c, XdrWriter w) {
        w.u32(c.alignmentErrors);
        w.u32(c.fcsErrors);
        w.u32(c.singleCollisionFrames);
        w.u32(c.multipleCollisionFrames);
        w.u32(c.sqeTestErrors);
        w.u32(c.deferredTransmissions);
        w.u32(c.lateCollisions);
        w.u32(c.excessiveCollisions);
        w.u32(c.internalMacTransmitErrors);
        w.u32(c.carrierSenseErrors);
        w.u32(c.frameTooLongs);
        w.u32(c.internalMacReceiveErrors);
        w.u32(c.symbolErrors);
        return true;
    }

    private static boolean writeTokenRing(CounterRecords.TokenRingCounters c, XdrWriter w) {
        w.u32(c.lineErrors);
        w.u32(c.burstErrors);
        w.u32(c.acErrors);
        w.u32(c.abortTransErrors);
        w.u32(c.internalErrors);
        w.u32(c.lostFrameErrors);
        w.u32(c.receiveCongestions);
        w.u32(c.frameCopiedErrors);
        w.u32(c.tokenErrors);
        w.u32(c.softErrors);
        w.u32(c.hardErrors);
        w.u32(c.signalLoss);
        w.u32(c.transmitBeacons);
        w.u32(c.recoverys);
        w.u32(c.lobeWires);
        w.u32(c.removes);
        w.u32(c.singles);
        w.u32(c.freqErrors);
        return true;
    }

    private static boolean writeVg(CounterRecords.VgCounters c, XdrWriter w) {
        w.u32(c.inHighPriorityFrames);
        w.u64(c.inHighPriorityOctets);
        w.u32(c.inNormPriorityFrames);
        w.u64(c.inNormPriorityOctets);
        w.u32(c.inIpmErrors);
        w.u32(c.inOversizeFrameErrors);
        w.u32(c.inDataErrors);
        w.u32(c.inNullAddressedFrames);
        w.u32(c.outHighPriorityFrames);
        w.u64(c.outHighPriorityOctets);
        w.u32(c.transitionIntoTrainings);
        w.u64(c.hcInHighPriorityOctets);
        w.u64(c.hcInNormPriorityOctets);
        w.u64(c.hcOutHighPriorityOctets);
        return true;
    }

    private static boolean writeVlan(CounterRecords.VlanCounters c, XdrWriter w) {
        w.u32(c.vlanId);
        w.u64(c.octets);
        w.u32(c.ucastPkts);
        w.u32(c.multicastPkts);
        w.u32(c.broadcastPkts);
        w.u32(c.discards);
        return true;
    }

    private static boolean writeLacp(CounterRecords.LacpCounters c, XdrWriter w) {
        w.mac(c.actorSystemId);
        w.mac(c.partnerSystemId);
        w.u32(c.attachedAggId);
        w.u32((c.actorAdminState & 0xFFL) << 24 | (c.actorOperState & 0xFF) << 16 | (c.partnerAdminState & 0xFF) << 8
                | (c.partnerOperState & 0xFF));
        w.u32(c.lacpdusRx);
        w.u32(c.markerPdusRx);
        w.u32(c.markerResponsePdusRx);
        w.u32(c.unknownRx);
        w.u32(c.illegalRx);
        w.u32(c.lacpdusTx);
        w.u32(c.markerPdusTx);
        w.u32(c.markerResponsePdusTx);
        return true;
    }

    private static boolean writeSfp(CounterRecords.SfpCounters c, XdrWriter w) {
        if (c.lanesCount < 0 || c.lanesCount > CounterRecords.MAX_SFP_LANES) {
            return false;
        }
        w.u32(c.moduleId);
        w.u32(c.moduleTotalLanes);
        w.u32(c.moduleSupplyVoltage);
        w.u32(c.moduleTemperature);
        w.u32(c.lanesCount);
        for (int i = 0; i < c.lanesCount; i++) {
            CounterRecords.SfpCounters.Lane l = c.lanes[i];
            w.u32(l.laneIndex);
            w.u32(l.txBiasCurrent);
            w.u32(l.txPower);
            w.u32(l.txPowerMin);
            w.u32(l.txPowerMax);
            w.u32(l.txWavelength);
            w.u32(l.rxPower);
            w.u32(l.rxPowerMin);
            w.u32(l.rxPowerMax);
            w.u32(l.rxWavelength);
        }
        return true;
    }

    private static boolean writeProcessor(CounterRecords.ProcessorCounters c, XdrWriter w) {
        w.u32(c.cpu5s);
        w.u32(c.cpu1m);
        w.u32(c.cpu5m);
        w.u64(c.totalMemory);
        w.u64(c.freeMemory);
        return true;
    }

    private static boolean writePortName(CounterRecords.PortName c, XdrWriter w) {
        if (c.name.length > CounterRecords.MAX_PORT_NAME) {
            return false;
        }
        w.opaque(c.name);
        return true;
    }

    private static boolean writeHostDescr(CounterRecords.HostDescr c, XdrWriter w) {
        if (c.hostname.length > CounterRecords.MAX_HOSTNAME || c.osRelease.length > CounterRecords.MAX_OS_RELEASE) {
            return false;
        }
        w.opaque(c.hostname);
        w.fixed(c.uuid, 0, 16);
        w.u32(c.machineType);
        w.u32(c.osName);
        w.opaque(c.osRelease);
        return true;
    }

    private static boolean writeHostAdapters(CounterRecords.HostAdapters c, XdrWriter w) {
        if (c.count < 0 || c.count > CounterRecords.MAX_ADAPTERS) {
            return false;
        }
        w.u32(c.count);
        for (int i = 0; i < c.count; i++) {
            CounterRecords.HostAdapters.Adapter a = c.adapters[i];
            if (a.macsCount < 0 || a.macsCount > CounterRecords.MAX_MACS_PER_ADAPTER) {
                return false;
            }
            w.u32(a.ifIndex);
            w.u32(a.macsCount);
            for (int k = 0; k < a.macsCount; k++) {
                w.mac(a.macs[k]);
            }
        }
        return true;
    }

    private static boolean writeHostParent(CounterRecords.HostParent c, XdrWriter w) {
        w.u32(c.containerType);
        w.u32(c.containerIndex);
        return true;
    }

    private static boolean writeHostCpu(CounterRecords.HostCpu c, XdrWriter w) {
        w.f32(c.loadOne);
        w.f32(c.loadFive);
        w.f32(c.loadFifteen);
        w.u32(c.procRun);
        w.u32(c.procTotal);
        w.u32(c.cpuNum);
        w.u32(c.cpuSpeed);
        w.u32(c.uptime);
        w.u32(c.cpuUser);
        w.u32(c.cpuNice);
        w.u32(c.cpuSystem);
        w.u32(c.cpuIdle);
        w.u32(c.cpuWio);
        w.u32(c.cpuIntr);
        w.u32(c.cpuSintr);
        w.u32(c.interrupts);
        w.u32(c.contexts);
        if (!c.hasStealGuest) {
            return true;
        }
        w.u32(c.cpuSteal);
        w.u32(c.cpuGuest);
        w.u32(c.cpuGuestNice);
        return true;
    }

    private static boolean writeHostMemory(CounterRecords.HostMemory c, XdrWriter w) {
        w.u64(c.memTotal);
        w.u64(c.memFree);
        w.u64(c.memShared);
        w.u64(c.memBuffers);
        w.u64(c.memCached);
        w.u64(c.swapTotal);
        w.u64(c.swapFree);
        w.u32(c.pageIn);
        w.u32(c.pageOut);
        w.u32(c.swapIn);
        w.u32(c.swapOut);
        return true;
    }

    private static boolean writeHostDiskIo(CounterRecords.HostDiskIo c, XdrWriter w) {
        w.u64(c.diskTotal);
        w.u64(c.diskFree);
        w.u32(c.partMaxUsed);
        w.u32(c.reads);
        w.u64(c.bytesRead);
        w.u32(c.readTime);
        w.u32(c.writes);
        w.u64(c.bytesWritten);
        w.u32(c.writeTime);
        return true;
    }

    private static boolean writeHostNetIo(CounterRecords.HostNetIo c, XdrWriter w) {
        w.u64(c.bytesIn);
        w.u32(c.pktsIn);
        w.u32(c.errsIn);
        w.u32(c.dropsIn);
        w.u64(c.bytesOut);
        w.u32(c.pktsOut);
        w.u32(c.errsOut);
        w.u32(c.dropsOut);
        return true;
    }

    private static boolean writeMib2Ip(CounterRecords.Mib2IpGroup c, XdrWriter w) {
        w.u32(c.ipForwarding);
        w.u32(c.ipDefaultTTL);
        w.u32(c.ipInReceives);
        w.u32(c.ipInHdrErrors);
        w.u32(c.ipInAddrErrors);
        w.u32(c.ipForwDatagrams);
        w.u32(c.ipInUnknownProtos);
        w.u32(c.ipInDiscards);
        w.u32(c.ipInDelivers);
        w.u32(c.ipOutRequests);
        w.u32(c.ipOutDiscards);
        w.u32(c.ipOutNoRoutes);
        w.u32(c.ipReasmTimeout);
        w.u32(c.ipReasmReqds);
        w.u32(c.ipReasmOKs);
        w.u32(c.ipReasmFails);
        w.u32(c.ipFragOKs);
        w.u32(c.ipFragFails);
        w.u32(c.ipFragCreates);
        return true;
    }

    private static boolean writeMib2Icmp(CounterRecords.Mib2IcmpGroup c, XdrWriter w) {
        w.u32(c.icmpInMsgs);
        w.u32(c.icmpInErrors);
        w.u32(c.icmpInDestUnreachs);
        w.u32(c.icmpInTimeExcds);
        w.u32(c.icmpInParamProbs);
        w.u32(c.icmpInSrcQuenchs);
        w.u32(c.icmpInRedirects);
        w.u32(c.icmpInEchos);
        w.u32(c.icmpInEchoReps);
        w.u32(c.icmpInTimestamps);
        w.u32(c.icmpInAddrMasks);
        w.u32(c.icmpInAddrMaskReps);
        w.u32(c.icmpOutMsgs);
        w.u32(c.icmpOutErrors);
        w.u32(c.icmpOutDestUnreachs);
        w.u32(c.icmpOutTimeExcds);
        w.u32(c.icmpOutParamProbs);
        w.u32(c.icmpOutSrcQuenchs);
        w.u32(c.icmpOutRedirects);
        w.u32(c.icmpOutEchos);
        w.u32(c.icmpOutEchoReps);
        w.u32(c.icmpOutTimestamps);
        w.u32(c.icmpOutTimestampReps);
        w.u32(c.icmpOutAddrMasks);
        w.u32(c.icmpOutAddrMaskReps);
        return true;
    }

    private static boolean writeMib2Tcp(CounterRecords.Mib2TcpGroup c, XdrWriter w) {
        w.u32(c.tcpRtoAlgorithm);
        w.u32(c.tcpRtoMin);
        w.u32(c.tcpRtoMax);
        w.u32(c.tcpMaxConn);
        w.u32(c.tcpActiveOpens);
        w.u32(c.tcpPassiveOpens);
        w.u32(c.tcpAttemptFails);
        w.u32(c.tcpEstabResets);
        w.u32(c.tcpCurrEstab);
        w.u32(c.tcpInSegs);
        w.u32(c.tcpOutSegs);
        w.u32(c.tcpRetransSegs);
        w.u32(c.tcpInErrs);
        w.u32(c.tcpOutRsts);
        w.u32(c.tcpInCsumErrors);
        return true;
    }

    private static boolean writeMib2Udp(CounterRecords.Mib2UdpGroup c, XdrWriter w) {
        w.u32(c.udpInDatagrams);
        w.u32(c.udpNoPorts);
        w.u32(c.udpInErrors);
        w.u32(c.udpOutDatagrams);
        w.u32(c.udpRcvbufErrors);
        w.u32(c.udpSndbufErrors);
        w.u32(c.udpInCsumErrors);
        return true;
    }

    private static boolean writeVirtNode(CounterRecords.VirtNode c, XdrWriter w) {
        w.u32(c.mhz);
        w.u32(c.cpus);
        w.u64(c.memory);
        w.u64(c.memoryFree);
        w.u32(c.numDomains);
        return true;
    }

    private static boolean writeVirtCpu(CounterRecords.VirtCpu c, XdrWriter w) {
        w.u32(c.state);
        w.u32(c.cpuTime);
        w.u32(c.nrVirtCpu);
        return true;
    }

    private static boolean writeVirtMemory(CounterRecords.VirtMemory c, XdrWriter w) {
        w.u64(c.memory);
        w.u64(c.maxMemory);
        return true;
    }

    private static boolean writeVirtDiskIo(CounterRecords.VirtDiskIo c, XdrWriter w) {
        w.u64(c.capacity);
        w.u64(c.allocation);
        w.u64(c.available);
        w.u32(c.rdReq);
        w.u64(c.rdBytes);
        w.u32(c.wrReq);
        w.u64(c.wrBytes);
        w.u32(c.errs);
        return true;
    }

    private static boolean writeVirtNetIo(CounterRecords.VirtNetIo c, XdrWriter w) {
        w.u64(c.rxBytes);
        w.u32(c.rxPackets);
        w.u32(c.rxErrs);
        w.u32(c.rxDrop);
        w.u64(c.txBytes);
        w.u32(c.txPackets);
        w.u32(c.txErrs);
        w.u32(c.txDrop);
        return true;
    }

    private static boolean writeJvmRuntime(CounterRecords.JvmRuntime c, XdrWriter w) {
        if (c.vmName.length > CounterRecords.MAX_VM_NAME || c.vmVendor.length > CounterRecords.MAX_VM_VENDOR
                || c.vmVersion.length > CounterRecords.MAX_VM_VERSION) {
            return false;
        }
        w.opaque(c.vmName);
        w.opaque(c.vmVendor);
        w.opaque(c.vmVersion);
        return true;
    }

    private static boolean writeJvmStatistics(CounterRecords.JvmStatistics c, XdrWriter w) {
        w.u64(c.heapInitial);
        w.u64(c.heapUsed);
        w.u64(c.heapCommitted);
        w.u64(c.heapMax);
        w.u64(c.nonHeapInitial);
        w.u64(c.nonHeapUsed);
        w.u64(c.nonHeapCommitted);
        w.u64(c.nonHeapMax);
        w.u32(c.gcCount);
        w.u32(c.gcTime);
        w.u32(c.classesLoaded);
        w.u32(c.classesTotal);
        w.u32(c.classesUnloaded);
        w.u32(c.compilationTime);
        w.u32(c.threadNumLive);
        w.u32(c.threadNumDaemon);
        w.u32(c.threadNumStarted);
        if (!c.hasFdCounts) {
            return true;
        }
        w.u32(c.fdOpenCount);
        w.u32(c.fdMaxCount);
        return true;
    }
}
