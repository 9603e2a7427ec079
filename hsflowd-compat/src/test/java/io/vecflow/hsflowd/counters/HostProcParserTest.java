package io.vecflow.hsflowd.counters;

import static org.assertj.core.api.Assertions.assertThat;

import io.vecflow.sflow.CounterRecords;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The /proc parsers on real files: src/test/resources/proc-fixture holds copies of this build machine's /proc/stat,
 * meminfo, diskstats, net/dev, loadavg, vmstat, uptime, cpuinfo and its /sys/block listing (SOURCE.txt: when, how,
 * and the kernel's uname line). Expected values are read off those files by hand.
 */
class HostProcParserTest {
    private final HostProcParser p = new HostProcParser();
    private final ParseErrors e = new ParseErrors();

    static byte[] fixture(String name) throws IOException {
        try (InputStream in = HostProcParserTest.class.getResourceAsStream("/proc-fixture/" + name)) {
            assertThat(in).as("fixture " + name).isNotNull();
            return in.readAllBytes();
        }
    }

    static ProcText text(String name) throws IOException {
        return new ProcText(64).set(fixture(name));
    }

    @Test
    void loadavg() throws IOException {
        CounterRecords.HostCpu c = new CounterRecords.HostCpu();
        assertThat(p.loadavg(text("loadavg"), c, e)).isTrue(); // "4.02 2.59 3.73 5/375 30826"
        assertThat(c.loadOne).isEqualTo(4.02f);
        assertThat(c.loadFive).isEqualTo(2.59f);
        assertThat(c.loadFifteen).isEqualTo(3.73f);
        assertThat(c.procRun).isEqualTo(4); // 5 running, minus the reader itself (hsflowd)
        assertThat(c.procTotal).isEqualTo(375);
        assertThat(e.count()).isZero();
    }

    @Test
    void statCpuTimesInMsCountsAndCpuNumber() throws IOException {
        CounterRecords.HostCpu c = new CounterRecords.HostCpu();
        assertThat(p.stat(text("stat"), c, e)).isTrue();
        // cpu  1444495 0 242757 1154627 6180 0 46687 37743 0 0   (USER_HZ = 100 ticks/s → x10 ms)
        assertThat(c.cpuUser).isEqualTo(14_444_950);
        assertThat(c.cpuNice).isEqualTo(0);
        assertThat(c.cpuSystem).isEqualTo(2_427_570);
        assertThat(c.cpuIdle).isEqualTo(11_546_270);
        assertThat(c.cpuWio).isEqualTo(61_800);
        assertThat(c.cpuIntr).isEqualTo(0);
        assertThat(c.cpuSintr).isEqualTo(466_870);
        assertThat(c.cpuSteal).isEqualTo(377_430);
        assertThat(c.cpuGuest).isEqualTo(0);
        assertThat(c.cpuGuestNice).isEqualTo(0);
        assertThat(c.hasStealGuest).isTrue();
        assertThat(c.cpuNum).isEqualTo(2); // cpu0, cpu1
        assertThat(c.interrupts).isEqualTo(16_334_848);
        assertThat(c.contexts).isEqualTo(50_453_352);
        assertThat(e.count()).isZero();
    }

    @Test
    void uptimeAndCpuSpeed() throws IOException {
        assertThat(p.uptime(text("uptime"), e)).isEqualTo(14712); // "14712.75 11546.27"
        assertThat(p.cpuMhz(text("cpuinfo"))).isEqualTo(2445); // "cpu MHz : 2445.424"
        assertThat(p.cpuMhz(new ProcText(64).set("processor : 0\nBogoMIPS : 50.00\n".getBytes()))).isZero();
    }

    @Test
    void meminfoAndVmstat() throws IOException {
        CounterRecords.HostMemory m = new CounterRecords.HostMemory();
        assertThat(p.meminfo(text("meminfo"), m, e)).isTrue();
        assertThat(m.memTotal).isEqualTo(24_684_092L * 1024);
        assertThat(m.memFree).isEqualTo(21_544_604L * 1024);
        assertThat(m.memShared).isEqualTo(8_856L * 1024); // Shmem
        assertThat(m.memBuffers).isEqualTo(38_812L * 1024);
        assertThat(m.memCached).isEqualTo((1_129_684L + 227_372L) * 1024); // Cached + SReclaimable, as hsflowd
        assertThat(m.swapTotal).isZero();
        assertThat(m.swapFree).isZero();
        assertThat(p.vmstat(text("vmstat"), m, e)).isTrue();
        assertThat(m.pageIn).isEqualTo(7_447_221);
        assertThat(m.pageOut).isEqualTo(5_432_224);
        assertThat(m.swapIn).isZero();
        assertThat(m.swapOut).isZero();
        assertThat(e.count()).isZero();
    }

    @Test
    void diskstatsSumsWholePhysicalDisksOnly() throws IOException {
        Set<String> sysBlock = new TreeSet<>(new String(fixture("sys_block.txt"), StandardCharsets.US_ASCII)
                .lines().toList()); // loop0..7, vda, zram0
        CounterRecords.HostDiskIo d = new CounterRecords.HostDiskIo();
        int n = p.diskstats(text("diskstats"), d, (b, off, len) -> HostCounters.wholeDisk(sysBlock, b, off, len), e);
        // only "254 0 vda 484357 39129 14894442 1269999 243379 131730 10864448 173329 ..." (loop*, zram0 excluded)
        assertThat(n).isEqualTo(1);
        assertThat(d.reads).isEqualTo(484_357);
        assertThat(d.bytesRead).isEqualTo(14_894_442L * 512);
        assertThat(d.readTime).isEqualTo(1_269_999);
        assertThat(d.writes).isEqualTo(243_379);
        assertThat(d.bytesWritten).isEqualTo(10_864_448L * 512);
        assertThat(d.writeTime).isEqualTo(173_329);
        assertThat(e.count()).isZero();
    }

    @Test
    void diskstatsCountsPartitionsOnlyWhenAsked() throws IOException {
        // a disk and its partition: /sys/block lists only the disk, so sda1 is not counted twice
        byte[] text = ("   8       0 sda 10 0 200 7 20 0 400 9 0 0 0 0 0 0 0 0 0\n"
                + "   8       1 sda1 5 0 100 3 10 0 200 4 0 0 0 0 0 0 0 0 0\n").getBytes();
        CounterRecords.HostDiskIo d = new CounterRecords.HostDiskIo();
        assertThat(p.diskstats(new ProcText(64).set(text), d, (b, o, l) -> HostCounters.wholeDisk(Set.of("sda"), b, o,
                l), e)).isEqualTo(1);
        assertThat(d.reads).isEqualTo(10);
        assertThat(d.bytesRead).isEqualTo(200 * 512);
        assertThat(d.writes).isEqualTo(20);
    }

    @Test
    void netdevSumsTheInterfacesTheFilterKeeps() throws IOException {
        CounterRecords.HostNetIo n = new CounterRecords.HostNetIo();
        int count = p.netdev(text("net_dev"), n, (b, off, len) -> !ProcText.tokenEquals(b, off, off + len, "lo"), e);
        assertThat(count).isEqualTo(3); // ifb0, ifb1 (all zero), eth0
        // eth0: 196256931 7429 0 0 0 0 0 0 997147 6828 0 0 0 0 0 0
        assertThat(n.bytesIn).isEqualTo(196_256_931L);
        assertThat(n.pktsIn).isEqualTo(7_429);
        assertThat(n.errsIn).isZero();
        assertThat(n.dropsIn).isZero();
        assertThat(n.bytesOut).isEqualTo(997_147L);
        assertThat(n.pktsOut).isEqualTo(6_828);
        assertThat(n.errsOut).isZero();
        assertThat(n.dropsOut).isZero();

        count = p.netdev(text("net_dev"), n, (b, off, len) -> true, e);
        assertThat(count).isEqualTo(4);
        // plus lo: 124204164173 264932183 ... 124204164173 264932183
        assertThat(n.bytesIn).isEqualTo(196_256_931L + 124_204_164_173L);
        assertThat(n.pktsIn).isEqualTo(7_429L + 264_932_183L);
        assertThat(n.bytesOut).isEqualTo(997_147L + 124_204_164_173L);
        assertThat(e.count()).isZero();
    }

    @Test
    void netdevReadsNamesGluedToTheirFirstCounter() {
        // the kernel prints "%6s:%8llu": a 9-digit counter touches the colon
        byte[] text = ("Inter-|   Receive |  Transmit\n face |bytes    packets|bytes\n"
                + "  eth9:123456789012 5 1 2 0 0 0 0 777 6 3 4 0 0 0 0\n").getBytes();
        CounterRecords.HostNetIo n = new CounterRecords.HostNetIo();
        assertThat(p.netdev(new ProcText(64).set(text), n, (b, o, l) -> ProcText.tokenEquals(b, o, o + l, "eth9"), e))
                .isEqualTo(1);
        assertThat(n.bytesIn).isEqualTo(123_456_789_012L);
        assertThat(n.pktsIn).isEqualTo(5);
        assertThat(n.errsIn).isEqualTo(1);
        assertThat(n.dropsIn).isEqualTo(2);
        assertThat(n.bytesOut).isEqualTo(777);
        assertThat(n.pktsOut).isEqualTo(6);
        assertThat(n.errsOut).isEqualTo(3);
        assertThat(n.dropsOut).isEqualTo(4);
        assertThat(e.count()).isZero();
    }

    @Test
    void badLinesAreNamedCountedAndSkipped() {
        CounterRecords.HostCpu c = new CounterRecords.HostCpu();
        c.procTotal = 99;
        assertThat(p.loadavg(new ProcText(64).set("0.50 0.40 0.30 x/12 7\n".getBytes()), c, e)).isFalse();
        assertThat(c.procTotal).isEqualTo(99); // untouched
        assertThat(e.count()).isEqualTo(1);
        assertThat(e.first()).isEqualTo("/proc/loadavg line 1: proc_run");

        byte[] disks = ("   8 0 sda 10 0 200 7 20 0 400 9\n"
                + "   8 16 sdb 1 2 three\n"
                + "garbage\n"
                + "   8 32 sdc 1 0 8 1 2 0 16 2\n").getBytes();
        CounterRecords.HostDiskIo d = new CounterRecords.HostDiskIo();
        assertThat(p.diskstats(new ProcText(64).set(disks), d, (b, o, l) -> true, e)).isEqualTo(2);
        assertThat(d.reads).isEqualTo(11);
        assertThat(d.writes).isEqualTo(22);
        assertThat(e.count()).isEqualTo(3); // sdb (counters), garbage (major/minor)
        assertThat(new ParseErrors().first()).isNull();

        ParseErrors e2 = new ParseErrors();
        assertThat(p.stat(new ProcText(64).set("intr x\nctxt 5\n".getBytes()), c, e2)).isFalse();
        assertThat(e2.first()).isEqualTo("/proc/stat line 1: intr");
        assertThat(e2.count()).isEqualTo(2); // intr, and the missing cpu line
    }

    @Test
    void uuidAndMachineType() throws IOException {
        java.nio.file.Path f = java.nio.file.Files.createTempFile("uuid", ".txt");
        try {
            java.nio.file.Files.writeString(f, "4C4C4544-0042-3510-8052-B4C04F4B4E32\n");
            assertThat(HostUuid.fromFile(f)).containsExactly(0x4C, 0x4C, 0x45, 0x44, 0x00, 0x42, 0x35, 0x10, 0x80,
                    0x52, 0xB4, 0xC0, 0x4F, 0x4B, 0x4E, 0x32);
            java.nio.file.Files.writeString(f, "0123456789abcdef0123456789abcdef\n"); // /etc/machine-id form
            assertThat(HostUuid.fromFile(f)).containsExactly(0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0x01,
                    0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF);
            java.nio.file.Files.writeString(f, "not-a-uuid\n");
            assertThat(HostUuid.fromFile(f)).isNull();
        } finally {
            java.nio.file.Files.delete(f);
        }
        assertThat(HostCounters.machineType("amd64")).isEqualTo(3);
        assertThat(HostCounters.machineType("aarch64")).isEqualTo(10);
        assertThat(HostCounters.machineType("x86")).isEqualTo(2);
        assertThat(HostCounters.machineType("riscv64")).isEqualTo(0);
    }
}
