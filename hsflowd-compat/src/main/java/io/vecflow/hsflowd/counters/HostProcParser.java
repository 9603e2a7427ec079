package io.vecflow.hsflowd.counters;

import io.vecflow.sflow.CounterRecords;

/**
 * Parsers of the Linux {@code /proc} text behind the sFlow host records (sflow_host.txt), with hsflowd's reading of
 * each field (sflow/host-sflow {@code src/Linux/readCpuCounters.c}, {@code readMemoryCounters.c},
 * {@code readDiskCounters.c}, {@code readNioCounters.c}, {@code readTcpipCounters.c}) except where noted. Each
 * method fills its record holder from a {@link ProcText}; a line that does not parse is skipped and counted in a
 * {@link ParseErrors} (file, line and field named). Allocation-free; one instance holds a scratch cursor, so it is
 * not thread-safe.
 *
 * <p>Counters are the kernel's absolute totals truncated to the field width (the encoder writes the low 32 bits of
 * a u32 field); hsflowd instead reports disk bytes and network totals accumulated from deltas since it started.
 * Collectors difference successive samples either way.
 */
public final class HostProcParser {
    /** Clock ticks per second of the times in /proc/stat (USER_HZ, {@code sysconf(_SC_CLK_TCK)}; 100 on Linux). */
    public static final int USER_HZ = 100;
    /** Bytes per sector in /proc/diskstats (always 512, whatever the device's sector size; kernel iostats.rst). */
    public static final int SECTOR_BYTES = 512;

    /**
     * Turns one interface's absolute /proc/net/dev counters into what is summed for host_net_io (e.g. totals since
     * the interface was first seen, as hsflowd sums them).
     */
    @FunctionalInterface
    public interface NetdevTotals {
        /**
         * @param b buffer holding the interface name
         * @param off offset of the name
         * @param len length of the name in bytes
         * @param raw the 8 counters as read: bytes, packets, errors, drops in, then the same out (read only)
         * @return the 8 values to add to the totals, indexed as {@code raw}
         */
        long[] totals(byte[] b, int off, int len, long[] raw);
    }

    /** Decides which device names count (whole disks for diskstats, interfaces for net/dev). */
    @FunctionalInterface
    public interface NameFilter {
        /**
         * @param b buffer holding the name
         * @param off offset of the name
         * @param len length of the name in bytes
         * @return true to add this device's counters to the totals
         */
        boolean include(byte[] b, int off, int len);
    }

    private final int[] next = new int[1];
    private final long[] fields = new long[24];

    /**
     * {@code /proc/loadavg} ("4.02 2.59 3.73 5/375 30826") → load_one/five/fifteen (floats), proc_run, proc_total.
     * As hsflowd does, proc_run leaves out the reading process itself (one less, when above 0).
     *
     * @return true if all five fields were read (else nothing is changed and the error counted)
     */
    public boolean loadavg(ProcText t, CounterRecords.HostCpu c, ParseErrors e) {
        byte[] b = t.buf;
        int end = ProcText.lineEnd(b, 0, t.length);
        int p = ProcText.skipBlanks(b, 0, end);
        double one = ProcText.decimal(b, p, end, next);
        if (next[0] < 0) {
            e.add("/proc/loadavg", 1, "load_one");
            return false;
        }
        double five = ProcText.decimal(b, ProcText.skipBlanks(b, next[0], end), end, next);
        if (next[0] < 0) {
            e.add("/proc/loadavg", 1, "load_five");
            return false;
        }
        double fifteen = ProcText.decimal(b, ProcText.skipBlanks(b, next[0], end), end, next);
        if (next[0] < 0) {
            e.add("/proc/loadavg", 1, "load_fifteen");
            return false;
        }
        long run = ProcText.unsigned(b, ProcText.skipBlanks(b, next[0], end), end, next);
        if (next[0] < 0 || next[0] >= end || b[next[0]] != '/') {
            e.add("/proc/loadavg", 1, "proc_run");
            return false;
        }
        long total = ProcText.unsigned(b, next[0] + 1, end, next);
        if (next[0] < 0) {
            e.add("/proc/loadavg", 1, "proc_total");
            return false;
        }
        c.loadOne = (float) one;
        c.loadFive = (float) five;
        c.loadFifteen = (float) fifteen;
        c.procRun = run > 0 ? run - 1 : 0;
        c.procTotal = total;
        return true;
    }

