package io.vecflow.packet;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LinkTypeTest {

    @Test
    void mapsPcapLinkTypeNumbers() throws Exception {
        assertThat(LinkType.fromPcap(1)).isEqualTo(LinkType.ETHERNET);
        assertThat(LinkType.fromPcap(113)).isEqualTo(LinkType.LINUX_SLL);
        assertThat(LinkType.fromPcap(101)).isEqualTo(LinkType.RAW);
        assertThat(LinkType.fromPcap(228)).isEqualTo(LinkType.IPV4);
        assertThat(LinkType.fromPcap(229)).isEqualTo(LinkType.IPV6);
        // legacy DLT_RAW values written by old OpenBSD / BSD/OS libpcap
        assertThat(LinkType.fromPcap(12)).isEqualTo(LinkType.RAW);
        assertThat(LinkType.fromPcap(14)).isEqualTo(LinkType.RAW);
    }

    @Test
    void canonicalNumbersRoundTrip() throws Exception {
        for (LinkType t : LinkType.values()) {
            assertThat(LinkType.fromPcap(t.pcapNumber())).isEqualTo(t);
        }
        assertThat(LinkType.RAW.pcapNumber()).isEqualTo(101);
        assertThat(LinkType.LINUX_SLL.pcapNumber()).isEqualTo(113);
    }

    @Test
    void ignoresFcsBitsInTheUpperHalfOfTheField() throws Exception {
        // draft-ietf-opsawg-pcap §4: FCS len in bits 28-31, P bit 27 — the type is the low 16 bits
        assertThat(LinkType.fromPcap(0x1800_0001L)).isEqualTo(LinkType.ETHERNET);
    }

    @Test
    void rejectsPppWithAClearMessage() {
        assertThatThrownBy(() -> LinkType.fromPcap(9))
                .isInstanceOf(PcapFormatException.class)
                .hasMessage("unsupported pcap link type 9 (PPP) at offset 20; supported: Ethernet (1),"
                        + " Linux cooked v1 (113), raw IPv4/IPv6 (101, 228, 229)")
                .satisfies(e -> assertThat(((PcapFormatException) e).offset()).isEqualTo(20));
    }

    @Test
    void rejectsUnknownAndSll2() {
        assertThatThrownBy(() -> LinkType.fromPcap(276))
                .hasMessageStartingWith("unsupported pcap link type 276 (Linux cooked v2) at offset 20");
        assertThatThrownBy(() -> LinkType.fromPcap(4242))
                .hasMessageStartingWith("unsupported pcap link type 4242 (unknown) at offset 20");
    }

    @Test
    void mapsSflowHeaderProtocol() {
        assertThat(LinkType.fromSflowHeaderProtocol(1)).isEqualTo(LinkType.ETHERNET);
        assertThat(LinkType.fromSflowHeaderProtocol(11)).isEqualTo(LinkType.IPV4);
        assertThat(LinkType.fromSflowHeaderProtocol(12)).isEqualTo(LinkType.IPV6);
        assertThat(LinkType.fromSflowHeaderProtocol(7)).isNull(); // PPP
        assertThat(LinkType.fromSflowHeaderProtocol(13)).isNull(); // MPLS
        assertThat(LinkType.fromSflowHeaderProtocol(0)).isNull();
    }
}
