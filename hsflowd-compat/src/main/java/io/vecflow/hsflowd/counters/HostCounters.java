package io.vecflow.hsflowd.counters;

import io.vecflow.sflow.CounterRecords;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.SflowFormats;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * Reads the host records hsflowd sends for data source 2:1 (the physical host; sflow_host.txt) from {@code /proc} and
 * {@code /sys} and fills one expanded counters sample (0:4) with, in this order, host_adapters (0:2001),
 * mib2_udp_group (0:2010), mib2_tcp_group (0:2009), mib2_icmp_group (0:2008), mib2_ip_group (0:2007),
 * host_disk_io (0:2005), host_memory (0:2004), host_cpu (0:2003, the 80-byte form), host_net_io (0:2006) and
 * host_descr (0:2000) — hsflowd 2.1's host sample: its {@code agentCB_getCounters} (sflow/host-sflow
 * {@code src/Linux/hsflowd.c}) adds hid, nio, cpu, mem, dsk, ip, icmp, tcp, udp, adaptors in that order and
 * {@code SFLADD_ELEMENT} ({@code src/sflow/sflow.h}) puts each new record at the head of the list, which
 * {@code sflow_receiver.c} writes head first.
 *
 * <p>Sources (facts from sflow/host-sflow {@code src/Linux/read*Counters.c}, parsed by {@link HostProcParser}):
 * host_descr: hostname = {@code /proc/sys/kernel/hostname} (uname nodename), uuid as {@link HostUuid} chooses it,
 * machine_type from {@code os.arch}, os_name 2 (linux), os_release = {@code /proc/sys/kernel/osrelease} (uname release,
 * cut to 32 bytes). host_adapters: every interface of the last link dump that is up (IFF_UP) and has a 6-byte, non-zero
 * MAC, loopback excluded (at most 64; hsflowd.c {@code host_adaptors}). host_cpu: /proc/loadavg, /proc/stat,
 * /proc/uptime, /proc/cpuinfo. host_memory: /proc/meminfo, /proc/vmstat. host_disk_io: /proc/diskstats over whole disks
 * ({@link #wholeDisks}), disk_total / disk_free / part_max_used over the local read-write {@code /dev/*} mounts of
 * /proc/mounts, each device once (as hsflowd, via statvfs: {@link FileStore}). The MIB-II groups: /proc/net/snmp
 * ({@link HostProcParser#snmp}); all four are left out when the file cannot be read or holds none of their values
 * (readTcpipCounters returns 0). host_net_io: each interface's /proc/net/dev counters as totals since it was first
 * seen ({@link CounterAccumulator}, as hsflowd's accumulateNioCounters), summed over the interfaces that are up, not
 * loopback, not
 * bond masters (IFF_MASTER) and not 802.1Q VLAN devices (listed in /proc/net/vlan/config) — readNioCounters.c; the
 * record is left out when no interface qualifies (e.g. a host with only {@code lo}), as hsflowd leaves it out when
 * readNioCounters counts 0.
 *
 * <p>A file that cannot be read leaves its fields at the previous values and counts in {@link #readErrors()};
 * malformed lines count in {@link #parseErrors()}. A poll allocates the file streams and, for the disk space, the
 * mount paths and file stores (one poll per polling interval). Not thread-safe.
 */
public final class HostCounters {
    private final Path proc;
    private final Path sys;
    private final ProcText text = new ProcText(16 << 10);
    private final HostProcParser parser = new HostProcParser();
    private final ParseErrors errors = new ParseErrors();
    private final byte[] hostname = new byte[CounterRecords.MAX_HOSTNAME];
    private final byte[] osRelease = new byte[CounterRecords.MAX_OS_RELEASE];
    private final byte[] uuid;
    private ProcText vlans = new ProcText(256);
    private ProcText vlansRead = new ProcText(256);
    private boolean haveVlans;
    private final long machineType;
    private long readErrors;
    private Set<String> wholeDisks = Set.of();
    private long wholeDisksReadAt = Long.MIN_VALUE;
    private LinkTable currentLinks;
    private final HostProcParser.NameFilter diskFilter = this::isWholeDisk;
    private final HostProcParser.NameFilter netFilter = this::countsForNetIo;
    /** Per interface (by ifIndex): its host_net_io counters as totals since first seen, as hsflowd sums them. */
    private io.vecflow.common.LongObjectMap<CounterAccumulator> netTotals =
            new io.vecflow.common.LongObjectMap<>(16);
    private final HostProcParser.NetdevTotals netAccumulate = this::netTotals;

    /**
     * @param proc the procfs root (normally {@code /proc})
     * @param sys the sysfs root (normally {@code /sys})
     * @param uuid host_descr's 16 uuid bytes (normally {@link HostUuid#choose}; copied)
     * @throws IllegalArgumentException if {@code uuid} is not 16 bytes
     */
    public HostCounters(Path proc, Path sys, byte[] uuid) {
        if (uuid.length != 16) {
            throw new IllegalArgumentException("host uuid must be 16 bytes, got " + uuid.length);
        }
        this.proc = proc;
        this.sys = sys;
        this.uuid = uuid.clone();
        this.machineType = machineType(System.getProperty("os.arch", ""));
        readVlans(); // now, while the agent may still be root: the file is mode 0600
    }

    /**
     * With no configured UUID: the DMI one under {@code sys} (whether or not dmidecode is installed), else one built
     * from {@code machineId} ({@link HostUuid#choose}).
     *
     * @param proc the procfs root (normally {@code /proc})
     * @param sys the sysfs root (normally {@code /sys})
     * @param machineId the machine id file (normally {@code /etc/machine-id})
     */
    public HostCounters(Path proc, Path sys, Path machineId) {
        this(proc, sys, HostUuid.choose(null, null, sys, null, null, machineId).bytes());
    }

    /** The host's own /proc, /sys and /etc/machine-id, the UUID chosen as hsflowd does without -u or a config. */
    public HostCounters() {
        this(Path.of("/proc"), Path.of("/sys"), HostUuid.choose(null, null, Path.of("/sys"), HostUuid.DMIDECODE,
                null, Path.of("/etc/machine-id")).bytes());
    }

    /**
     * Fills {@code s} (cleared first) with the host sample for source 2:1.
     *
     * @param links the last interface dump (adapters, and which interfaces count for host_net_io)
     * @param sequence the sample's sequence_number (u32)
     * @param s the holder to fill
     */
    public void fill(LinkTable links, long sequence, CounterSample s) {
        s.reset();
        s.kind = SflowFormats.COUNTERS_SAMPLE_EXPANDED;
        s.expanded = true;
        s.sequenceNumber = sequence & 0xFFFFFFFFL;
        s.sourceIdType = SflowFormats.SOURCE_ENTITY;
        s.sourceIdIndex = 1;
        CounterRecords r = s.records;
        int n = 0;

        adapters(links, r.hostAdapters);
        r.hasHostAdapters = true;
        s.recordFormats[n++] = CounterRecords.HOST_ADAPTERS;

        boolean mib2 = read("net/snmp")
                && parser.snmp(text, r.mib2Ip, r.mib2Icmp, r.mib2Tcp, r.mib2Udp, errors);
        r.hasMib2Udp = r.hasMib2Tcp = r.hasMib2Icmp = r.hasMib2Ip = mib2;
        if (mib2) {
            s.recordFormats[n++] = CounterRecords.MIB2_UDP;
            s.recordFormats[n++] = CounterRecords.MIB2_TCP;
            s.recordFormats[n++] = CounterRecords.MIB2_ICMP;
            s.recordFormats[n++] = CounterRecords.MIB2_IP;
        }
        r.hasHostDiskIo = disk(r.hostDiskIo);
        if (r.hasHostDiskIo) {
            s.recordFormats[n++] = CounterRecords.HOST_DISK_IO;
        }
        r.hasHostMemory = memory(r.hostMemory);
        if (r.hasHostMemory) {
            s.recordFormats[n++] = CounterRecords.HOST_MEMORY;
        }
        r.hasHostCpu = cpu(r.hostCpu);
        if (r.hasHostCpu) {
            s.recordFormats[n++] = CounterRecords.HOST_CPU;
        }
        r.hasHostNetIo = net(links, r.hostNetIo);
        if (r.hasHostNetIo) {
            s.recordFormats[n++] = CounterRecords.HOST_NET_IO;
        }
        descr(r.hostDescr);
        r.hasHostDescr = true;
        s.recordFormats[n++] = CounterRecords.HOST_DESCR;
        s.recordsListed = n;
        s.recordCount = n;
    }

    /**
     * hsflowd's limit on host_adapters entries (HSP_MAX_PHYSICAL_ADAPTORS; host-sflow hsflowd.c {@code host_adaptors}
     * "stop if we hit the capacity"): 32 adapters keep the host sample (about 1,000 bytes with the other records)
     * within the default 1400-byte datagram, where 64 would not fit one and the whole host sample would be lost.
     */
    public static final int MAX_HOST_ADAPTERS = 32;

    private static void adapters(LinkTable links, CounterRecords.HostAdapters a) {
        int n = 0;
        for (int i = 0; i < links.count && n < MAX_HOST_ADAPTERS; i++) {
            LinkTable.Link l = links.links[i];
            if (!l.hasMac || l.mac == 0 || (l.flags & InterfaceCounters.IFF_LOOPBACK) != 0
                    || (l.flags & InterfaceCounters.IFF_UP) == 0) {
                continue;
            }
            CounterRecords.HostAdapters.Adapter ad = a.adapters[n++];
            ad.ifIndex = Integer.toUnsignedLong(l.ifIndex);
            ad.macs[0] = l.mac;
            ad.macsCount = 1;
        }
        a.count = n;
    }

    private boolean cpu(CounterRecords.HostCpu c) {
        boolean got = read("loadavg") && parser.loadavg(text, c, errors);
        got |= read("stat") && parser.stat(text, c, errors);
        if (read("uptime")) {
            long up = parser.uptime(text, errors);
            if (up >= 0) {
                c.uptime = up;
            }
        }
        if (read("cpuinfo")) {
            c.cpuSpeed = parser.cpuMhz(text);
        }
        return got;
    }

    private boolean memory(CounterRecords.HostMemory m) {
        boolean got = read("meminfo") && parser.meminfo(text, m, errors);
        if (read("vmstat")) {
            parser.vmstat(text, m, errors);
        }
        return got;
    }

    private boolean disk(CounterRecords.HostDiskIo d) {
        refreshWholeDisks();
        boolean got = read("diskstats");
        if (got) {
            parser.diskstats(text, d, diskFilter, errors);
        }
        space(d);
        return got;
    }

    /** @return true when at least one interface counts (hsflowd sends host_net_io only then) */
    private boolean net(LinkTable links, CounterRecords.HostNetIo n) {
        readVlans();
        if (!read("net/dev")) {
            return false;
        }
        currentLinks = links;
        if (netTotals.size() > 2 * links.count + 256) {
            pruneNetTotals(links); // interfaces come and go (containers): keep the ones that exist
        }
        return parser.netdev(text, n, netFilter, netAccumulate, errors) > 0;
    }

    /** @return interfaces whose host_net_io totals are kept (tests) */
    int netTotalsKept() {
        return netTotals.size();
    }

    /** Keeps the host_net_io totals of the interfaces in {@code links} only (rare: rebuilds the map). */
    private void pruneNetTotals(LinkTable links) {
        io.vecflow.common.LongObjectMap<CounterAccumulator> kept =
                new io.vecflow.common.LongObjectMap<>(Math.max(16, links.count * 2));
        for (int i = 0; i < links.count; i++) {
            long k = Integer.toUnsignedLong(links.links[i].ifIndex);
            CounterAccumulator a = netTotals.get(k);
            if (a != null) {
                kept.put(k, a);
            }
        }
        netTotals = kept;
    }

    /**
     * hsflowd's host_net_io is the sum of each counted interface's totals since hsflowd first saw it
     * (readNioCounters.c: {@code nio->bytes_in += niostate->nio.bytes_in}), so an interface that appears adds from 0
     * and one that goes down or away leaves the sum. Allocates once per new interface.
     */
    private long[] netTotals(byte[] b, int off, int len, long[] raw) {
        LinkTable.Link l = currentLinks.byName(b, off, len);
        long key = Integer.toUnsignedLong(l.ifIndex); // countsForNetIo found it
        CounterAccumulator a = netTotals.get(key);
        if (a == null) {
            a = new CounterAccumulator(8, new int[] {0, 4}, new int[] {1, 5});
            netTotals.put(key, a);
        }
        return a.accumulate(raw);
    }

    /**
     * Re-reads /proc/net/vlan/config; when it cannot be read (no 8021q module, or — mode 0600 — after the agent
     * dropped root) the last list read stays, as hsflowd keeps the VLAN mark it gave an interface while it was root.
     */
    private void readVlans() {
        if (readInto(proc.resolve("net/vlan/config"), vlansRead)) {
            ProcText t = vlans;
            vlans = vlansRead;
            vlansRead = t;
            haveVlans = true;
        }
    }

    /**
     * hsflowd's host_net_io rule (readNioCounters.c, readInterfaces.c): an interface counts if it is up (IFF_UP), not
     * loopback (IFF_LOOPBACK), not a bond master (IFF_MASTER) and not an 802.1Q VLAN device.
     */
    private boolean countsForNetIo(byte[] b, int off, int len) {
        LinkTable.Link l = currentLinks.byName(b, off, len);
        return l != null && (l.flags & InterfaceCounters.IFF_UP) != 0
                && (l.flags & (InterfaceCounters.IFF_LOOPBACK | InterfaceCounters.IFF_MASTER)) == 0
                && !(haveVlans && isVlanDevice(vlans, b, off, len));
    }

    /**
     * @param config the text of {@code /proc/net/vlan/config} ("VLAN Dev name | VLAN ID", "Name-Type: ...", then
     *        one {@code NAME | VID | REALDEV} line per VLAN device; kernel net/8021q/vlanproc.c)
     * @return true if the device named {@code b[off, off + len)} is listed after the two header lines
     */
    static boolean isVlanDevice(ProcText config, byte[] b, int off, int len) {
        byte[] c = config.buf;
        int end = config.length;
        int line = 0;
        for (int p = 0; p < end; p = ProcText.nextLine(c, p, end)) {
            if (++line <= 2) {
                continue;
            }
            int le = ProcText.lineEnd(c, p, end);
            int q = ProcText.skipBlanks(c, p, le);
            int te = ProcText.skipToken(c, q, le);
            if (te - q == len && java.util.Arrays.equals(c, q, te, b, off, off + len)) {
                return true;
            }
        }
        return false;
    }

    private void descr(CounterRecords.HostDescr h) {
        int n = readLine(proc.resolve("sys/kernel/hostname"), hostname);
        h.hostname.set(hostname, 0, Math.max(n, 0));
        System.arraycopy(uuid, 0, h.uuid, 0, 16);
        h.machineType = machineType;
        h.osName = 2; // linux
        n = readLine(proc.resolve("sys/kernel/osrelease"), osRelease);
        h.osRelease.set(osRelease, 0, Math.max(n, 0));
    }

    /** Disk space over local read-write /dev mounts (hsflowd readDiskCounters.c, with statvfs via FileStore). */
    private void space(CounterRecords.HostDiskIo d) {
        long total = 0, free = 0;
        int maxUsed = 0;
        if (!read("mounts")) {
            d.diskTotal = d.diskFree = 0;
            d.partMaxUsed = -1;
            return;
        }
        String all = new String(text.buf, 0, text.length, StandardCharsets.UTF_8);
        Set<String> seen = new HashSet<>();
        for (String line : all.split("\n", 10_000)) {
            String[] f = line.split(" ", 5);
            if (f.length < 4) {
                continue;
            }
            String device = f[0], mount = f[1], type = f[2], mode = f[3];
            boolean local = (device.startsWith("/dev/") || device.startsWith("/dev2/") || device.startsWith("ubi:"))
                    && !mode.startsWith("ro") && !remote(device, type) && mount.indexOf('\\') < 0;
            if (!local || !seen.add(device)) {
                continue;
            }
            try {
                FileStore fs = Files.getFileStore(Path.of(mount));
                long t = fs.getTotalSpace();
                long u = fs.getUsableSpace();
                if (t > 0) {
                    total += t;
                    free += u;
                    maxUsed = (int) Math.max(maxUsed, (t - u) * 10_000 / t);
                }
            } catch (IOException | RuntimeException e) {
                readErrors++;
            }
        }
        d.diskTotal = total;
        d.diskFree = free;
        d.partMaxUsed = maxUsed;
    }

    /** Ganglia's remote_mount rule as hsflowd uses it. */
    private static boolean remote(String device, String type) {
        if (device.startsWith("ubi:")) {
            return false;
        }
        return device.indexOf(':') >= 0 || (type.equals("smbfs") && device.startsWith("//")) || type.startsWith("nfs")
                || type.equals("autofs") || type.equals("gfs") || type.equals("none");
    }

    /** Re-lists /sys/block at most once a minute. */
    private void refreshWholeDisks() {
        long now = System.nanoTime();
        if (now - wholeDisksReadAt < 60_000_000_000L && wholeDisksReadAt != Long.MIN_VALUE) {
            return;
        }
        wholeDisksReadAt = now;
        Set<String> names = new HashSet<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(sys.resolve("block"))) {
            int n = 0;
            for (Path p : ds) {
                if (++n > 10_000) {
                    break;
                }
                names.add(p.getFileName().toString());
            }
        } catch (IOException e) {
            readErrors++;
        }
        wholeDisks = names;
    }

    private boolean isWholeDisk(byte[] b, int off, int len) {
        return wholeDisk(wholeDisks, b, off, len);
    }

    /**
     * The disks whose /proc/diskstats lines count: whole block devices (listed in {@code /sys/block}, so partitions
     * are not counted twice) that are physical — not loop, RAM, zram, device-mapper ({@code dm-}), md RAID or nbd
     * devices, whose I/O either lands on a disk already counted or is no disk I/O.
     *
     * @param sysBlock names listed in /sys/block
     * @return true if the device named {@code b[off, off + len)} counts
     */
    public static boolean wholeDisk(Set<String> sysBlock, byte[] b, int off, int len) {
        if (ProcText.startsWith(b, off, off + len, "loop") || ProcText.startsWith(b, off, off + len, "ram")
                || ProcText.startsWith(b, off, off + len, "zram") || ProcText.startsWith(b, off, off + len, "dm-")
                || ProcText.startsWith(b, off, off + len, "md") || ProcText.startsWith(b, off, off + len, "nbd")) {
            return false;
        }
        return sysBlock.contains(new String(b, off, len, StandardCharsets.US_ASCII));
    }

    private boolean read(String file) {
        return readInto(proc.resolve(file), text);
    }

    /** @return false (and one more read error) if the file cannot be read; a missing vlan/config is no error */
    private boolean readInto(Path file, ProcText into) {
        try {
            into.read(file);
            return true;
        } catch (java.nio.file.NoSuchFileException | java.io.FileNotFoundException e) {
            if (into != vlansRead) {
                readErrors++;
            }
            return false;
        } catch (IOException e) {
            readErrors++;
            return false;
        }
    }

    /** Reads the first line of a small file into {@code dst} (cut to its size); -1 if unreadable. */
    private int readLine(Path file, byte[] dst) {
        try {
            text.read(file);
        } catch (IOException e) {
            readErrors++;
            return -1;
        }
        int end = ProcText.lineEnd(text.buf, 0, text.length);
        int n = Math.min(end, dst.length);
        System.arraycopy(text.buf, 0, dst, 0, n);
        return n;
    }

    /**
     * @param osArch the JVM's {@code os.arch}
     * @return sFlow machine_type (sflow_host.txt): 2 x86, 3 x86_64, 4 ia64, 5 sparc, 6 alpha, 7 powerpc, 8 m68k,
     *         9 mips, 10 arm (aarch64 too, as hsflowd), 11 hppa, 12 s390, 0 unknown
     */
    static long machineType(String osArch) {
        String a = osArch.toLowerCase(java.util.Locale.ROOT);
        if (a.equals("amd64") || a.equals("x86_64")) {
            return 3;
        }
        if (a.equals("x86") || a.matches("i[3-6]86")) {
            return 2;
        }
        if (a.startsWith("ia64")) {
            return 4;
        }
        if (a.startsWith("sparc")) {
            return 5;
        }
        if (a.startsWith("alpha")) {
            return 6;
        }
        if (a.startsWith("ppc") || a.startsWith("powerpc")) {
            return 7;
        }
        if (a.startsWith("mips")) {
            return 9;
        }
        if (a.startsWith("arm") || a.equals("aarch64")) {
            return 10;
        }
        if (a.startsWith("s390")) {
            return 12;
        }
        return 0;
    }

    /** @return files that could not be read (each read attempt counts). */
    public long readErrors() {
        return readErrors;
    }

    /** @return malformed lines seen, with the first one named. */
    public ParseErrors parseErrors() {
        return errors;
    }
}