    /**
     * {@code /proc/stat}: the aggregate {@code cpu} line (user nice system idle iowait irq softirq steal guest
     * guest_nice, in USER_HZ ticks; at least the first four) → cpu_user … cpu_sintr, cpu_steal, cpu_guest,
     * cpu_guest_nice in ms (ticks × 1000 / {@link #USER_HZ}), and the 80-byte form ({@code hasStealGuest}); cpu_num =
     * number of {@code cpuN} lines; interrupts = first number of {@code intr}; contexts = {@code ctxt}. Fields a
     * kernel does not print stay 0.
     *
     * @return true if the cpu line was read
     */
    public boolean stat(ProcText t, CounterRecords.HostCpu c, ParseErrors e) {
        byte[] b = t.buf;
        int end = t.length;
        boolean got = false;
        int cpus = 0;
        int line = 0;
        for (int p = 0; p < end; p = ProcText.nextLine(b, p, end)) {
            line++;
            int le = ProcText.lineEnd(b, p, end);
            if (ProcText.startsWith(b, p, le, "cpu ")) {
                int n = numbers(b, p + 4, le, 10);
                if (n < 4) {
                    e.add("/proc/stat", line, "cpu");
                    continue;
                }
                c.cpuUser = ms(fields[0]);
                c.cpuNice = ms(fields[1]);
                c.cpuSystem = ms(fields[2]);
                c.cpuIdle = ms(fields[3]);
                c.cpuWio = n > 4 ? ms(fields[4]) : 0;
                c.cpuIntr = n > 5 ? ms(fields[5]) : 0;
                c.cpuSintr = n > 6 ? ms(fields[6]) : 0;
                c.cpuSteal = n > 7 ? ms(fields[7]) : 0;
                c.cpuGuest = n > 8 ? ms(fields[8]) : 0;
                c.cpuGuestNice = n > 9 ? ms(fields[9]) : 0;
                c.hasStealGuest = true;
                got = true;
            } else if (ProcText.startsWith(b, p, le, "cpu") && le - p > 3 && b[p + 3] >= '0' && b[p + 3] <= '9') {
                cpus++;
            } else if (ProcText.startsWith(b, p, le, "intr ")) {
                if (numbers(b, p + 5, le, 1) < 1) {
                    e.add("/proc/stat", line, "intr");
                } else {
                    c.interrupts = fields[0];
                }
            } else if (ProcText.startsWith(b, p, le, "ctxt ")) {
                if (numbers(b, p + 5, le, 1) < 1) {
                    e.add("/proc/stat", line, "ctxt");
                } else {
                    c.contexts = fields[0];
                }
            }
        }
        if (!got) {
            e.add("/proc/stat", 1, "cpu (aggregate line missing)");
        }
        c.cpuNum = cpus;
        return got;
    }

    /** @return whole seconds of {@code /proc/uptime} ("14712.75 11546.27" → 14712), or -1 if unreadable. */
    public long uptime(ProcText t, ParseErrors e) {
        byte[] b = t.buf;
        int end = ProcText.lineEnd(b, 0, t.length);
        double v = ProcText.decimal(b, ProcText.skipBlanks(b, 0, end), end, next);
        if (next[0] < 0) {
            e.add("/proc/uptime", 1, "uptime");
            return -1;
        }
        return (long) v;
    }

