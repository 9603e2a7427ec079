package io.vecflow.hsflowd.counters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vecflow.hsflowd.config.HsflowdConfig;
import io.vecflow.sflow.CounterSample;
import io.vecflow.sflow.CounterSampleEncoder;
import io.vecflow.sflow.XdrWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host sample (source 2:1) built from test /proc and /sys roots and encoded, checked byte by byte: the MIB-II
 * groups 2007–2010 from a /proc/net/snmp (this machine's, src/test/resources/proc-fixture/net_snmp), their place in
 * hsflowd's record order, host_net_io left out when no interface counts, and host_descr's 16 uuid bytes in each of
 * hsflowd's UUID cases. Expected values are written out from the test files, not taken from the code under test.
 */
class HostSampleTest {
    @TempDir
    Path tmp;

    private Path proc;
    private Path sys;

    private void roots(String snmp) throws Exception {
        proc = Files.createDirectories(tmp.resolve("proc"));
        sys = Files.createDirectories(tmp.resolve("sys"));
        Files.createDirectories(proc.resolve("net"));
        Files.createDirectories(proc.resolve("sys/kernel"));
        if (snmp != null) {
            Files.writeString(proc.resolve("net/snmp"), snmp);
        }
        Files.writeString(proc.resolve("net/dev"), """
                Inter-|   Receive                            |  Transmit
                 face |bytes    packets errs drop fifo frame ...|bytes    packets errs drop ...
                    lo:    1000   10 0 0 0 0 0 0    1000   10 0 0 0 0 0 0
                  eth0: 5000000 4000 1 2 0 0 0 7 3000000 2000 3 4 0 0 0 0
                eth0.7:  700000  600 0 0 0 0 0 0  500000  400 0 0 0 0 0 0
                """);
        Files.writeString(proc.resolve("sys/kernel/hostname"), "router-7\n");
        Files.writeString(proc.resolve("sys/kernel/osrelease"), "6.18.44-fc-v1045\n");
    }

    /** A link table: lo (up, loopback), and, if asked, eth0 (up) and the VLAN device eth0.7 (up). */
    private static LinkTable links(boolean withEth0) {
        LinkTable t = new LinkTable();
        link(t, 1, "lo", InterfaceCounters.IFF_UP | InterfaceCounters.IFF_LOOPBACK, 0);
        if (withEth0) {
            link(t, 2, "eth0", InterfaceCounters.IFF_UP, 0x020000000002L);
            link(t, 3, "eth0.7", InterfaceCounters.IFF_UP, 0x020000000002L);
        }
        return t;
    }

    private static void link(LinkTable t, int ifIndex, String name, int flags, long mac) {
        LinkTable.Link l = t.links[t.count++];
        l.ifIndex = ifIndex;
        l.flags = flags;
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(n, 0, l.name, 0, n.length);
        l.nameLength = n.length;
        l.mac = mac;
        l.hasMac = mac != 0;
    }

    private static final byte[] SOME_UUID = HexFormat.of().parseHex("3e8f5a600b3c4d2e9f115a6b7c8d9e0f");

    /** Encodes a filled sample; returns {format, body offset, body length} per record. */
    private static List<int[]> records(byte[] d) {
        ByteBuffer b = ByteBuffer.wrap(d);
        assertThat(b.getInt(0)).as("0:4").isEqualTo(4);
        assertThat(b.getInt(4)).as("sample length").isEqualTo(d.length - 8);
        assertThat(b.getInt(12)).as("source type").isEqualTo(2);
        assertThat(b.getInt(16)).as("source index").isEqualTo(1);
        int n = b.getInt(20);
        int p = 24;
        List<int[]> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new int[] {b.getInt(p), p + 8, b.getInt(p + 4)});
            p += 8 + b.getInt(p + 4);
        }
        assertThat(p).isEqualTo(d.length);
        return out;
    }

    private static byte[] encode(CounterSample s) {
        XdrWriter w = new XdrWriter(4096);
        assertThat(CounterSampleEncoder.encode(s, w)).isTrue();
        return Arrays.copyOf(w.buffer(), w.position());
    }

    private static byte[] body(byte[] d, int[] rec) {
        return Arrays.copyOfRange(d, rec[1], rec[1] + rec[2]);
    }

    private static byte[] u32s(long... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4);
        for (long v : values) {
            b.putInt((int) v);
        }
        return b.array();
    }

    private static String fixture(String name) throws Exception {
        return new String(HostProcParserTest.fixture(name), StandardCharsets.US_ASCII);
    }

    private byte[] fill(HostCounters h, LinkTable t) {
        CounterSample s = new CounterSample();
        h.fill(t, 1, s);
        return encode(s);
    }

    /**
     * This machine's /proc/net/snmp (kernel 6.18: Icmp with InCsumErrors and the two OutRateLimit columns, Ip with
     * OutTransmits) → the four records field by field, in hsflowd's order between host_adapters and host_net_io.
     */
    @Test
    void mib2GroupsFromThisMachinesProcNetSnmpByteByByte() throws Exception {
        roots(fixture("net_snmp"));
        HostCounters h = new HostCounters(proc, sys, SOME_UUID);
        byte[] d = fill(h, links(true));
        List<int[]> recs = records(d);
        assertThat(recs.stream().map(r -> r[0]).toList()).containsExactly(2001, 2010, 2009, 2008, 2007, 2006, 2000);
        // Ip: 2 64 5207 0 0 0 0 0 5207 4380 0 0 0 0 0 0 0 0 0 4380  (the last, OutTransmits, has no sFlow field)
        assertThat(body(d, recs.get(4))).hasSize(76)
                .isEqualTo(u32s(2, 64, 5207, 0, 0, 0, 0, 0, 5207, 4380, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        // Icmp: InMsgs 1, InDestUnreachs 1 (the 4th column; hsflowd's positional copy would put it in InTimeExcds)
        long[] icmp = new long[25];
        icmp[0] = 1;
        icmp[2] = 1;
        assertThat(body(d, recs.get(3))).hasSize(100).isEqualTo(u32s(icmp));
        // Tcp: 1 200 120000 -1 54 5 14 0 9 5174 4348 0 0 58 0 — MaxConn -1 → 0xFFFFFFFF
        assertThat(body(d, recs.get(2))).hasSize(60)
                .isEqualTo(u32s(1, 200, 120000, 0xFFFFFFFFL, 54, 5, 14, 0, 9, 5174, 4348, 0, 0, 58, 0));
        // Udp: 32 0 0 33 0 0 0 (IgnoredMulti, MemErrors have no sFlow field)
        assertThat(body(d, recs.get(1))).hasSize(28).isEqualTo(u32s(32, 0, 0, 33, 0, 0, 0));
        assertThat(h.parseErrors().count()).as(h.parseErrors().toString()).isZero();
    }

    /** An older kernel's layout (no Icmp InCsumErrors, no Tcp InCsumErrors), values past 32 bits, a bad value. */
    @Test
    void mib2MapsByColumnNameCountsMissingColumnsAndWrapsAs32Bits() throws Exception {
        roots("""
                Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownProtos \
                InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout ReasmReqds ReasmOKs ReasmFails \
                FragOKs FragFails FragCreates
                Ip: 1 63 4294967296 1 2 4294967301 3 4 5 6 7 8 30 9 10 11 12 13 14
                Icmp: InMsgs InErrors InDestUnreachs InTimeExcds InParmProbs InSrcQuenchs InRedirects InEchos \
                InEchoReps InTimestamps InTimestampReps InAddrMasks InAddrMaskReps OutMsgs OutErrors OutDestUnreachs \
                OutTimeExcds OutParmProbs OutSrcQuenchs OutRedirects OutEchos OutEchoReps OutTimestamps \
                OutTimestampReps OutAddrMasks OutAddrMaskReps
                Icmp: 101 102 103 104 105 106 107 108 109 110 999 111 112 113 114 115 116 117 118 119 120 121 122 \
                123 124 125
                Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab \
                InSegs OutSegs RetransSegs InErrs OutRsts
                Tcp: 1 200 120000 -1 99999999999999999999 -99999999999999999999 x7 0 9 10 11 12 13 14
                Udp: NoPorts InDatagrams InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors
                Udp: 5 6 7 8 9 10 11
                """);
        HostCounters h = new HostCounters(proc, sys, SOME_UUID);
        byte[] d = fill(h, links(true));
        List<int[]> recs = records(d);
        assertThat(recs.stream().map(r -> r[0]).toList()).containsExactly(2001, 2010, 2009, 2008, 2007, 2006, 2000);
        // 2^32 → 0, 2^32 + 5 → 5 (the low 32 bits, as hsflowd's (uint32_t)strtol)
        assertThat(body(d, recs.get(4)))
                .isEqualTo(u32s(1, 63, 0, 1, 2, 5, 3, 4, 5, 6, 7, 8, 30, 9, 10, 11, 12, 13, 14));
        // InTimestampReps (999) has no sFlow field; the rest land by name
        assertThat(body(d, recs.get(3))).isEqualTo(u32s(101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112,
                113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123, 124, 125));
        // beyond the signed 64-bit range strtol saturates: +... → 0xFFFFFFFF, -... → 0; "x7" is no number → 0;
        // InCsumErrors is not printed by this kernel → 0
        assertThat(body(d, recs.get(2)))
                .isEqualTo(u32s(1, 200, 120000, 0xFFFFFFFFL, 0xFFFFFFFFL, 0, 0, 0, 9, 10, 11, 12, 13, 14, 0));
        // columns in another order still map by name
        assertThat(body(d, recs.get(1))).isEqualTo(u32s(6, 5, 7, 8, 9, 10, 11));
        assertThat(h.parseErrors().count()).isEqualTo(2);
        assertThat(h.parseErrors().first()).isEqualTo("/proc/net/snmp line 6: Tcp AttemptFails is not a number "
                + "(sent as 0)");
    }

    /** A group whose lines are missing is sent as zeros (hsflowd's zeroed structure); no values at all → none. */
    @Test
    void mib2MissingGroupIsZerosAndAnEmptyFileSendsNone() throws Exception {
        roots("""
                Udp: InDatagrams NoPorts InErrors OutDatagrams RcvbufErrors SndbufErrors InCsumErrors
                Udp: 1 2 3 4 5 6 7
                """);
        HostCounters h = new HostCounters(proc, sys, SOME_UUID);
        byte[] d = fill(h, links(true));
        List<int[]> recs = records(d);
        assertThat(recs.stream().map(r -> r[0]).toList()).containsExactly(2001, 2010, 2009, 2008, 2007, 2006, 2000);
        assertThat(body(d, recs.get(1))).isEqualTo(u32s(1, 2, 3, 4, 5, 6, 7));
        assertThat(body(d, recs.get(2))).isEqualTo(new byte[60]);
        assertThat(body(d, recs.get(3))).isEqualTo(new byte[100]);
        assertThat(body(d, recs.get(4))).isEqualTo(new byte[76]);
        assertThat(h.parseErrors().count()).isEqualTo(3);
        assertThat(h.parseErrors().first()).isEqualTo("/proc/net/snmp line 2: Ip header and value lines missing "
                + "(group sent as zeros)");

        Files.writeString(proc.resolve("net/snmp"), "Ip: Forwarding\nTcpExt: SyncookiesSent\nTcpExt: 0\n");
        assertThat(records(fill(h, links(true))).stream().map(r -> r[0]).toList())
                .containsExactly(2001, 2006, 2000);
        Files.delete(proc.resolve("net/snmp"));
        long before = h.readErrors();
        assertThat(records(fill(h, links(true))).stream().map(r -> r[0]).toList())
                .containsExactly(2001, 2006, 2000);
        assertThat(h.readErrors()).isGreaterThan(before);
    }

    /**
     * host_net_io: with only lo there is no interface to sum, and hsflowd leaves the record out; with eth0 up it
     * sums eth0 alone — not lo, and not the VLAN device eth0.7 listed in /proc/net/vlan/config.
     */
    @Test
    void hostNetIoLeftOutWithOnlyLoopbackAndSumsNonVlanInterfaces() throws Exception {
        roots(fixture("net_snmp"));
        Files.createDirectories(proc.resolve("net/vlan"));
        Files.writeString(proc.resolve("net/vlan/config"), """
                VLAN Dev name    | VLAN ID
                Name-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD
                eth0.7         | 7  | eth0
                """);
        HostCounters h = new HostCounters(proc, sys, SOME_UUID);
        byte[] onlyLo = fill(h, links(false));
        assertThat(records(onlyLo).stream().map(r -> r[0]).toList()).containsExactly(2001, 2010, 2009, 2008, 2007,
                2000);
        byte[] first = fill(h, links(true));
        List<int[]> recs = records(first);
        assertThat(recs.get(5)[0]).isEqualTo(2006);
        // hsflowd sums each counted interface's totals since it first saw it: the first time, zeros
        assertThat(body(first, recs.get(5))).isEqualTo(new byte[40]);
        Files.writeString(proc.resolve("net/dev"), """
                Inter-|   Receive                            |  Transmit
                 face |bytes    packets errs drop fifo frame ...|bytes    packets errs drop ...
                    lo:    9000   90 0 0 0 0 0 0    9000   90 0 0 0 0 0 0
                  eth0: 10000000 8000 2 4 0 0 0 7 6000000 4000 6 8 0 0 0 0
                eth0.7:  900000  800 0 0 0 0 0 0  700000  600 0 0 0 0 0 0
                """);
        byte[] d = fill(h, links(true));
        recs = records(d);
        // eth0's change only: lo and the VLAN device do not count
        ByteBuffer nio = ByteBuffer.allocate(40).putLong(5_000_000).putInt(4000).putInt(1).putInt(2)
                .putLong(3_000_000).putInt(2000).putInt(3).putInt(4);
        assertThat(body(d, recs.get(5))).isEqualTo(nio.array());
        // the file unreadable later (it is mode 0600 and the agent drops root): the list read before still holds
        Files.delete(proc.resolve("net/vlan/config"));
        byte[] later = fill(h, links(true));
        assertThat(body(later, records(later).get(5))).isEqualTo(nio.array());
        // eth0 down: nothing counts, the record goes again; and host_adapters lists only the interfaces that are up
        LinkTable t = links(true);
        t.links[1].flags = 0;
        byte[] down = fill(h, t);
        assertThat(records(down).stream().map(r -> r[0]).toList()).doesNotContain(2006);
        // one adapter: ifIndex 3, one MAC, 02:00:00:00:00:02 and 2 bytes of padding
        ByteBuffer adapters = ByteBuffer.allocate(20).putInt(1).putInt(3).putInt(1).putInt(0x02000000)
                .putInt(0x00020000);
        assertThat(body(down, records(down).getFirst())).isEqualTo(adapters.array());
    }

    /**
     * A box with many ports: host_adapters stops at hsflowd's 32 (HSP_MAX_PHYSICAL_ADAPTORS), so the host sample
     * still fits the default 1400-byte datagram — with 64 it did not, and the whole host sample was never sent.
     */
    @Test
    void manyInterfacesKeepTheHostSampleWithinTheDefaultDatagram() throws Exception {
        roots(fixture("net_snmp"));
        LinkTable t = new LinkTable();
        link(t, 1, "lo", InterfaceCounters.IFF_UP | InterfaceCounters.IFF_LOOPBACK, 0);
        for (int i = 0; i < 300; i++) {
            link(t, 10 + i, "eth" + i, InterfaceCounters.IFF_UP, 0x020000000100L + i);
        }
        HostCounters h = new HostCounters(proc, sys, SOME_UUID);
        CounterSample s = new CounterSample();
        h.fill(t, 1, s);
        assertThat(s.records.hostAdapters.count).isEqualTo(HostCounters.MAX_HOST_ADAPTERS).isEqualTo(32);
        assertThat(s.records.hostAdapters.adapters[31].ifIndex).as("the first 32, in dump order").isEqualTo(41);
        io.vecflow.sflow.DatagramBuilder b = new io.vecflow.sflow.DatagramBuilder(
                new io.vecflow.hsflowd.config.HsflowdConfig().datagramBytes, new byte[4], 100001);
        assertThat(b.addCounterSample(s)).as("the host sample fits an empty 1400-byte datagram").isTrue();
        // host_net_io keeps per-interface totals: of the fixture's /proc/net/dev lines only eth0 is one of these
        assertThat(h.netTotalsKept()).isEqualTo(1);
    }

    /** Interfaces that come and go (containers) do not grow the host_net_io totals without bound. */
    @Test
    void hostNetIoTotalsOfInterfacesGoneAreDropped() throws Exception {
        roots(fixture("net_snmp"));
        StringBuilder dev = new StringBuilder("Inter-|\n face |\n");
        LinkTable many = new LinkTable();
        for (int i = 0; i < 600; i++) {
            link(many, 10 + i, "veth" + i, InterfaceCounters.IFF_UP, 0x020000000100L + i);
            dev.append("veth").append(i).append(": 100 1 0 0 0 0 0 0 100 1 0 0 0 0 0 0\n");
        }
        Files.writeString(proc.resolve("net/dev"), dev);
        HostCounters h = new HostCounters(proc, sys, SOME_UUID);
        CounterSample s = new CounterSample();
        h.fill(many, 1, s);
        assertThat(h.netTotalsKept()).isEqualTo(600);
        h.fill(links(true), 2, s); // the veths are gone; eth0 is what counts now
        assertThat(h.netTotalsKept()).as("only interfaces that exist").isLessThanOrEqualTo(1);
    }

    // ---- host_descr's uuid: hsflowd's order config uuid, -u, DMI, built from the machine id ----

    /** The 16 uuid bytes of the encoded host_descr (after the hostname string). */
    private byte[] uuidSent(HostCounters h) {
        byte[] d = fill(h, links(true));
        int[] descr = records(d).getLast();
        assertThat(descr[0]).isEqualTo(2000);
        ByteBuffer b = ByteBuffer.wrap(d);
        int nameLen = b.getInt(descr[1]);
        assertThat(new String(d, descr[1] + 4, nameLen, StandardCharsets.US_ASCII)).isEqualTo("router-7");
        int u = descr[1] + 4 + (nameLen + 3) / 4 * 4;
        return Arrays.copyOfRange(d, u, u + 16);
    }

    private HostCounters agent(String configUuid, String dashU, String dashM, Path machineId) {
        return new HostCounters(proc, sys, HostUuid.choose(configUuid, dashU, sys, null, dashM, machineId).bytes());
    }

    private Path machineId(String text) throws Exception {
        return Files.writeString(tmp.resolve("machine-id"), text);
    }

    private void dmi(String text) throws Exception {
        Files.createDirectories(sys.resolve("class/dmi/id"));
        Files.writeString(sys.resolve("class/dmi/id/product_uuid"), text);
    }

    @Test
    void uuidFromConfigWinsOverDashUWhichWinsOverDmi() throws Exception {
        roots(null);
        dmi("4C4C4544-0042-3510-8052-B4C04F4E4D31\n");
        Path mid = machineId("3d1219c7c4c5404aaa1f6d2a48adfda4\n");
        assertThat(uuidSent(agent("3e8f5a60-0b3c-4d2e-9f11-5a6b7c8d9e0f", "564D4180-E560-251E-88F8-8285B49A7839",
                null, mid))).isEqualTo(HexFormat.of().parseHex("3e8f5a600b3c4d2e9f115a6b7c8d9e0f"));
        assertThat(uuidSent(agent(null, "564D4180-E560-251E-88F8-8285B49A7839", null, mid)))
                .isEqualTo(HexFormat.of().parseHex("564d4180e560251e88f88285b49a7839"));
        assertThat(HostUuid.choose(null, "564D4180-E560-251E-88F8-8285B49A7839", sys, null, null, mid).source())
                .isEqualTo(HostUuid.Source.COMMAND_LINE);
    }

    /**
     * The DMI UUID in text order: product_uuid (like dmidecode) already shows SMBIOS ≥ 2.6's little-endian first
     * three fields swapped into RFC 4122 order, so the text's bytes go out as they read — the raw SMBIOS bytes
     * 44 45 4C 4C 42 00 10 35 ... are not what is sent.
     */
    @Test
    void uuidFromDmiInTextOrder() throws Exception {
        roots(null);
        dmi("4C4C4544-0042-3510-8052-B4C04F4E4D31\n");
        Path mid = machineId("3d1219c7c4c5404aaa1f6d2a48adfda4\n");
        HostUuid.Choice c = HostUuid.choose(null, null, sys, null, null, mid);
        assertThat(c.source()).isEqualTo(HostUuid.Source.DMI);
        assertThat(uuidSent(new HostCounters(proc, sys, c.bytes()))).containsExactly(0x4C, 0x4C, 0x45, 0x44, 0x00,
                0x42, 0x35, 0x10, 0x80, 0x52, 0xB4, 0xC0, 0x4F, 0x4E, 0x4D, 0x31);
        assertThat(c.text()).isEqualTo("4c4c4544-0042-3510-8052-b4c04f4e4d31");
        // as hsflowd, from dmidecode's output (its first "UUID:" line; an earlier "Not Settable" one does not parse);
        // no such program → no DMI UUID
        Path dmidecode = Files.writeString(tmp.resolve("dmidecode"), """
                #!/bin/sh
                echo '# dmidecode 3.4'
                echo 'Handle 0x0001, DMI type 1, 27 bytes'
                echo 'System Information'
                printf '\tUUID: Not Settable\n'
                printf '\tUUID: 4C4C4544-0042-3510-8052-B4C04F4E4D31\n'
                printf '\tUUID: 11111111-2222-3333-4444-555555555555\n'
                """);
        assertThat(HostUuid.choose(null, null, sys, dmidecode, null, mid).source())
                .as("not executable: no dmidecode").isEqualTo(HostUuid.Source.MACHINE_ID);
        assertThat(dmidecode.toFile().setExecutable(true)).isTrue();
        HostUuid.Choice viaDmidecode = HostUuid.choose(null, null, tmp.resolve("no-sys"), dmidecode, null, mid);
        assertThat(viaDmidecode.source()).isEqualTo(HostUuid.Source.DMI);
        assertThat(viaDmidecode.bytes()).isEqualTo(c.bytes());
    }

    /**
     * No DMI UUID (or an all-zero / all-ones one) → hsflowd's built one: FNV-1a over the machine id's two halves
     * (bytes as signed chars), h1 h2 h1 h2 little-endian, version 5, RFC 4122 variant. For machine id
     * 3d1219c7c4c5404aaa1f6d2a48adfda4: h1 = 0xc2d54a73, h2 = 0x7e59fdbb (worked out separately) → 734ad5c2 bbfd
     * 597e b34a d5c2bbfd097e. The same bytes on every start: nothing to persist.
     */
    @Test
    void uuidBuiltFromMachineIdWhenDmiIsMissingZeroOrOnes() throws Exception {
        roots(null);
        Path mid = machineId("3d1219c7c4c5404aaa1f6d2a48adfda4\n");
        byte[] expected = HexFormat.of().parseHex("734ad5c2bbfd597eb34ad5c2bbfd097e");
        assertThat(uuidSent(agent(null, null, null, mid))).isEqualTo(expected);
        assertThat(uuidSent(agent(null, null, null, mid))).as("a restart").isEqualTo(expected);
        dmi("00000000-0000-0000-0000-000000000000\n");
        assertThat(uuidSent(agent(null, null, null, mid))).isEqualTo(expected);
        dmi("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF\n");
        assertThat(uuidSent(agent(null, null, null, mid))).isEqualTo(expected);
        dmi("Not Settable\n");
        assertThat(uuidSent(agent(null, null, null, mid))).isEqualTo(expected);
        // -m wins over /etc/machine-id
        assertThat(uuidSent(agent(null, null, "3d1219c7-c4c5-404a-aa1f-6d2a48adfda4", tmp.resolve("none"))))
                .isEqualTo(expected);
        // no machine id at all: hsflowd hashes 16 zero bytes
        assertThat(uuidSent(agent(null, null, null, tmp.resolve("none"))))
                .isEqualTo(HexFormat.of().parseHex("6571e19b6571519ba571e19b6571e19b"));
    }

    @Test
    void uuidTextAsHsflowdParsesItAndBadOnesAreRefused() throws Exception {
        assertThat(HostUuid.parse("564d4180:e560.251e-88f88285b49a7839")).isEqualTo(HexFormat.of()
                .parseHex("564d4180e560251e88f88285b49a7839"));
        assertThat(HostUuid.parse("1234")).isNull();
        assertThat(HostUuid.parse("not-a-uuid")).isNull();
        assertThatThrownBy(() -> HostUuid.choose(null, "1234", tmp, null, null, tmp.resolve("none")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-u: '1234' is not a UUID");
        HsflowdConfig c = HsflowdConfig.parse("sflow { uuid = 3e8f5a60-0b3c-4d2e-9f11-5a6b7c8d9e0f "
                + "collector { ip = 127.0.0.1 } psample { group = 1 } }");
        c.commandLineUuid = "564D4180-E560-251E-88F8-8285B49A7839";
        assertThat(HostUuid.forConfig(c).source()).isEqualTo(HostUuid.Source.CONFIG);
        assertThat(HostUuid.forConfig(c).text()).isEqualTo("3e8f5a60-0b3c-4d2e-9f11-5a6b7c8d9e0f");
    }
}
