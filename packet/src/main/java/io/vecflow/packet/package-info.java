/**
 * Packets without I/O: zero-copy header views and the parser ({@link io.vecflow.packet.PacketParser}
 * into a reused {@link io.vecflow.packet.ParsedPacket}: Ethernet, 802.3 LLC/SNAP, 802.1Q/QinQ, MPLS, IPv4, IPv6 with
 * extension headers and SRH, TCP/UDP/ICMP, GRE, VXLAN, Geneve inner headers), and pcap/pcapng files ({@link
 * io.vecflow.packet.PcapReader}, {@link io.vecflow.packet.PcapWriter}).
 *
 * <p>Depends on {@code io.vecflow.common} only.
 */
package io.vecflow.packet;