    /**
     * @return the integer MHz of the first {@code cpu MHz : 2445.424} line of {@code /proc/cpuinfo} (as hsflowd),
     *         or 0 when there is none (e.g. on many ARM kernels)
     */
    public long cpuMhz(ProcText t) {
        byte[] b = t.buf;
        int end = t.length;
        for (int p = 0; p < end; p = ProcText.nextLine(b, p, end)) {
            int le = ProcText.lineEnd(b, p, end);
            if (ProcText.startsWith(b, p, le, "cpu MHz")) {
                int q = p + 7;
                while (q < le && (b[q] == ' ' || b[q] == '\t' || b[q] == ':')) {
                    q++;
                }
                double v = ProcText.decimal(b, q, le, next);
                return next[0] < 0 ? 0 : (long) v;
            }
        }
        return 0;
    }

    /**
     * {@code /proc/meminfo} (values in kB, × 1024 to bytes): MemTotal → mem_total, MemFree → mem_free, Shmem →
     * mem_shared (hsflowd leaves it 0), Buffers → mem_buffers, Cached + SReclaimable → mem_cached (as hsflowd),
     * SwapTotal → swap_total, SwapFree → swap_free. page_in/out and swap_in/out come from {@link #vmstat}.
     *
     * @return true if at least MemTotal was read
     */
    public boolean meminfo(ProcText t, CounterRecords.HostMemory m, ParseErrors e) {
        byte[] b = t.buf;
        int end = t.length;
        boolean got = false;
        m.memTotal = m.memFree = m.memShared = m.memBuffers = m.memCached = m.swapTotal = m.swapFree = 0;
        int line = 0;
        for (int p = 0; p < end; p = ProcText.nextLine(b, p, end)) {
            line++;
            int le = ProcText.lineEnd(b, p, end);
            int ke = ProcText.skipToken(b, p, le);
            if (ke == p) {
                continue;
            }
            long v = ProcText.unsigned(b, ProcText.skipBlanks(b, ke, le), le, next);
            if (next[0] < 0) {
                e.add("/proc/meminfo", line, "value");
                continue;
            }
            long bytes = v * 1024;
            if (ProcText.tokenEquals(b, p, ke, "MemTotal:")) {
                m.memTotal = bytes;
                got = true;
            } else if (ProcText.tokenEquals(b, p, ke, "MemFree:")) {
                m.memFree = bytes;
            } else if (ProcText.tokenEquals(b, p, ke, "Shmem:")) {
                m.memShared = bytes;
            } else if (ProcText.tokenEquals(b, p, ke, "Buffers:")) {
                m.memBuffers = bytes;
            } else if (ProcText.tokenEquals(b, p, ke, "Cached:") || ProcText.tokenEquals(b, p, ke, "SReclaimable:")) {
                m.memCached += bytes;
            } else if (ProcText.tokenEquals(b, p, ke, "SwapTotal:")) {
                m.swapTotal = bytes;
            } else if (ProcText.tokenEquals(b, p, ke, "SwapFree:")) {
                m.swapFree = bytes;
            }
        }
        if (!got) {
            e.add("/proc/meminfo", 1, "MemTotal (missing)");
        }
        return got;
    }

    /**
     * {@code /proc/vmstat}: pgpgin → page_in, pgpgout → page_out, pswpin → swap_in, pswpout → swap_out (counts, as
     * hsflowd).
     *
     * @return true if pgpgin was read
     */
    public boolean vmstat(ProcText t, CounterRecords.HostMemory m, ParseErrors e) {
        byte[] b = t.buf;
        int end = t.length;
        boolean got = false;
        int line = 0;
        for (int p = 0; p < end; p = ProcText.nextLine(b, p, end)) {
            line++;
            int le = ProcText.lineEnd(b, p, end);
            if (!ProcText.startsWith(b, p, le, "pgpg") && !ProcText.startsWith(b, p, le, "pswp")) {
                continue;
            }
            int ke = ProcText.skipToken(b, p, le);
            long v = ProcText.unsigned(b, ProcText.skipBlanks(b, ke, le), le, next);
            if (next[0] < 0) {
                e.add("/proc/vmstat", line, "value");
                continue;
            }
            if (ProcText.tokenEquals(b, p, ke, "pgpgin")) {
                m.pageIn = v;
                got = true;
            } else if (ProcText.tokenEquals(b, p, ke, "pgpgout")) {
                m.pageOut = v;
            } else if (ProcText.tokenEquals(b, p, ke, "pswpin")) {
                m.swapIn = v;
            } else if (ProcText.tokenEquals(b, p, ke, "pswpout")) {
                m.swapOut = v;
            }
        }
        return got;
    }

