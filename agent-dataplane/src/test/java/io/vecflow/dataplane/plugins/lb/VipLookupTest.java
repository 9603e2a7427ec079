package io.vecflow.dataplane.plugins.lb;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The VIP lookup of {@link LbSnapshot} (full-length VIPs by address, shorter prefixes scanned) gives the
 * answer of the plain rule — the first entry in match order that covers the destination and takes its protocol and
 * port — on random VIP sets that overlap on purpose: a few addresses, /32 (/128) next to shorter prefixes,
 * per-port next to all-port VIPs, up to 60 VIPs per set.
 */
class VipLookupTest {
    private static final int[] PORTS = {0, 80, 443};
    private static final Protocol[] PROTOCOLS = {Protocol.TCP, Protocol.UDP};
    private static final int[] LENGTHS4 = {32, 32, 32, 30, 29, 24, 16};
    private static final int[] LENGTHS6 = {128, 128, 128, 126, 64, 48};

    private static LoadBalancer lb() throws UnknownHostException {
        LoadBalancer.Settings s = new LoadBalancer.Settings();
        s.ip4Source = InetAddress.getByName("192.0.2.250");
        s.ip6Source = InetAddress.getByName("2001:db8:ff::1");
        return new LoadBalancer(s);
    }

    /** The plain rule over the snapshot's match-order list: the VIP slot, or −1; −2 when no prefix covers dst. */
    private static int reference4(LbSnapshot s, int dst, int protocol, int port) {
        boolean covered = false;
        for (int i = 0; i < s.v4Count; i++) {
            if ((dst & s.v4Mask[i]) == s.v4Prefix[i]) {
                covered = true;
                if (s.v4Port[i] == 0 || (s.v4Proto[i] == protocol && s.v4Port[i] == port)) {
                    return s.v4Vip[i];
                }
            }
        }
        return covered ? -1 : -2;
    }

    private static int reference6(LbSnapshot s, long hi, long lo, int protocol, int port) {
        boolean covered = false;
        for (int i = 0; i < s.v6Count; i++) {
            if ((hi & s.v6MaskHi[i]) == s.v6PrefixHi[i] && (lo & s.v6MaskLo[i]) == s.v6PrefixLo[i]) {
                covered = true;
                if (s.v6Port[i] == 0 || (s.v6Proto[i] == protocol && s.v6Port[i] == port)) {
                    return s.v6Vip[i];
                }
            }
        }
        return covered ? -1 : -2;
    }

    private static VipKey key(SplittableRandom r, byte[] address, int length) throws UnknownHostException {
        int bits = address.length * 8;
        for (int b = length; b < bits; b++) { // host bits zero
            address[b / 8] &= (byte) ~(0x80 >>> (b % 8));
        }
        int port = PORTS[r.nextInt(PORTS.length)];
        return new VipKey(InetAddress.getByAddress(address), length, port == 0 ? null : PROTOCOLS[r.nextInt(2)],
                port);
    }

