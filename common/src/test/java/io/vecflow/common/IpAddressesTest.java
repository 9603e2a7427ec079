package io.vecflow.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.HexFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link IpAddresses}: canonical address text. */
class IpAddressesTest {
    /** RFC 5952 §4 rules (examples from its sections 4.1–4.3 and 5) and addresses from the captures. */
    @ParameterizedTest
    @CsvSource({
            "20010db8000000000000000000000001, 2001:db8::1",
            "20010db8000000010001000100010001, 2001:db8:0:1:1:1:1:1",   // one 0 group is not compressed
            "20010000000000010000000000000001, 2001:0:0:1::1",          // longest run wins
            "20010db8000000000001000000000001, 2001:db8::1:0:0:1",      // first of equal runs
            "20010db8000000000000000000000000, 2001:db8::",
            "00000000000000000000000000000000, ::",
            "00000000000000000000000000000001, ::1",
            "00000000000000000000ffffc0000201, ::ffff:192.0.2.1",       // IPv4-mapped, mixed notation
            "2606470000000000000000006812069c, 2606:4700::6812:69c",
            "fe80000000000000021517fffecce546, fe80::215:17ff:fecc:e546",
            "000a000b000c00020000000000f10000, a:b:c:2::f1:0",
    })
    void formatsIpv6Canonically(String hex, String text) throws Exception {
        byte[] raw = HexFormat.of().parseHex(hex);
        long hi = java.nio.ByteBuffer.wrap(raw).getLong(0);
        long lo = java.nio.ByteBuffer.wrap(raw).getLong(8);
        assertThat(IpAddresses.ipv6String(hi, lo)).isEqualTo(text);
        if (!text.startsWith("::ffff:")) {
            assertThat(InetAddress.getByName(text).getAddress()).isEqualTo(raw);
        }
    }
}