    /**
     * {@code /proc/diskstats} ("major minor name reads reads_merged sectors_read read_ms writes writes_merged
     * sectors_written write_ms ...", kernel Documentation/admin-guide/iostats.rst) → reads, bytes_read (sectors ×
     * 512), read_time (ms), writes, bytes_written, write_time, summed over the devices {@code disks} accepts.
     * hsflowd sums every line except majors 9 (md) and 253 (device-mapper), which counts a disk and its partitions
     * twice; vecflow lets the caller pass whole physical disks only (see {@link HostCounters#wholeDisks}).
     * disk_total, disk_free and part_max_used are not touched.
     *
     * @return number of devices summed
     */
    public int diskstats(ProcText t, CounterRecords.HostDiskIo d, NameFilter disks, ParseErrors e) {
        byte[] b = t.buf;
        int end = t.length;
        long reads = 0, sectorsRead = 0, readMs = 0, writes = 0, sectorsWritten = 0, writeMs = 0;
        int devices = 0;
        int line = 0;
        for (int p = 0; p < end; p = ProcText.nextLine(b, p, end)) {
            line++;
            int le = ProcText.lineEnd(b, p, end);
            int q = ProcText.skipBlanks(b, p, le);
            if (q == le) {
                continue;
            }
            if (numbers(b, q, le, 2) < 2) {
                e.add("/proc/diskstats", line, "major/minor");
                continue;
            }
            int nameStart = ProcText.skipBlanks(b, next[0], le);
            int nameEnd = ProcText.skipToken(b, nameStart, le);
            if (numbers(b, nameEnd, le, 8) < 8) {
                e.add("/proc/diskstats", line, "counters");
                continue;
            }
            if (!disks.include(b, nameStart, nameEnd - nameStart)) {
                continue;
            }
            devices++;
            reads += fields[0];
            sectorsRead += fields[2];
            readMs += fields[3];
            writes += fields[4];
            sectorsWritten += fields[6];
            writeMs += fields[7];
        }
        d.reads = reads;
        d.bytesRead = sectorsRead * SECTOR_BYTES;
        d.readTime = readMs;
        d.writes = writes;
        d.bytesWritten = sectorsWritten * SECTOR_BYTES;
        d.writeTime = writeMs;
        return devices;
    }

    /**
     * {@code /proc/net/dev} ("name: rx_bytes rx_packets rx_errs rx_drop fifo frame compressed multicast tx_bytes
     * tx_packets tx_errs tx_drop ...") → bytes_in, pkts_in, errs_in, drops_in, bytes_out, packets_out, errs_out,
     * drops_out, summed over the interfaces {@code interfaces} accepts (hsflowd: up, not loopback, not a VLAN
     * sub-interface, not a bond master). The two header lines are skipped.
     *
     * @return number of interfaces summed
     */
    public int netdev(ProcText t, CounterRecords.HostNetIo n, NameFilter interfaces, ParseErrors e) {
        return netdev(t, n, interfaces, null, e);
    }

    private final long[] netRaw = new long[8];