    @Test
    void theAddressTableAndTheShortPrefixesAgreeWithTheFirstMatchRule() throws Exception {
        SplittableRandom r = new SplittableRandom(11);
        int compared = 0, vipHits = 0, noPort = 0;
        for (int set = 0; set < 300; set++) {
            LoadBalancer lb = lb();
            int n = 1 + r.nextInt(60);
            for (int v = 0; v < n; v++) {
                boolean six = r.nextBoolean();
                byte[] a = six ? InetAddress.getByName("2001:db8::").getAddress() : new byte[] {10, 0, 0, 0};
                a[a.length - 1] = (byte) r.nextInt(8);
                int len = six ? LENGTHS6[r.nextInt(LENGTHS6.length)] : LENGTHS4[r.nextInt(LENGTHS4.length)];
                VipKey k = key(r, a, len);
                try {
                    lb.addVip(k, six ? EncapType.SRV6 : EncapType.GRE4, 257);
                } catch (IllegalArgumentException exists) {
                    assertThat(exists).hasMessageContaining("exists already");
                }
            }
            LbSnapshot s = lb.snapshot();
            for (int q = 0; q < 200; q++) {
                int protocol = PROTOCOLS[r.nextInt(2)].number();
                int port = new int[] {80, 443, 53}[r.nextInt(3)];
                int last = r.nextInt(16);
                int dst = 0x0A000000 | last;
                int want = reference4(s, dst, protocol, port);
                int at = s.prefix4(dst);
                assertThat(at >= 0).as("set %d: 10.0.0.%d covered", set, last).isEqualTo(want != -2);
                if (at >= 0) {
                    assertThat(s.vip4(at, dst, protocol, port)).as("set %d: 10.0.0.%d %d/%d", set, last, protocol,
                            port).isEqualTo(want);
                }
                long hi = ByteBuffer.wrap(InetAddress.getByName("2001:db8::").getAddress()).getLong(), lo = last;
                int want6 = reference6(s, hi, lo, protocol, port);
                int at6 = s.prefix6(hi, lo);
                assertThat(at6 >= 0).as("set %d: 2001:db8::%x covered", set, last).isEqualTo(want6 != -2);
                if (at6 >= 0) {
                    assertThat(s.vip6(at6, hi, lo, protocol, port)).as("set %d: 2001:db8::%x", set, last)
                            .isEqualTo(want6);
                }
                compared += 2;
                vipHits += (want >= 0 ? 1 : 0) + (want6 >= 0 ? 1 : 0);
                noPort += (want == -1 ? 1 : 0) + (want6 == -1 ? 1 : 0);
            }
        }
        // the sets produce every outcome often: a VIP, covered without a VIP for the port, not covered
        assertThat(compared).isEqualTo(120_000);
        assertThat(vipHits).isGreaterThan(20_000);
        assertThat(noPort).isGreaterThan(5_000);
        assertThat(compared - vipHits - noPort).isGreaterThan(5_000);
    }

    @Test
    void aHostVipIsFoundAmongTwoHundredFiftySixAndItsPortsKeepTheirOrder() throws Exception {
        LoadBalancer lb = lb();
        for (int i = 0; i < 254; i++) {
            lb.addVip(new VipKey(InetAddress.getByName("198.51.100." + i), 32, Protocol.UDP, 53), EncapType.GRE4, 257);
        }
        lb.addVip(new VipKey(InetAddress.getByName("198.51.100.7"), 32, null, 0), EncapType.GRE4, 257);
        lb.addVip(new VipKey(InetAddress.getByName("198.51.100.0"), 24, Protocol.TCP, 80), EncapType.GRE4, 257);
        LbSnapshot s = lb.snapshot();
        int dst7 = 0xC6336407;
        int at = s.prefix4(dst7);
        assertThat(at).isNotNegative();
        int perPort = s.vip4(at, dst7, 17, 53), allPorts = s.vip4(at, dst7, 17, 54), web = s.vip4(at, dst7, 6, 80);
        assertThat(perPort).as("198.51.100.7 udp/53: its per-port VIP").isEqualTo(reference4(s, dst7, 17, 53));
        assertThat(allPorts).as("udp/54: the all-port /32").isEqualTo(reference4(s, dst7, 17, 54))
                .isNotEqualTo(perPort);
        assertThat(web).as("tcp/80: the per-port /24 comes before the all-port /32").isEqualTo(
                reference4(s, dst7, 6, 80)).isNotEqualTo(allPorts);
        int dst255 = 0xC63364FF;
        assertThat(s.vip4(s.prefix4(dst255), dst255, 17, 53)).as("only the /24 covers .255; not its port")
                .isEqualTo(-1);
        assertThat(s.prefix4(0xC6336500)).as("198.51.101.0").isEqualTo(-1);
    }
}