    /**
     * As {@link #netdev(ProcText, CounterRecords.HostNetIo, NameFilter, ParseErrors)}, each interface's counters
     * passed through {@code totals} before they are summed (null: summed as read).
     *
     * @return number of interfaces summed
     */
    public int netdev(ProcText t, CounterRecords.HostNetIo n, NameFilter interfaces, NetdevTotals totals,
            ParseErrors e) {
        byte[] b = t.buf;
        int end = t.length;
        long bIn = 0, pIn = 0, eIn = 0, dIn = 0, bOut = 0, pOut = 0, eOut = 0, dOut = 0;
        int count = 0;
        int line = 0;
        for (int p = 0; p < end; p = ProcText.nextLine(b, p, end)) {
            line++;
            int le = ProcText.lineEnd(b, p, end);
            int colon = p;
            while (colon < le && b[colon] != ':') {
                colon++;
            }
            if (colon == le) {
                continue; // the two header lines ("Inter-|   Receive ...", " face |bytes ...") have no colon
            }
            int nameStart = ProcText.skipBlanks(b, p, colon);
            if (numbers(b, colon + 1, le, 12) < 12) {
                e.add("/proc/net/dev", line, "counters");
                continue;
            }
            if (!interfaces.include(b, nameStart, colon - nameStart)) {
                continue;
            }
            count++;
            long[] v = netRaw;
            v[0] = fields[0];
            v[1] = fields[1];
            v[2] = fields[2];
            v[3] = fields[3];
            v[4] = fields[8];
            v[5] = fields[9];
            v[6] = fields[10];
            v[7] = fields[11];
            if (totals != null) {
                v = totals.totals(b, nameStart, colon - nameStart, v);
            }
            bIn += v[0];
            pIn += v[1];
            eIn += v[2];
            dIn += v[3];
            bOut += v[4];
            pOut += v[5];
            eOut += v[6];
            dOut += v[7];
        }
        n.bytesIn = bIn;
        n.pktsIn = pIn;
        n.errsIn = eIn;
        n.dropsIn = dIn;
        n.bytesOut = bOut;
        n.pktsOut = pOut;
        n.errsOut = eOut;
        n.dropsOut = dOut;
        return count;
    }

    /** The file {@link #snmp} reads, as named in parse errors. */
    static final String SNMP_FILE = "/proc/net/snmp";

    /** The four /proc/net/snmp groups {@link #snmp} reads, by the first token of their lines. */
    private static final String[] SNMP_GROUPS = {"Ip:", "Icmp:", "Tcp:", "Udp:"};

    /**
     * Per group, the kernel's column names (net/ipv4/proc.c) in the order of the sFlow record's fields (host-sflow
     * src/sflow/sflow.h {@code SFLHost_ip_counters}, {@code _icmp_}, {@code _tcp_}, {@code _udp_}; the structures of
     * sflow_host_ip.txt). Columns not listed (Ip OutTransmits, Icmp InCsumErrors, InTimestampReps,
     * OutRateLimitGlobal, OutRateLimitHost, Udp IgnoredMulti, MemErrors) have no sFlow field.
     */
    static final String[][] SNMP_COLUMNS = {
        {"Forwarding", "DefaultTTL", "InReceives", "InHdrErrors", "InAddrErrors", "ForwDatagrams", "InUnknownProtos",
            "InDiscards", "InDelivers", "OutRequests", "OutDiscards", "OutNoRoutes", "ReasmTimeout", "ReasmReqds",
            "ReasmOKs", "ReasmFails", "FragOKs", "FragFails", "FragCreates"},
        {"InMsgs", "InErrors", "InDestUnreachs", "InTimeExcds", "InParmProbs", "InSrcQuenchs", "InRedirects",
            "InEchos", "InEchoReps", "InTimestamps", "InAddrMasks", "InAddrMaskReps", "OutMsgs", "OutErrors",
            "OutDestUnreachs", "OutTimeExcds", "OutParmProbs", "OutSrcQuenchs", "OutRedirects", "OutEchos",
            "OutEchoReps", "OutTimestamps", "OutTimestampReps", "OutAddrMasks", "OutAddrMaskReps"},
        {"RtoAlgorithm", "RtoMin", "RtoMax", "MaxConn", "ActiveOpens", "PassiveOpens", "AttemptFails", "EstabResets",
            "CurrEstab", "InSegs", "OutSegs", "RetransSegs", "InErrs", "OutRsts", "InCsumErrors"},
        {"InDatagrams", "NoPorts", "InErrors", "OutDatagrams", "RcvbufErrors", "SndbufErrors", "InCsumErrors"},
    };

    /** Parse-error texts, built once so that recording an error allocates nothing. */
    private static final String[][] SNMP_MISSING = new String[4][];
    private static final String[][] SNMP_NOT_A_NUMBER = new String[4][];
    private static final String[] SNMP_GROUP_MISSING = new String[4];

    static {
        for (int g = 0; g < 4; g++) {
            String group = SNMP_GROUPS[g].substring(0, SNMP_GROUPS[g].length() - 1);
            SNMP_MISSING[g] = new String[SNMP_COLUMNS[g].length];
            SNMP_NOT_A_NUMBER[g] = new String[SNMP_COLUMNS[g].length];
            for (int i = 0; i < SNMP_COLUMNS[g].length; i++) {
                SNMP_MISSING[g][i] = group + " column " + SNMP_COLUMNS[g][i] + " missing (sent as 0)";
                SNMP_NOT_A_NUMBER[g][i] = group + " " + SNMP_COLUMNS[g][i] + " is not a number (sent as 0)";
            }
            SNMP_GROUP_MISSING[g] = group + " header and value lines missing (group sent as zeros)";
        }
    }

    private final long[] snmpValues = new long[25];

    /**
     * {@code /proc/net/snmp} → mib2_ip_group (0:2007), mib2_icmp_group (0:2008), mib2_tcp_group (0:2009) and
     * mib2_udp_group (0:2010). Each group is a header line of column names and a value line, both starting with the
     * group's token ({@code Ip:}, {@code Icmp:}, {@code Tcp:}, {@code Udp:}; {@code IcmpMsg:} and {@code UdpLite:}
     * are other groups); values are mapped to fields by column name ({@link #SNMP_COLUMNS}), so columns a kernel adds
     * or inserts (Icmp InCsumErrors since Linux 3.10, OutRateLimitGlobal/Host since 6.0, Ip OutTransmits since 6.3)
     * change nothing. hsflowd (readTcpipCounters.c) instead copies the value line by position into the sFlow
     * structure, which on kernels with Icmp InCsumErrors shifts every ICMP field after InErrors by one column.
     *
     * <p>Values are read as hsflowd does ({@code (uint32_t)strtol(...)}): the low 32 bits of the decimal, so a
     * negative value wraps (Tcp MaxConn -1 → 0xFFFFFFFF), a value beyond 2^32 keeps its low 32 bits (a counter's
     * modulo-2^32 value), and one beyond the range of a signed 64-bit integer saturates as strtol does (to
     * 0xFFFFFFFF, or 0 below -2^63). A column the kernel does not print, a value that is not a number, or a group
     * missing altogether leaves its fields 0 and counts in {@code e} (file, line, column). Nothing is allocated.
     *
     * @return true if at least one value was read: hsflowd then sends all four records, missing groups as zeros;
     *         false (file without any of the groups' values) — hsflowd sends none of them
     */
    public boolean snmp(ProcText t, CounterRecords.Mib2IpGroup ip, CounterRecords.Mib2IcmpGroup icmp,
            CounterRecords.Mib2TcpGroup tcp, CounterRecords.Mib2UdpGroup udp, ParseErrors e) {
        byte[] b = t.buf;
        int end = t.length;
        int read = 0;
        int done = 0;
        int headerGroup = -1, headerFrom = 0, headerTo = 0, headerLine = 0;
        int line = 0;
        for (int p = 0; p < end; p = ProcText.nextLine(b, p, end)) {
            line++;
            int le = ProcText.lineEnd(b, p, end);
            int ke = ProcText.skipToken(b, p, le);
            int g = snmpGroup(b, p, ke);
            if (g < 0 || (done & 1 << g) != 0) {
                headerGroup = -1;
                continue;
            }
            if (headerGroup != g) {
                headerGroup = g;
                headerFrom = ke;
                headerTo = le;
                headerLine = line;
                continue;
            }
            headerGroup = -1;
            done |= 1 << g;
            java.util.Arrays.fill(snmpValues, 0);
            int seen = 0;
            int hp = ProcText.skipBlanks(b, headerFrom, headerTo);
            int vp = ProcText.skipBlanks(b, ke, le);
            String[] names = SNMP_COLUMNS[g];
            while (hp < headerTo) {
                int he = ProcText.skipToken(b, hp, headerTo);
                int ve = ProcText.skipToken(b, vp, le);
                int idx = column(names, b, hp, he);
                if (idx >= 0 && (seen & 1 << idx) == 0) {
                    long v = strtolU32(b, vp, ve);
                    if (next[0] < 0) {
                        e.add(SNMP_FILE, line, SNMP_NOT_A_NUMBER[g][idx]);
                    } else {
                        snmpValues[idx] = v;
                        read++;
                    }
                    seen |= 1 << idx;
                }
                hp = ProcText.skipBlanks(b, he, headerTo);
                vp = ProcText.skipBlanks(b, ve, le);
            }
            for (int i = 0; i < names.length; i++) {
                if ((seen & 1 << i) == 0) {
                    e.add(SNMP_FILE, headerLine, SNMP_MISSING[g][i]);
                }
            }
            store(g, ip, icmp, tcp, udp);
        }
        if (read == 0) {
            return false;
        }
        for (int g = 0; g < 4; g++) {
            if ((done & 1 << g) == 0) {
                e.add(SNMP_FILE, line, SNMP_GROUP_MISSING[g]);
                java.util.Arrays.fill(snmpValues, 0);
                store(g, ip, icmp, tcp, udp);
            }
        }
        return true;
    }

    private static int snmpGroup(byte[] b, int p, int q) {
        for (int g = 0; g < SNMP_GROUPS.length; g++) {
            if (ProcText.tokenEquals(b, p, q, SNMP_GROUPS[g])) {
                return g;
            }
        }
        return -1;
    }

    private static int column(String[] names, byte[] b, int p, int q) {
        for (int i = 0; i < names.length; i++) {
            if (ProcText.tokenEquals(b, p, q, names[i])) {
                return i;
            }
        }
        return -1;
    }

    /**
     * hsflowd's {@code (uint32_t)strtol(token, &end, 0)} on a decimal token {@code b[p, q)}: optional sign, digits
     * (a non-digit ends the number); saturated to [-2^63, 2^63 - 1] as strtol does, then cut to the low 32 bits.
     *
     * @return the u32 value; {@code next[0] = -1} if the token does not start with a number
     */
    private long strtolU32(byte[] b, int p, int q) {
        int i = p;
        boolean negative = false;
        if (i < q && (b[i] == '-' || b[i] == '+')) {
            negative = b[i] == '-';
            i++;
        }
        int digits = i;
        long magnitude = 0; // unsigned, up to 2^63; past that `over` is set
        boolean over = false;
        while (i < q && b[i] >= '0' && b[i] <= '9') {
            if (!over) {
                if (Long.compareUnsigned(magnitude, Long.MAX_VALUE / 10) > 0) {
                    over = true;
                } else {
                    magnitude = magnitude * 10 + (b[i] - '0');
                    over = Long.compareUnsigned(magnitude, Long.MIN_VALUE) > 0;
                }
            }
            i++;
        }
        if (i == digits) {
            next[0] = -1;
            return 0;
        }
        next[0] = i;
        long v;
        if (negative) {
            v = over ? Long.MIN_VALUE : -magnitude; // magnitude 2^63 → Long.MIN_VALUE exactly
        } else {
            v = over || magnitude < 0 ? Long.MAX_VALUE : magnitude;
        }
        return v & 0xFFFFFFFFL;
    }

    private void store(int g, CounterRecords.Mib2IpGroup ip, CounterRecords.Mib2IcmpGroup icmp,
            CounterRecords.Mib2TcpGroup tcp, CounterRecords.Mib2UdpGroup udp) {
        long[] v = snmpValues;
        switch (g) {
            case 0 -> {
                ip.ipForwarding = v[0];
                ip.ipDefaultTTL = v[1];
                ip.ipInReceives = v[2];
                ip.ipInHdrErrors = v[3];
                ip.ipInAddrErrors = v[4];
                ip.ipForwDatagrams = v[5];
                ip.ipInUnknownProtos = v[6];
                ip.ipInDiscards = v[7];
                ip.ipInDelivers = v[8];
                ip.ipOutRequests = v[9];
                ip.ipOutDiscards = v[10];
                ip.ipOutNoRoutes = v[11];
                ip.ipReasmTimeout = v[12];
                ip.ipReasmReqds = v[13];
                ip.ipReasmOKs = v[14];
                ip.ipReasmFails = v[15];
                ip.ipFragOKs = v[16];
                ip.ipFragFails = v[17];
                ip.ipFragCreates = v[18];
            }
            case 1 -> {
                icmp.icmpInMsgs = v[0];
                icmp.icmpInErrors = v[1];
                icmp.icmpInDestUnreachs = v[2];
                icmp.icmpInTimeExcds = v[3];
                icmp.icmpInParamProbs = v[4];
                icmp.icmpInSrcQuenchs = v[5];
                icmp.icmpInRedirects = v[6];
                icmp.icmpInEchos = v[7];
                icmp.icmpInEchoReps = v[8];
                icmp.icmpInTimestamps = v[9];
                icmp.icmpInAddrMasks = v[10];
                icmp.icmpInAddrMaskReps = v[11];
                icmp.icmpOutMsgs = v[12];
                icmp.icmpOutErrors = v[13];
                icmp.icmpOutDestUnreachs = v[14];
                icmp.icmpOutTimeExcds = v[15];
                icmp.icmpOutParamProbs = v[16];
                icmp.icmpOutSrcQuenchs = v[17];
                icmp.icmpOutRedirects = v[18];
                icmp.icmpOutEchos = v[19];
                icmp.icmpOutEchoReps = v[20];
                icmp.icmpOutTimestamps = v[21];
                icmp.icmpOutTimestampReps = v[22];
                icmp.icmpOutAddrMasks = v[23];
                icmp.icmpOutAddrMaskReps = v[24];
            }
            case 2 -> {
                tcp.tcpRtoAlgorithm = v[0];
                tcp.tcpRtoMin = v[1];
                tcp.tcpRtoMax = v[2];
                tcp.tcpMaxConn = v[3];
                tcp.tcpActiveOpens = v[4];
                tcp.tcpPassiveOpens = v[5];
                tcp.tcpAttemptFails = v[6];
                tcp.tcpEstabResets = v[7];
                tcp.tcpCurrEstab = v[8];
                tcp.tcpInSegs = v[9];
                tcp.tcpOutSegs = v[10];
                tcp.tcpRetransSegs = v[11];
                tcp.tcpInErrs = v[12];
                tcp.tcpOutRsts = v[13];
                tcp.tcpInCsumErrors = v[14];
            }
            default -> {
                udp.udpInDatagrams = v[0];
                udp.udpNoPorts = v[1];
                udp.udpInErrors = v[2];
                udp.udpOutDatagrams = v[3];
                udp.udpRcvbufErrors = v[4];
                udp.udpSndbufErrors = v[5];
                udp.udpInCsumErrors = v[6];
            }
        }
    }

    /**
     * Reads up to {@code max} blank-separated unsigned decimals from {@code p} into {@link #fields}; stops at the
     * first token that is not a number. {@link #next}[0] is left just past the last number read.
     *
     * @return how many were read
     */
    private int numbers(byte[] b, int p, int end, int max) {
        int n = 0;
        int q = p;
        while (n < max) {
            int s = ProcText.skipBlanks(b, q, end);
            long v = ProcText.unsigned(b, s, end, next);
            if (next[0] < 0 || (next[0] < end && b[next[0]] != ' ' && b[next[0]] != '\t')) {
                next[0] = q;
                break;
            }
            fields[n++] = v;
            q = next[0];
        }
        next[0] = q;
        return n;
    }

    private static long ms(long ticks) {
        return ticks * 1000 / USER_HZ;
    }
}
